/**
 * Hot-path calls pass network kinds and classes as indexes into the core's
 * own code lists, read once from the module: no list is repeated here.
 */
import { classes, networkKinds } from './wasm/stoic_wasm.js';
import type { NetworkErrorKind, OutcomeClass } from './types.js';

let kinds: Map<string, number> | undefined;
let classIndex: Map<string, number> | undefined;

function indexOf(list: unknown[]): Map<string, number> {
  return new Map(list.map((code, i) => [String(code), i]));
}

/** The index of a network kind code, or -1 if the core has no such kind. */
export function networkIndex(kind: NetworkErrorKind | string): number {
  kinds ??= indexOf(networkKinds());
  return kinds.get(kind) ?? -1;
}

/** The index of a class code, or -1 if the core has no such class. */
export function classIndexOf(cls: OutcomeClass | string): number {
  classIndex ??= indexOf(classes());
  return classIndex.get(cls) ?? -1;
}
