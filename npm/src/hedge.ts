/**
 * The hedged loop: `retry(fn, { hedging })` and `createFetch({ hedging })`.
 *
 * A hedged call is one logical call sent as up to `1 + maxHedges` copies
 * that run at once, the first answer winning. The core decides everything
 * (when the next copy is due, whether the budget and the breaker let it
 * go, which answer wins, which copies to cancel, when to give up); this
 * loop starts each copy when told, reports how each ended, sleeps until
 * the next copy's time or the next answer, and aborts the losers' signals.
 * A cancelled copy's result is never reported: the core counts it as
 * superseded, not as a failure.
 *
 * Whatever ends the call (a winner, a give-up, the caller's abort, an
 * error thrown by a validator), every copy still running is aborted and
 * the core's call is closed before the promise settles.
 */
import { Abi } from './abi.generated.js';
import { AttemptContext } from './attempt.js';
import { RetryError } from './errors.js';
import { optionalWellFormed, wellFormed } from './guard.js';
import type { HedgedSpec, HedgeOptions } from './hedging.js';
import { hookFailed } from './hooks.js';
import { givenUp, type GiveUpInfo, isResponse, isThenable, type Steps } from './loop.js';
import { NumberArea } from './plan.js';
import { checked, encodeOutcome, encoded, type Policy } from './policy.js';
import type { GiveUp, HedgingConfig, Outcome } from './types.js';
import { bounded } from './watch.js';
import type { CorePolicy } from './wasm/stoic_wasm.js';

/** One copy on its way. */
interface Copy<V> {
  readonly number: number;
  readonly steps: Steps<V>;
  /** Its number, limits and signal (linked to the caller's, made only if the function reads it). */
  readonly context: AttemptContext;
  /** The core named it to cancel: its result, whenever it comes, is dropped. */
  cancelled: boolean;
}

/** A copy's function settled. */
interface Arrival<V> {
  readonly copy: Copy<V>;
  readonly value: V | undefined;
  readonly threw: boolean;
  readonly thrown: unknown;
}

/** Why a losing copy's signal is aborted. */
function superseded(winner: number): DOMException {
  return new DOMException(`superseded: copy ${winner} of this hedged call answered first`, 'AbortError');
}

/** Why a caller's sleep between copies is stopped early: an answer came. */
const WAIT_OVER = new Error('stoic: an answer came before the next copy was due');

/** Why the copies still running when the call ended without them (a give-up, an error) are aborted. */
const ENDED = (): DOMException => new DOMException('the hedged call ended without this copy', 'AbortError');

/**
 * Starts a hedged call on `policy` and returns its handle; throws the
 * core's `ConfigError` when the call is not safe to repeat
 * (`not_idempotent`) or the settings are wrong.
 */
export function startHedged(policy: Policy, t: number, spec: HedgedSpec, hedging: HedgingConfig): number {
  const core = policy.core;
  policy.opened();
  try {
    const text = policy.text.write(wellFormed(spec.operation, 'operation'), wellFormed(spec.scope, 'scope'), optionalWellFormed(spec.key, 'idempotencyKey'));
    return core.startHedged(t, text.a, text.b, spec.idempotent, text.c, spec.method, hedging);
  } catch (error) {
    policy.closed(); // nothing was started
    throw error;
  }
}

/** Runs hedged call `handle` (from `startHedged`) to its end; `stepsFor` makes each copy's steps. */
export function runHedged<V>(
  policy: Policy,
  handle: number,
  key: string | null,
  stepsFor: () => Steps<V>,
  options: HedgeOptions,
  now: () => number,
): Promise<V> {
  return new HedgedLoop(policy, handle, key, stepsFor, options, now).run();
}

class HedgedLoop<V> {
  readonly #core: CorePolicy;
  /** The last step's figures (`CorePolicy.hedgeArea`), read without a call. */
  readonly #area: NumberArea;
  /** Copies sent whose result has not been taken, by number. */
  readonly #running = new Map<number, Copy<V>>();
  /** Results not yet reported, oldest first. */
  readonly #arrived: Arrival<V>[] = [];
  /** Ends the current wait (an arrival, the caller's abort). */
  #wake: (() => void) | undefined;
  /** The last failure, for the give-up. */
  #error: unknown;
  #response: Response | undefined;
  #failedValue: V | undefined;
  #sent = 0;
  #winner: Copy<V> | undefined;

  constructor(
    private readonly policy: Policy,
    private readonly handle: number,
    private readonly key: string | null,
    private readonly stepsFor: () => Steps<V>,
    private readonly options: HedgeOptions,
    private readonly now: () => number,
  ) {
    const core = policy.core;
    this.#core = core;
    this.#area = new NumberArea(() => core.hedgeArea(), Abi.HEDGE_SLOTS);
  }

  async run(): Promise<V> {
    const { options } = this;
    const signal = options.signal;
    const onAbort = (): void => this.#wakeUp();
    signal?.addEventListener('abort', onAbort);
    try {
      let step = this.#poll();
      for (;;) {
        if (step === Abi.HEDGE_SEND) {
          const area = this.#area.view();
          this.#launch(area[Abi.HEDGE_COPY] as number, area[Abi.HEDGE_TIMEOUT_MS] as number);
          step = this.#poll();
        } else if (step === Abi.HEDGE_DONE) {
          const area = this.#area.view();
          const winner = area[Abi.HEDGE_COPY] as number;
          this.#cancel(area[Abi.HEDGE_CANCEL] as number, () => superseded(winner));
          return this.#value as V;
        } else if (step === Abi.HEDGE_GIVE_UP) {
          this.#cancel(this.#area.view()[Abi.HEDGE_CANCEL] as number, ENDED);
          return await this.#giveUp();
        } else {
          // Wait: for the next copy's time, an answer, or the caller's abort.
          const until = this.#area.view()[Abi.HEDGE_UNTIL_MS] as number;
          this.policy.flush();
          const arrival = await this.#next(until);
          if (signal?.aborted) {
            checked(this.#core.hedgeCancel(this.handle, this.now()));
            this.#cancel(this.#area.view()[Abi.HEDGE_CANCEL] as number, () => signal.reason);
            throw signal.reason;
          }
          step = arrival === undefined ? this.#poll() : await this.#report(arrival);
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // Never a copy left running after the call: whatever ended it, every
      // copy but a winner whose body streams to the caller is let go.
      const reason = signal?.aborted ? () => signal.reason : ENDED;
      for (const copy of this.#running.values()) this.#drop(copy, reason);
      for (const { value } of this.#arrived.splice(0)) release(value);
      const winner = this.#winner;
      if (winner !== undefined && !winner.steps.streams) winner.context.done();
      this.#core.hedgeClose(this.handle);
      this.policy.flush();
      this.policy.closed();
    }
  }

  /** The winner's value. */
  #value: V | undefined;

  #poll(): number {
    return checked(this.#core.hedgePoll(this.handle, this.now()));
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Sends copy `number`: its own signal (aborted when it loses), its own timeout. */
  #launch(number: number, timeoutMs: number): void {
    const copy: Copy<V> = {
      number,
      steps: this.stepsFor(),
      context: new AttemptContext(number, timeoutMs, this.key, this.options.signal),
      cancelled: false,
    };
    this.#running.set(number, copy);
    this.#sent = number;
    if (number > 1) this.#tellHedge(number, timeoutMs);
    let ran: V | PromiseLike<V>;
    try {
      ran = copy.steps.attempt(copy.context);
    } catch (thrown) {
      this.#arrive({ copy, value: undefined, threw: true, thrown });
      return;
    }
    if (!isThenable(ran)) {
      this.#arrive({ copy, value: ran, threw: false, thrown: undefined });
      return;
    }
    // Bounded by the copy's timeout: a function that ignores its signal
    // still ends for the loop when its time is up.
    bounded(ran, timeoutMs, undefined, () => copy.context.expire()).then(
      (value) => this.#arrive({ copy, value, threw: false, thrown: undefined }),
      (thrown: unknown) => this.#arrive({ copy, value: undefined, threw: true, thrown }),
    );
  }

  /** `onHedge`, told synchronously; its failure is reported once and dropped. */
  #tellHedge(copy: number, timeoutMs: number): void {
    const hook = this.options.onHedge;
    if (hook === undefined) return;
    try {
      const returned: unknown = hook({ copy, inFlight: this.#running.size, timeoutMs: timeoutMs < 0 ? null : timeoutMs });
      if (isThenable(returned)) Promise.resolve(returned).catch((error: unknown) => hookFailed('onHedge', hook, error));
    } catch (error) {
      hookFailed('onHedge', hook, error);
    }
  }

  #arrive(arrival: Arrival<V>): void {
    if (arrival.copy.cancelled || !this.#running.has(arrival.copy.number)) {
      // A loser that answered anyway: its answer is not needed.
      release(arrival.value);
      return;
    }
    this.#arrived.push(arrival);
    this.#wakeUp();
  }

  /**
   * The next result, or undefined when `until` (the policy's clock; -1:
   * none) passed or the caller aborted.
   */
  async #next(until: number): Promise<Arrival<V> | undefined> {
    for (;;) {
      const arrival = this.#arrived.shift();
      if (arrival !== undefined || this.options.signal?.aborted) return arrival;
      const ms = until < 0 ? -1 : until - this.now();
      if (until >= 0 && ms <= 0) return undefined;
      // The default sleep is a bare timer, cleared when an answer comes
      // first: an AbortController per wait, aborted without a reason, made
      // a DOMException each time (about 13 us, most of what hedging cost a
      // call whose first copy answered in time). A sleep the caller gave is
      // told through a signal, aborted with a reason made once.
      const sleep = this.options.sleep;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stop = ms >= 0 && sleep !== undefined ? new AbortController() : undefined;
      const woken = new Promise<boolean>((resolve) => {
        this.#wake = () => resolve(true);
        if (ms < 0) return;
        if (stop === undefined || sleep === undefined) {
          timer = setTimeout(() => resolve(false), ms);
        } else {
          sleep(ms, stop.signal).then(
            () => resolve(false),
            () => undefined,
          );
        }
      });
      const byArrival = await woken;
      this.#wake = undefined;
      clearTimeout(timer);
      stop?.abort(WAIT_OVER);
      if (!byArrival) return undefined;
    }
  }

  /** Reports how a copy ended; returns the core's next step. */
  async #report(arrival: Arrival<V>): Promise<number> {
    const { copy, value } = arrival;
    const { steps, context } = copy;
    this.#running.delete(copy.number);
    let outcome: Outcome | undefined;
    if (arrival.threw) {
      outcome = steps.failure(arrival.thrown, context.timedOut);
    } else {
      const judged = steps.judge(value as V);
      outcome = isThenable(judged) ? await bounded(judged, -1, this.options.signal, () => undefined) : judged;
    }
    // The core says which answer wins (a 200 is a status outcome too).
    const step = reportCopy(this.policy, this.handle, copy.number, outcome, this.now());
    const won = step === Abi.HEDGE_DONE && (this.#area.view()[Abi.HEDGE_COPY] as number) === copy.number;
    context.done(won && steps.streams);
    if (won) {
      this.#winner = copy;
      this.#value = value;
    } else {
      const response = arrival.threw ? steps.cutResponse?.() : isResponse(value) ? value : undefined;
      this.#failed(arrival.threw ? arrival.thrown : undefined, response, value);
    }
    return step;
  }

  /** Keeps the latest failure for the give-up, letting go of the one before. */
  #failed(error: unknown, response: Response | undefined, value: V | undefined): void {
    if (this.#response !== undefined && this.#response !== response) release(this.#response);
    this.#error = error;
    this.#response = response;
    this.#failedValue = value;
  }

  /** Aborts the copies in `bits` (bit n - 1: copy n) with `reason()`. */
  #cancel(bits: number, reason: () => unknown): void {
    for (const copy of [...this.#running.values()]) {
      if ((bits & (1 << (copy.number - 1))) !== 0) this.#drop(copy, reason);
    }
  }

  /** Lets a copy go: its signal aborts, its result is dropped when it comes. */
  #drop(copy: Copy<V>, reason: () => unknown): void {
    copy.cancelled = true;
    this.#running.delete(copy.number);
    copy.context.letGo(reason);
    copy.context.done();
  }

  /** The call gave up: `onGiveUp`, then a `RetryError` (or the failed response, when asked). */
  async #giveUp(): Promise<V> {
    const decision = this.#core.hedgeGiveUp(this.handle) as GiveUp;
    const { options } = this;
    const error = this.#error;
    const response = this.#response;
    const hook = options.onGiveUp;
    if (hook !== undefined) {
      const info: GiveUpInfo = { decision, attempt: this.#sent, error, response };
      try {
        const returned = hook(info);
        if (isThenable(returned)) await bounded(returned, -1, options.signal, () => undefined);
      } catch (thrown) {
        if (options.signal?.aborted) throw options.signal.reason;
        hookFailed('onGiveUp', hook, thrown);
      }
    }
    if (options.returnFailedResponses === true && response !== undefined && error === undefined) {
      givenUp.set(response, decision).set(response.headers, decision);
      return this.#failedValue as V;
    }
    throw new RetryError(decision, error, response);
  }
}

/** Frees a response nobody will read (its connection goes back to the pool). */
function release(value: unknown): void {
  if (isResponse(value) && value.body !== null && !value.bodyUsed) value.body.cancel().catch(() => undefined);
}

/**
 * Reports copy `copy`'s outcome (undefined: a success), checked and
 * encoded as a plain call's is (`encodeOutcome`); returns the core's step.
 */
function reportCopy(policy: Policy, handle: number, copy: number, outcome: Outcome | undefined, now: number): number {
  const kind = outcome === undefined ? Abi.COPY_SUCCESS : encodeOutcome(policy, outcome);
  const core = policy.core;
  if (kind === Abi.COPY_SUCCESS) return checked(core.hedgeOutcome(handle, copy, now, kind, 0, -1, -1, -1));
  return checked(core.hedgeOutcome(handle, copy, now, kind, encoded.code, encoded.wall, encoded.a, encoded.b));
}
