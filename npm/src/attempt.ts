/**
 * What an attempt function receives: its number, its limits, and an
 * `AbortSignal` that fires at the attempt's timeout or when the caller
 * aborts. The signal is only made if the function reads it, so a function
 * that ignores it costs nothing; its timeout is the loop's bound on the
 * attempt (one shared timer), not a timer of its own.
 */

export interface Attempt {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** This attempt's timeout: `min(read timeout, time left)`; null if unbounded. */
  readonly timeoutMs: number | null;
  /** The call's idempotency key, the same on every attempt. */
  readonly idempotencyKey: string | null;
  /** Aborts at the attempt's timeout (reason: a `TimeoutError`) or with the caller's signal. */
  readonly signal: AbortSignal;
}

/** @internal */
export class AttemptContext implements Attempt {
  readonly attempt: number;
  readonly #timeoutMs: number;
  readonly idempotencyKey: string | null;
  readonly #outer: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #unlink: (() => void) | undefined;
  /** Why the loop let this attempt go (a hedged call's loser), made only if the signal exists. */
  #letGo: (() => unknown) | undefined;
  /** Whether this attempt's own timeout fired. */
  timedOut = false;

  constructor(attempt: number, timeoutMs: number, key: string | null, outer?: AbortSignal) {
    this.attempt = attempt;
    this.#timeoutMs = timeoutMs;
    this.idempotencyKey = key;
    this.#outer = outer;
  }

  get timeoutMs(): number | null {
    return this.#timeoutMs < 0 ? null : this.#timeoutMs;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#letGo !== undefined) {
        controller.abort(this.#letGo());
        return controller.signal;
      }
      // The timeout needs no timer here: the loop bounds every attempt that
      // returns a promise by the same time on its shared timer (watch.ts),
      // whose expiry calls `expire()`, which aborts this signal; an attempt
      // that returns anything else is over, and done, at once.
      const outer = this.#outer;
      if (outer !== undefined) {
        if (outer.aborted) {
          controller.abort(outer.reason);
        } else {
          const onAbort = () => controller.abort(outer.reason);
          outer.addEventListener('abort', onAbort, { once: true });
          this.#unlink = () => outer.removeEventListener('abort', onAbort);
        }
      }
    }
    return this.#controller.signal;
  }

  /**
   * The attempt's bound passed while its function had not settled: marks it
   * timed out, aborts its signal (a cooperative function stops) and returns
   * the error the attempt ends with.
   */
  expire(): DOMException {
    const reason = new DOMException('the attempt timed out', 'TimeoutError');
    this.timedOut = true;
    if (this.#controller !== undefined && !this.#controller.signal.aborted) this.#controller.abort(reason);
    return reason;
  }

  /**
   * The loop let this attempt go (a hedged call's copy that lost or was
   * cancelled): aborts its signal with `reason()`, now if the function read
   * the signal, or when it does. The reason is made only then: a
   * `DOMException` costs microseconds, and most functions never look.
   */
  letGo(reason: () => unknown): void {
    if (this.#letGo !== undefined) return;
    this.#letGo = reason;
    if (this.#controller !== undefined && !this.#controller.signal.aborted) this.#controller.abort(reason());
  }

  /**
   * Unlinks the caller's signal; `keepCaller` leaves the
   * caller's signal linked, for a streamed body the caller reads later.
   */
  done(keepCaller = false): void {
    if (!keepCaller) this.#unlink?.();
  }
}
