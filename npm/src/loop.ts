/**
 * The retry loop, once: `retry()` and `createFetch()` both run `runCall`.
 *
 * A caller starts the engine call and hands the loop its `Steps`: how to
 * run one attempt, how to read an error it threw, and how to judge a value
 * it returned. The loop does the rest, the same way for both: it asks for
 * each attempt, bounds it (`AttemptContext`: the attempt's timeout and the
 * caller's signal, which end the wait for it even when the function ignores
 * them), reports how it ended, sleeps the engine's delay, and ends the call,
 * whatever happens. Hooks (`onRetry`, `onGiveUp`) never change the result:
 * one that throws is reported once and the call goes on; one that never
 * settles still yields to the caller's abort. A rule about attempts
 * therefore lives here, not twice.
 */
import { type Attempt, AttemptContext } from './attempt.js';
import { monotonicNow, sleep as defaultSleep, timeOrigin } from './clock.js';
import { RetryError } from './errors.js';
import { hookFailed } from './hooks.js';
import { Abi } from './abi.generated.js';
import { checked, type Policy, report } from './policy.js';
import { noWait, switches } from './testing.js';
import type { GiveUp, Outcome, Retry } from './types.js';
import { Bound, bounded, enter, leave } from './watch.js';

/** How one kind of call runs and reads its attempts. */
export interface Steps<V> {
  /** Runs one attempt; called unbound (`this` is undefined). */
  readonly attempt: (context: Attempt) => V | PromiseLike<V>;
  /** The outcome of an error the attempt threw (`timedOut`: the attempt's own timeout fired). */
  failure(thrown: unknown, timedOut: boolean): Outcome;
  /** The outcome of a value the attempt returned; `undefined` is a success. */
  judge(value: V): Outcome | undefined | PromiseLike<Outcome | undefined>;
  /** Keeps the caller's signal linked after a successful attempt (a body streamed later). */
  readonly streams: boolean;
  /** The response of a failed attempt whose headers arrived before its body was cut, if any. */
  cutResponse?(): Response | undefined;
  /**
   * A returned value's outcome when it can be had at once and without side
   * effects (no validator): undefined for a success, else the outcome to
   * report; null when only `judge` can tell. Absent: every value is judged.
   */
  judgeNow?(value: V): Outcome | undefined | null;
}

/** The first attempt, already run by `runCall`'s fast path, and how it ended. */
interface FirstAttempt<V> {
  readonly context: AttemptContext;
  readonly value: V | undefined;
  readonly threw: boolean;
  readonly thrown: unknown;
  /** The decision kind when the fast path already reported the value's outcome. */
  readonly kind?: number;
  /** Whether reporting it ended the call in the core (a success that closed it). */
  readonly closed?: boolean;
}

/** What the loop is told before each wait. */
export interface RetryInfo {
  decision: Retry;
  /** The attempts made so far (the one that just ended included). */
  attempt: number;
  /** The error the attempt threw, if it threw. */
  error: unknown;
  /** The response the attempt returned, if it returned one (a retried status). */
  response: Response | undefined;
}

/** What the loop is told when the engine stops a call that did not succeed. */
export interface GiveUpInfo {
  decision: GiveUp;
  /** The attempts made. */
  attempt: number;
  /** The error the last attempt threw, if it threw. */
  error: unknown;
  /** The response the last attempt returned, if it returned one. */
  response: Response | undefined;
}

/** The caller's side of a call: its signal, how to wait, its hooks. */
export interface LoopOptions {
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onRetry?: (info: RetryInfo) => void | PromiseLike<void>;
  onGiveUp?: (info: GiveUpInfo) => void | PromiseLike<void>;
  /** When the engine stops on a response that failed, resolve with it instead of rejecting. */
  returnFailedResponses?: boolean;
}

/**
 * Whether a value is a fetch `Response`: the runtime's own by `instanceof`
 * (its getters are brand-checked, so reading them to duck-type costs more
 * than the check), any other (a polyfill's, another realm's) by its shape.
 * Not an object: no test at all (a plain value is the common success). The
 * global is read here, not at import: Node loads its fetch on first use.
 */
export function isResponse(value: unknown): value is Response {
  if (typeof value !== 'object' || value === null) return false;
  if (typeof Response === 'function' && value instanceof Response) return true;
  return typeof (value as Response).status === 'number' && typeof (value as Response).headers?.get === 'function';
}

/**
 * Responses stoic gave up on and returned (`returnFailedResponses`), and
 * their headers (an SDK's error keeps them), with the decision: a layer
 * above (an agent `Run`) reads them as already retried, so exactly one
 * layer retries.
 */
export const givenUp = new WeakMap<object, GiveUp>();

export function isThenable<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return typeof (value as PromiseLike<V> | null)?.then === 'function';
}

/**
 * Calls hook `name` (if given) with `info`: its failure is reported once and
 * dropped, a promise it returns is awaited (only then: no extra turn for a
 * hook that returns nothing) until it settles or the caller aborts, which
 * rejects with the abort's reason.
 */
async function callHook<I>(
  name: string,
  hook: ((info: I) => void | PromiseLike<void>) | undefined,
  info: I,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (hook === undefined) return;
  try {
    const returned = hook(info);
    if (isThenable(returned)) await bounded(returned, -1, signal, () => undefined);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    hookFailed(name, hook, error);
  }
}

/** The error a call that gave up rejects with, after telling `onGiveUp`. */
async function giveUp(
  decision: GiveUp,
  attempt: number,
  error: unknown,
  response: Response | undefined,
  options: LoopOptions,
): Promise<RetryError> {
  await callHook('onGiveUp', options.onGiveUp, { decision, attempt, error, response }, options.signal);
  return new RetryError(decision, error, response);
}

/**
 * Runs the attempts of call `handle` (already started on `policy`, which
 * counted it as opened) until the engine says it is over.
 *
 * `admitted` says the first attempt was admitted with the start (`begin`);
 * otherwise the loop asks at `t`. The engine keeps each call's answers by
 * handle; only the plan area (attempt, timeout, delay) is the policy's, so
 * it is read in the same synchronous run as the admission or report that
 * wrote it, before any await or callback: for the first attempt, that run
 * began in the caller, which calls this function right after `begin`.
 */
export function runCall<V>(
  policy: Policy,
  handle: number,
  admitted: boolean,
  t: number,
  key: string | null,
  steps: Steps<V>,
  options: LoopOptions,
  now: () => number,
): Promise<V> {
  if (!admitted || options.signal !== undefined || steps.judgeNow === undefined) return loop(policy, handle, admitted, t, key, steps, options, now, undefined);
  const area = policy.plan.view();
  const attempt = area[Abi.PLAN_ATTEMPT] as number;
  if (attempt === Abi.NOT_ADMITTED) return loop(policy, handle, admitted, t, key, steps, options, now, undefined);
  const limit = area[Abi.PLAN_TIMEOUT_MS] as number;
  const context = new AttemptContext(attempt, limit, key, undefined);
  let ran: V | PromiseLike<V>;
  try {
    ran = steps.attempt(context);
  } catch (thrown) {
    return loop(policy, handle, admitted, t, key, steps, options, now, { context, value: undefined, threw: true, thrown });
  }
  if (!isThenable(ran)) return loop(policy, handle, admitted, t, key, steps, options, now, { context, value: ran, threw: false, thrown: undefined });
  return firstAttempt(policy, handle, t, key, steps, options, now, context, ran, limit);
}

/**
 * The fast path of a call's first attempt, when it returned a promise and
 * the caller gave no signal: the call's promise settles from the attempt's
 * own (one turn, where awaiting a bounded wait inside the loop takes two and
 * about 0.3 us more). A plain success ends the call here; anything else
 * (a failure, the attempt's timeout, a value to judge) goes on in `loop`,
 * exactly as if the loop had awaited the attempt.
 */
function firstAttempt<V>(
  policy: Policy,
  handle: number,
  t: number,
  key: string | null,
  steps: Steps<V>,
  options: LoopOptions,
  now: () => number,
  context: AttemptContext,
  ran: PromiseLike<V>,
  limit: number,
): Promise<V> {
  // The attempt's timeout, on the shared timer (watch.ts), from the loop's
  // own clock reading when that is the default clock.
  const at = limit < 0 ? -1 : (now === monotonicNow && timeOrigin > 0 ? t - timeOrigin : performance.now()) + limit;
  const wait = new FirstWait(at, policy, handle, t, key, steps, options, now, context);
  if (limit >= 0) enter(wait);
  ran.then(
    (value) => wait.fulfilled(value),
    (thrown: unknown) => wait.rejected(thrown),
  );
  return wait.promise;
}

/** The promise executor's resolving functions, taken without a closure per call. */
let resolveNext: (value: never) => void = () => undefined;
let rejectNext: (reason: unknown) => void = () => undefined;
function capture(resolve: (value: never) => void, reject: (reason: unknown) => void): void {
  resolveNext = resolve;
  rejectNext = reject;
}

/** The first attempt's wait (`firstAttempt`): one object, its own bound, no closures but the two `then` takes. */
class FirstWait<V> extends Bound {
  readonly promise: Promise<V>;
  readonly #resolve: (value: V) => void;
  readonly #reject: (reason: unknown) => void;
  #waiting = true;

  constructor(
    at: number,
    private readonly policy: Policy,
    private readonly handle: number,
    private readonly t: number,
    private readonly key: string | null,
    private readonly steps: Steps<V>,
    private readonly options: LoopOptions,
    private readonly now: () => number,
    private readonly context: AttemptContext,
  ) {
    super(at);
    this.promise = new Promise<V>(capture);
    this.#resolve = resolveNext as (value: V) => void;
    this.#reject = rejectNext;
  }

  /** The attempt's timeout passed first: a result that comes later is dropped, as in the loop. */
  override expire(): void {
    this.#waiting = false;
    this.#handOver({ context: this.context, value: undefined, threw: true, thrown: this.context.expire() });
  }

  fulfilled(value: V): void {
    if (!this.#waiting) return;
    this.#waiting = false;
    leave(this);
    const { policy, handle, context, steps } = this;
    let outcome: Outcome | undefined | null;
    try {
      // A value only `judge` can tell about (or a judgement that throws) is the loop's.
      outcome = steps.judgeNow?.(value);
      if (outcome === null) throw undefined;
    } catch {
      this.#handOver({ context, value, threw: false, thrown: undefined });
      return;
    }
    // From here on as the loop's: an error ends the call and rejects with it.
    let kind: number;
    let closed = false;
    try {
      context.done(steps.streams);
      if (outcome === undefined) {
        // Reports the success and closes the call if that ended it.
        kind = checked(policy.core.succeed(handle, this.now()));
        closed = kind === Abi.DONE;
      } else {
        kind = report(policy, handle, outcome, this.now());
      }
    } catch (error) {
      settleEnd(policy, handle, true, this.#reject);
      this.#reject(error);
      return;
    }
    if (kind === Abi.DONE) {
      if (settleEnd(policy, handle, !closed, this.#reject)) this.#resolve(value);
      return;
    }
    // A retry or a give-up (a response's status): the loop goes on from the decision.
    this.#handOver({ context, value, threw: false, thrown: undefined, kind, closed });
  }

  rejected(thrown: unknown): void {
    if (!this.#waiting) return;
    this.#waiting = false;
    leave(this);
    this.#handOver({ context: this.context, value: undefined, threw: true, thrown });
  }

  #handOver(first: FirstAttempt<V>): void {
    loop(this.policy, this.handle, true, this.t, this.key, this.steps, this.options, this.now, first).then(this.#resolve, this.#reject);
  }
}

/**
 * A call's end outside the loop, the same as the loop's `finally`; an error
 * there rejects the call, as it would from the loop. Returns whether it ended cleanly.
 */
function settleEnd(policy: Policy, handle: number, open: boolean, reject: (error: unknown) => void): boolean {
  try {
    if (open) policy.core.close(handle);
    policy.flush();
    return true;
  } catch (error) {
    reject(error);
    return false;
  } finally {
    policy.closed();
  }
}

async function loop<V>(
  policy: Policy,
  handle: number,
  admitted: boolean,
  t: number,
  key: string | null,
  steps: Steps<V>,
  options: LoopOptions,
  now: () => number,
  first: FirstAttempt<V> | undefined,
): Promise<V> {
  const core = policy.core;
  const plan = policy.plan;
  const signal = options.signal;
  const wantsDecision = options.onRetry !== undefined;
  const run = steps.attempt;
  let ask = !admitted;
  let attempt = 0;
  /** The attempts made so far. */
  let made = 0;
  let open = true;
  let error: unknown;
  let response: Response | undefined;
  try {
    for (;;) {
      // The first attempt, when runCall's fast path ran it, is resumed here.
      const resumed = first;
      first = undefined;
      let context: AttemptContext;
      if (resumed !== undefined) {
        context = resumed.context;
        attempt = context.attempt;
      } else {
        if (ask) checked(core.beforeAttempt(handle, t));
        const area = plan.view();
        attempt = area[Abi.PLAN_ATTEMPT] as number;
        if (attempt === Abi.NOT_ADMITTED) throw await giveUp(core.admission(handle) as GiveUp, made, error, response, options);
        context = new AttemptContext(attempt, area[Abi.PLAN_TIMEOUT_MS] as number, key, signal);
      }
      made = attempt;
      let value: V | undefined;
      let failure: Outcome | undefined;
      let threw = false;
      let thrown: unknown;
      if (resumed !== undefined) {
        // Taken as it is: the fast path caught it, and throwing it again to
        // reach a catch costs more than the await that delivered it before.
        threw = resumed.threw;
        thrown = resumed.thrown;
        value = resumed.value;
      } else {
        try {
          const ran = run(context);
          // A promise is awaited only to its bound: the attempt's timeout or
          // the caller's abort ends the wait whatever the function does, and a
          // result that comes later is dropped.
          const limit = context.timeoutMs ?? -1;
          value = await (isThenable(ran) ? bounded(ran, limit, signal, () => context.expire()) : ran);
        } catch (caught) {
          threw = true;
          thrown = caught;
        }
      }
      try {
        if (threw) {
          if (signal?.aborted) {
            core.cancel(handle, now());
            throw signal.reason;
          }
          error = thrown;
          response = steps.cutResponse?.();
          failure = steps.failure(thrown, context.timedOut);
        }
      } finally {
        context.done(steps.streams && failure === undefined);
      }
      let kind: number;
      if (failure !== undefined) {
        kind = report(policy, handle, failure, now());
      } else if (resumed?.kind !== undefined) {
        // The fast path reported the value's outcome already.
        error = undefined;
        response = isResponse(value) ? value : undefined;
        kind = resumed.kind;
        if (resumed.closed === true) open = false;
      } else {
        // Outside the attempt's catch: a validator that throws ends the call
        // (the finally below releases it) and reaches the caller as itself.
        error = undefined;
        response = isResponse(value) ? value : undefined;
        const judged = steps.judge(value as V);
        let outcome: Outcome | undefined;
        try {
          outcome = isThenable(judged) ? await bounded(judged, -1, signal, () => undefined) : judged;
        } catch (thrown) {
          if (signal?.aborted) core.cancel(handle, now());
          throw thrown;
        }
        if (outcome === undefined) {
          // Reports the success and closes the call if that ended it.
          kind = checked(core.succeed(handle, now()));
          open = kind !== Abi.DONE;
        } else {
          kind = report(policy, handle, outcome, now());
        }
      }
      if (kind === Abi.DONE) return value as V;
      const decision = kind === Abi.GIVE_UP || wantsDecision ? (core.decision(handle) as Retry | GiveUp) : undefined;
      if (kind === Abi.GIVE_UP) {
        const stop = await giveUp(decision as GiveUp, attempt, error, response, options);
        // The last attempt's own response, read inside it: the caller's
        // client judges its status (axios, ky with throwHttpErrors).
        // Not a response whose body was cut (the attempt threw): it has no body to read.
        if (options.returnFailedResponses === true && response !== undefined && error === undefined) {
          givenUp.set(response, decision as GiveUp).set(response.headers, decision as GiveUp);
          return value as V;
        }
        throw stop;
      }
      const delay = plan.delayMs;
      if (options.onRetry !== undefined) {
        try {
          await callHook('onRetry', options.onRetry, { decision: decision as Retry, attempt, error, response }, signal);
        } catch (reason) {
          core.cancel(handle, now());
          throw reason;
        }
      }
      if (response?.body && !response.bodyUsed) await response.body.cancel().catch(() => undefined);
      policy.flush();
      try {
        await (options.sleep ?? (switches.testing ? noWait : defaultSleep))(delay, signal);
      } catch (reason) {
        if (signal?.aborted) core.cancel(handle, now());
        throw reason;
      }
      t = now();
      ask = true;
    }
  } finally {
    if (open) core.close(handle);
    policy.flush();
    policy.closed();
  }
}
