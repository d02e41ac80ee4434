/**
 * Where `retry()` and `createFetch()` find the hedged loop (`hedge.ts`).
 *
 * The loop is registered by the entries whose module has hedged calls
 * (`index.ts`: Node, workerd, inline, `stoic/full`), not imported here, so
 * the browser entry, whose client module leaves hedging out, does not ship
 * it either: there a `hedging` option is refused with `not_in_build`, as a
 * config asking the client module for a left-out behaviour is.
 * @internal
 */
import { ConfigError } from './errors.js';
import type { LoopOptions, Steps } from './loop.js';
import type { Policy } from './policy.js';
import type { HedgeInfo, HedgingConfig } from './types.js';

/** The call a hedged loop starts: as `startNamed` takes it. */
export interface HedgedSpec {
  operation: string;
  scope: string;
  /** Undefined: as the HTTP method is. */
  idempotent: boolean | undefined;
  key: string | undefined;
  method?: string;
}

/** The caller's side of a hedged call: the plain loop's, and `onHedge`. */
export interface HedgeOptions extends LoopOptions {
  onHedge?: (info: HedgeInfo) => void;
}

/** The hedged loop's two steps (`hedge.ts`: `startHedged`, `runHedged`). */
export interface HedgedRunner {
  /** Starts the call; throws the core's `ConfigError` when it is not safe to repeat. */
  start(policy: Policy, t: number, spec: HedgedSpec, hedging: HedgingConfig): number;
  /** Runs its copies to the end; `stepsFor` makes each copy's steps. */
  run<V>(policy: Policy, handle: number, key: string | null, stepsFor: () => Steps<V>, options: HedgeOptions, now: () => number): Promise<V>;
}

let runner: HedgedRunner | undefined;

/** Registers the hedged loop (`index.ts`). */
export function useHedging(run: HedgedRunner): void {
  runner = run;
}

/** The hedged loop, or the `not_in_build` error of the browser build. */
export function hedgedRunner(): HedgedRunner {
  if (runner !== undefined) return runner;
  const message = "hedging is not in this build: import it from stoic/full";
  const problem = { code: 'not_in_build', field: 'hedging', message };
  throw Object.assign(new ConfigError(message), { ...problem, problems: [problem] });
}
