/**
 * Bounds on what the loop awaits: an attempt settles by its timeout or the
 * caller's abort, whatever the function does (a promise that never settles,
 * a signal it ignores), and a hook settles by the caller's abort.
 *
 * Every bounded wait shares one timer, set for the earliest bound: a call
 * costs a slot in a list, not a timer of its own (a timer per attempt would
 * double the overhead of a call that succeeds at once). The timer holds the
 * process open only while a wait is bounded by it (`ref`/`unref`), so an
 * idle process still exits.
 */

/**
 * One bounded wait: when it expires (ms on `performance.now()`), how to end
 * it, and its place in `pending` (-1: not there), so that leaving costs a
 * swap, not a search or a hash (a `Set` of fresh objects costs several
 * times more per call).
 */
export class Bound {
  slot = -1;
  constructor(
    readonly at: number,
    readonly onExpire?: () => void,
  ) {}

  /** Ends the wait (a subclass may end it itself, without a closure). */
  expire(): void {
    this.onExpire?.();
  }
}

const pending: Bound[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
let timerAt = Number.POSITIVE_INFINITY;

/** Node's timers can let the process exit while they wait; other runtimes' are plain numbers. */
interface Holdable {
  ref?: () => unknown;
  unref?: () => unknown;
}

function hold(on: boolean): void {
  const t = timer as Holdable | undefined;
  if (typeof t !== 'object' || t === null) return;
  if (on) t.ref?.();
  else t.unref?.();
}

export function enter(bound: Bound): void {
  bound.slot = pending.length;
  pending.push(bound);
  if (timer !== undefined && timerAt <= bound.at) {
    if (bound.slot === 0) hold(true);
    return;
  }
  if (timer !== undefined) clearTimeout(timer);
  timerAt = bound.at;
  timer = setTimeout(fire, Math.max(0, bound.at - performance.now()));
}

export function leave(bound: Bound): void {
  const slot = bound.slot;
  if (slot < 0) return;
  bound.slot = -1;
  const last = pending.pop() as Bound;
  if (last !== bound) {
    pending[slot] = last;
    last.slot = slot;
  }
  if (pending.length === 0) hold(false);
}

/** Expires every bound that is due (a timer may fire a fraction of a ms early), then waits for the next. */
function fire(): void {
  timer = undefined;
  timerAt = Number.POSITIVE_INFINITY;
  const due = performance.now() + 1;
  const expired: Bound[] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const bound of pending) {
    if (bound.at <= due) expired.push(bound);
    else if (bound.at < next) next = bound.at;
  }
  for (const bound of expired) {
    leave(bound);
    bound.expire();
  }
  if (next !== Number.POSITIVE_INFINITY) {
    timerAt = next;
    timer = setTimeout(fire, Math.max(0, next - performance.now()));
  }
}

/**
 * `value`'s outcome, or a rejection with `expired()`'s error after `ms`
 * (negative: no time bound), or with the signal's reason when it aborts,
 * whichever comes first. A result that arrives later is dropped (a late
 * rejection too: it is handled here, never unhandled). No bound at all:
 * `value` itself.
 */
export function bounded<V>(
  value: PromiseLike<V>,
  ms: number,
  signal: AbortSignal | undefined,
  expired: () => unknown,
): PromiseLike<V> {
  if (ms < 0 && signal === undefined) return value;
  return new Promise<V>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      value.then(undefined, ignore);
      return;
    }
    let onAbort: (() => void) | undefined;
    const bound =
      ms >= 0
        ? new Bound(performance.now() + ms, () => {
            if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
            reject(expired());
          })
        : undefined;
    if (signal !== undefined) {
      onAbort = () => {
        if (bound !== undefined) leave(bound);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
    if (bound !== undefined) enter(bound);
    value.then(
      (v) => {
        if (bound !== undefined) leave(bound);
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        if (bound !== undefined) leave(bound);
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function ignore(): void {}
