/**
 * Bounds on what the loop awaits: an attempt settles by its timeout or the
 * caller's abort, whatever the function does (a promise that never settles,
 * a signal it ignores), and a hook settles by the caller's abort.
 *
 * Every bounded wait shares one timer, set for the earliest bound: a call
 * costs a set entry, not a timer of its own (a timer per attempt would
 * double the overhead of a call that succeeds at once). The timer holds the
 * process open only while a wait is bounded by it (`ref`/`unref`), so an
 * idle process still exits.
 */

/** One bounded wait: when it expires (ms on `performance.now()`), and what then. */
interface Bound {
  readonly at: number;
  readonly expire: () => void;
}

const pending = new Set<Bound>();
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

function arm(at: number): void {
  if (timer !== undefined && timerAt <= at) {
    hold(true);
    return;
  }
  if (timer !== undefined) clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(fire, Math.max(0, at - performance.now()));
}

/** Expires every bound that is due (a timer may fire a fraction of a ms early), then waits for the next. */
function fire(): void {
  timer = undefined;
  timerAt = Number.POSITIVE_INFINITY;
  const due = performance.now() + 1;
  let next = Number.POSITIVE_INFINITY;
  for (const bound of pending) {
    if (bound.at <= due) {
      pending.delete(bound);
      bound.expire();
    } else if (bound.at < next) {
      next = bound.at;
    }
  }
  if (next !== Number.POSITIVE_INFINITY) arm(next);
}

function forget(bound: Bound): void {
  pending.delete(bound);
  if (pending.size === 0) hold(false);
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
    let bound: Bound | undefined;
    let onAbort: (() => void) | undefined;
    const settle = (): void => {
      if (bound !== undefined) forget(bound);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    };
    if (signal !== undefined) {
      if (signal.aborted) {
        reject(signal.reason);
        Promise.resolve(value).then(undefined, () => undefined);
        return;
      }
      onAbort = () => {
        settle();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
    if (ms >= 0) {
      const at = performance.now() + ms;
      bound = {
        at,
        expire: () => {
          settle();
          reject(expired());
        },
      };
      pending.add(bound);
      arm(at);
    }
    value.then(
      (v) => {
        settle();
        resolve(v);
      },
      (e: unknown) => {
        settle();
        reject(e);
      },
    );
  });
}
