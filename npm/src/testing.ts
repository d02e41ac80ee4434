/**
 * Switches for a test run, like stamina's: `setTesting(true)` makes every
 * wait of `retry()` and `createFetch()` end at once (the engine still
 * decides each delay, and `onRetry` still sees it), and `{ attempts: n }`
 * caps every call's attempts, so a test of a failure fails at once;
 * `setActive(false)` turns retrying off entirely: each call makes one
 * attempt outside the engine (no breaker, budget, metrics or events) and
 * its error, or its response whatever the status, reaches the caller as it
 * is. A caller's own `sleep` option still wins over testing mode. Each
 * `setTesting` call also gives `retry()` and `createFetch()` a fresh shared
 * default policy: call it in each test's set-up so that a breaker one test
 * opened does not fail the next (a policy you pass yourself is yours).
 */
import { num } from './guard.js';

/**
 * The switches' state, read by the runtimes at each call; `epoch` counts
 * `setTesting` calls, so the shared default policy starts afresh with each
 * (a breaker one test opened does not fail the next). @internal
 */
export const switches: { testing: boolean; attempts: number | undefined; active: boolean; epoch: number } = {
  testing: false,
  attempts: undefined,
  active: true,
  epoch: 0,
};

export interface TestingOptions {
  /** Every call's attempts while testing (default: each policy's own). */
  attempts?: number;
}

/** Turns testing mode on or off (off also drops the attempts cap). */
export function setTesting(testing: boolean, options: TestingOptions = {}): void {
  const attempts = options.attempts;
  if (attempts !== undefined && !(Number.isInteger(num(attempts, 'attempts')) && attempts >= 1)) {
    throw Object.assign(new RangeError(`attempts must be a whole number of at least 1, got ${attempts}`), {
      code: 'out_of_range',
      field: 'attempts',
    });
  }
  switches.testing = Boolean(testing);
  switches.attempts = testing ? attempts : undefined;
  switches.epoch += 1;
}

/** Whether testing mode is on. */
export function isTesting(): boolean {
  return switches.testing;
}

/** Turns retrying on or off for every `retry()` and `createFetch()`. */
export function setActive(active: boolean): void {
  switches.active = Boolean(active);
}

/** Whether retrying is on. */
export function isActive(): boolean {
  return switches.active;
}

/** A wait that ends at once: testing mode's. @internal */
export function noWait(_ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  return Promise.resolve();
}
