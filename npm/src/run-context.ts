/**
 * The agent tool call in progress, for the layers under it: `Run.call`
 * sets it for the duration of one tool call, and `createFetch` reads it, so
 * a tool written against plain `fetch` through stoic sends the run's
 * idempotency key and spends the run's retries without being told.
 *
 * It follows the call through `await` where the runtime has
 * `AsyncLocalStorage` (the Node entry registers one); elsewhere (browsers)
 * there is no store, and a tool passes `call.key` itself. The store is kept
 * on `globalThis` under a registry symbol, so every bundled entry of the
 * package (`stoic`, `stoic/full`, ...) sees the same one.
 */
import type { CoreRunQuota } from './wasm/stoic_wasm.js';

/** What the layers under a tool call need from it. */
export interface ToolCallContext {
  /** The call's idempotency key, `{runId}:{step}:{hash}`. */
  readonly key: string;
  /** Whether the caller declared that servers honour the key: only then does it make a write safe to repeat. */
  readonly serverDeduplicates: boolean;
  /** The run's retry quota, which every stoic call inside joins. */
  readonly quota: CoreRunQuota;
  /** Whether the caller declared the tool call safe to repeat: its writes are then safe to repeat too. */
  readonly idempotent: boolean;
  /** The writes made so far in the current attempt (reset by each attempt). */
  writes: number;
}

/**
 * The key of the next write of the current attempt: the call's key for the
 * first, then `{key}:2`, `{key}:3`: two writes of one tool call are two
 * operations, and a server that honours keys must not take the second for a
 * repeat of the first.
 */
export function nextWriteKey(context: ToolCallContext): string {
  context.writes += 1;
  return context.writes === 1 ? context.key : `${context.key}:${context.writes}`;
}

/** The part of `AsyncLocalStorage` used here. */
export interface ContextStorage {
  getStore(): ToolCallContext | undefined;
  run<R>(store: ToolCallContext, fn: () => R): R;
}

const REGISTRY = Symbol.for('stoic.toolCallStorage');
type Registry = { [REGISTRY]?: ContextStorage };

/** Installs the runtime's async context storage (once; later calls keep the first). */
export function registerContextStorage(storage: ContextStorage): void {
  const global = globalThis as Registry;
  global[REGISTRY] ??= storage;
}

/** The registered storage; a runtime with a global `AsyncLocalStorage` (workerd with `nodejs_als`) gets one on first use. */
function storage(): ContextStorage | undefined {
  const global = globalThis as Registry & { AsyncLocalStorage?: new () => ContextStorage };
  if (global[REGISTRY] === undefined && typeof global.AsyncLocalStorage === 'function') {
    global[REGISTRY] = new global.AsyncLocalStorage();
  }
  return global[REGISTRY];
}

/** The tool call in progress here, if the runtime can tell. */
export function currentToolCall(): ToolCallContext | undefined {
  return storage()?.getStore();
}

/** Runs `fn` as part of the tool call `context` (without a store: just runs it). */
export function inToolCall<R>(context: ToolCallContext, fn: () => R): R {
  const found = storage();
  return found === undefined ? fn() : found.run(context, fn);
}
