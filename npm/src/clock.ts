import { num, optionalSignal } from './guard.js';

/**
 * The host's clocks and its sleep. The engine reads no clock: the runtime
 * passes `now` in.
 *
 * `monotonicNow` is `performance.timeOrigin + performance.now()`: monotonic
 * within a process and, being near Unix milliseconds, still meaningful when
 * a snapshot is restored in another process (an edge worker's next
 * isolate). Where `performance` is missing it falls back to `Date.now()`;
 * the engine clamps a clock that steps backwards.
 */

const perf: Performance | undefined = (globalThis as { performance?: Performance }).performance;

const origin = perf !== undefined && typeof perf.now === 'function' ? perf.timeOrigin : 0;

/** When above 0, `monotonicNow() - timeOrigin` is `performance.now()` (one reading serves both clocks). */
export const timeOrigin: number = origin;

export const monotonicNow: () => number =
  perf !== undefined && origin > 0 ? () => origin + perf.now() : () => Date.now();

export const wallNow: () => number = () => Date.now();

/** Sleeps `ms` with `setTimeout`; rejects with the signal's reason on abort. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // Checked here, not in the timer: an error there would be uncaught.
    num(ms, 'ms');
    optionalSignal(signal, 'signal');
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
