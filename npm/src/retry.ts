/**
 * `retry(fn, options)`: calls `fn` until it succeeds or the engine gives up.
 * The runtime only sleeps, calls and translates: whether to retry, how long
 * to wait, the deadline, the breaker and the budget are the core's. The
 * loop is `runCall` (loop.ts), the one `createFetch()` runs too.
 */
import { type Attempt, AttemptContext } from './attempt.js';
import { outcomeOfError } from './classify.js';
import {
  callable,
  checkedOptions,
  flag,
  invalidValue,
  type OptionSpec,
  optionalSignal,
  optionSpec,
  shown,
  text,
} from './guard.js';
import { type GiveUpInfo, isResponse, isThenable, type RetryInfo, runCall, type Steps } from './loop.js';
import { type CallOverrides, Policy, policyOption, startNamed } from './policy.js';
import { hedgedRunner } from './hedging.js';
import { switches } from './testing.js';
import type { BackoffSpec, HedgeInfo, HedgingConfig, Outcome, OutcomeClass, Rejection } from './types.js';
import type { CoreRunQuota } from './wasm/stoic_wasm.js';

export interface RetryOptions<T> {
  /** Shared state and config (default: one shared policy with the core's defaults). */
  policy?: Policy;
  /** This call's attempts, in place of the policy's (its breaker and budget stay shared). */
  maxAttempts?: number;
  /** This call's backoff, in place of the policy's. */
  backoff?: BackoffSpec;
  /** A name for records and logs. */
  operation?: string;
  /** The service: calls in one scope share a breaker, a budget and metrics. */
  scope?: string;
  /** Whether repeating `fn` is harmless (default true: you asked for retries). */
  idempotent?: boolean;
  /** A key every attempt carries (`attempt.idempotencyKey`). */
  idempotencyKey?: string;
  /** Aborting stops the retries: the call is cancelled and `retry` rejects with the reason. */
  signal?: AbortSignal;
  /** Monotonic ms (default: the policy's clock). */
  now?: () => number;
  /** How to wait (default: `setTimeout`); tests inject their own. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Maps a thrown error to an outcome: `{ class: 'transient' }` (or
   * `'deterministic'`, `'ambiguous'`) for an error of your own, or any
   * `Outcome` (`{ kind: 'status', status: 503 }`, `{ kind: 'network',
   * network: 'connect_refused' }`); `undefined` uses the default mapping.
   */
  classify?: (error: unknown) => Outcome | { class: OutcomeClass; detail?: string } | OutcomeClass | undefined;
  /** Inspects a returned value; a `Rejection` makes it a failure of that class. */
  validate?: (value: T) => Rejection | undefined | void | PromiseLike<Rejection | undefined | void>;
  /** Called before each wait with the decision. */
  onRetry?: (info: RetryInfo) => void | PromiseLike<void>;
  /** Called when the engine stops a call that did not succeed, before it rejects. */
  onGiveUp?: (info: GiveUpInfo) => void | PromiseLike<void>;
  /**
   * Sends copies of a slow call, the first answer winning (`stoic/full`):
   * `fn` gets each copy's number as `attempt.attempt` and a signal that
   * aborts when another copy wins. Only a call safe to repeat is hedged:
   * `idempotent: false` without an `idempotencyKey` is refused. `null` or
   * `false`: not hedged. A policy reads the same settings object once:
   * pass a new object to change them.
   */
  hedging?: HedgingConfig | false | null;
  /** Called when a hedge (a copy after the first) goes out. */
  onHedge?: (info: HedgeInfo) => void;
}

export type { GiveUpInfo, RetryInfo } from './loop.js';

let shared: Policy | undefined;
let sharedEpoch = 0;

/** The policy `retry()` and `createFetch()` use when given none (a fresh one after each `setTesting`). */
export function defaultPolicy(): Policy {
  if (shared === undefined || sharedEpoch !== switches.epoch) {
    shared = new Policy();
    sharedEpoch = switches.epoch;
  }
  return shared;
}

/**
 * Each option's check (the values the engine checks, such as maxAttempts,
 * pass through as null): an option not named here is refused as unknown.
 */
const RETRY_OPTIONS: OptionSpec = optionSpec({
  policy: policyOption,
  maxAttempts: null,
  backoff: null,
  operation: text,
  scope: text,
  idempotent: flag,
  idempotencyKey: text,
  signal: optionalSignal,
  now: callable,
  sleep: callable,
  classify: callable,
  validate: callable,
  onRetry: callable,
  onGiveUp: callable,
  hedging: null,
  onHedge: callable,
});

export function retry<T>(
  fn: (attempt: Attempt) => T | PromiseLike<T>,
  options: RetryOptions<Awaited<T>> = {},
): Promise<Awaited<T>> {
  return retryIn(undefined, fn, options);
}

/**
 * `retry()`, as one call of an agent run whose retry quota it spends
 * (`quota`; undefined: no run). `Run.call` uses it.
 * @internal
 */
export function retryIn<T>(
  quota: CoreRunQuota | undefined,
  fn: (attempt: Attempt) => T | PromiseLike<T>,
  options: RetryOptions<Awaited<T>> = {},
): Promise<Awaited<T>> {
  // Not an `async` function: the loop's frame is the only one between the
  // caller and `fn`, which keeps the stack an error captures short (creating
  // one is most of what a failed attempt costs). Set-up errors still reject.
  if (!switches.active) return once(fn, options);
  let policy: Policy;
  let now: () => number;
  let t: number;
  let handle: number;
  let named: boolean;
  try {
    checkArguments(fn, options);
    policy = options.policy ?? defaultPolicy();
    now = options.now ?? policy.now;
    options.signal?.throwIfAborted();
    if (options.hedging != null && options.hedging !== false) return hedged(quota, fn, options, policy, now);
    // One clock reading serves the start and the first admission.
    t = now();
    const overrides = callOverrides(options);
    named = startsNamed(options, overrides);
    handle = start(policy, t, named, overrides, options);
    if (quota !== undefined) policy.core.joinRun(handle, quota);
  } catch (error) {
    return Promise.reject(error);
  }
  const steps = new FunctionSteps(fn as (attempt: Attempt) => Awaited<T> | PromiseLike<Awaited<T>>, options);
  // Called in the same synchronous run as `start`: the first admission's
  // number and timeout are still in the plan area.
  return runCall(policy, handle, !named, t, options.idempotencyKey ?? null, steps, options, now);
}

/** `retry()` with `hedging`: copies of `fn` run by the hedged loop (hedge.ts). */
function hedged<T>(
  quota: CoreRunQuota | undefined,
  fn: (attempt: Attempt) => T | PromiseLike<T>,
  options: RetryOptions<Awaited<T>>,
  policy: Policy,
  now: () => number,
): Promise<Awaited<T>> {
  // An agent run counts retries one at a time; a hedged call's copies are not retries of one another.
  if (quota !== undefined) throw invalidValue('a Run call is not hedged: pass hedging to retry() outside the run', 'hedging');
  const runner = hedgedRunner();
  const spec = { operation: options.operation ?? '', scope: options.scope ?? '', idempotent: options.idempotent ?? true, key: options.idempotencyKey };
  const handle = runner.start(policy, now(), spec, options.hedging as HedgingConfig);
  const steps = new FunctionSteps(fn as (attempt: Attempt) => Awaited<T> | PromiseLike<Awaited<T>>, options);
  return runner.run(policy, handle, options.idempotencyKey ?? null, () => steps, options, now);
}

/** `retry()`'s arguments, checked the same whether retrying is on or off. */
function checkArguments(fn: unknown, options: object): void {
  callable(fn, 'fn');
  checkedOptions(options, RETRY_OPTIONS, 'retry(fn, options)', '; other engine settings, such as timeouts, go in a Policy');
}

/** Retrying off (`setActive(false)`): one attempt, outside the engine. */
async function once<T>(fn: (attempt: Attempt) => T | PromiseLike<T>, options: RetryOptions<Awaited<T>>): Promise<Awaited<T>> {
  checkArguments(fn, options);
  options.signal?.throwIfAborted();
  const context = new AttemptContext(1, -1, options.idempotencyKey ?? null, options.signal);
  try {
    return await fn(context);
  } finally {
    context.done(false);
  }
}

/**
 * The call's own attempts and backoff, if it has any (testing mode's
 * attempts cap counts, like a call's own maxAttempts).
 */
function callOverrides<T>(options: RetryOptions<T>): CallOverrides | undefined {
  const maxAttempts = switches.attempts ?? options.maxAttempts;
  return maxAttempts === undefined && options.backoff === undefined ? undefined : { maxAttempts, backoff: options.backoff };
}

/** Whether the call needs the named start: an operation, scope or key, or its own overrides. */
function startsNamed<T>(options: RetryOptions<T>, overrides: CallOverrides | undefined): boolean {
  return (
    options.operation !== undefined ||
    options.scope !== undefined ||
    options.idempotencyKey !== undefined ||
    overrides !== undefined
  );
}

/**
 * Starts the call on `policy` and returns its handle. An unnamed call
 * starts and is admitted in one crossing (`begin`); the attempt's number
 * and timeout are then in the plan area, not asked for by more calls.
 */
function start<T>(
  policy: Policy,
  t: number,
  named: boolean,
  overrides: CallOverrides | undefined,
  options: RetryOptions<T>,
): number {
  const idempotent = options.idempotent ?? true;
  policy.opened();
  try {
    if (!named) return policy.core.begin(t, idempotent);
    return startNamed(policy, t, options.operation ?? '', options.scope ?? '', idempotent, options.idempotencyKey, overrides);
  } catch (error) {
    policy.closed(); // bad per-call settings: nothing was started
    throw error;
  }
}

/** The attempts of `retry()`: the caller's function, its `classify` and `validate`. */
class FunctionSteps<T> implements Steps<T> {
  readonly streams = false;
  readonly #fn: (context: Attempt) => T | PromiseLike<T>;
  readonly #options: RetryOptions<T>;

  constructor(fn: (attempt: Attempt) => T | PromiseLike<T>, options: RetryOptions<T>) {
    this.#fn = fn;
    this.#options = options;
  }

  get attempt(): (context: Attempt) => T | PromiseLike<T> {
    return this.#fn; // called unbound, as the caller's own function
  }

  failure(thrown: unknown, timedOut: boolean): Outcome {
    return custom(this.#options.classify?.(thrown), thrown) ?? errorOutcome(thrown, timedOut);
  }

  judgeNow(value: T): Outcome | undefined | null {
    return this.#options.validate === undefined ? statusOf(value) : null;
  }

  judge(value: T): Outcome | undefined | PromiseLike<Outcome | undefined> {
    const validate = this.#options.validate;
    if (validate === undefined) return statusOf(value);
    const verdict = validate(value);
    return isThenable(verdict) ? Promise.resolve(verdict).then((r) => verdictOf(r, value)) : verdictOf(verdict, value);
  }
}

/** A returned `Response` is judged by its status; any other value is a success. */
function statusOf(value: unknown): Outcome | undefined {
  return isResponse(value) ? { kind: 'status', status: value.status, headers: value.headers } : undefined;
}

/** A validator's answer: its rejection, or the value's own judgement. */
function verdictOf(rejection: Rejection | undefined | void, value: unknown): Outcome | undefined {
  if (rejection) return { kind: 'rejected', class: rejection.class, detail: rejection.detail };
  return statusOf(value);
}

/** A `classify` answer as an outcome: `{ class }` alone is an error of that class. */
function custom(
  answer: Outcome | { class: OutcomeClass; detail?: string } | OutcomeClass | undefined,
  thrown: unknown,
): Outcome | undefined {
  if (answer === undefined || answer === null) return undefined;
  // A class code alone (`'transient'`, as a Python classifier returns it).
  if (typeof answer === 'string') return custom({ class: answer }, thrown);
  if (typeof answer !== 'object') {
    throw invalidValue(
      `classify must return an outcome, { class }, a class code or undefined, not ${shown(answer)}`,
      'classify',
    );
  }
  // A status below 400 for a thrown error calls it a success: the core
  // refuses that as it refuses the class (not_a_failure, naming classify).
  if ('kind' in answer) return answer.kind === 'status' && answer.status < 400 ? { kind: 'error', class: 'success' } : answer;
  const fallback = outcomeOfError(thrown);
  const detail = answer.detail ?? ('detail' in fallback ? fallback.detail : undefined);
  return { kind: 'error', class: answer.class, detail };
}

function errorOutcome(thrown: unknown, timedOut: boolean): Outcome {
  if (timedOut) return { kind: 'network', network: 'read_timeout', detail: 'the attempt timed out' };
  return outcomeOfError(thrown);
}
