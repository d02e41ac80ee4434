/**
 * `retry(fn, options)`: calls `fn` until it succeeds or the engine gives up.
 * The runtime only sleeps, calls and translates: whether to retry, how long
 * to wait, the deadline, the breaker and the budget are the core's.
 */
import { AttemptContext, type Attempt } from './attempt.js';
import { sleep as defaultSleep } from './clock.js';
import { outcomeOfError } from './classify.js';
import { RetryError } from './errors.js';
import { knownOptions } from './guard.js';
import { checked, Policy, report, startNamed } from './policy.js';
import type { BackoffSpec, GiveUp, Outcome, OutcomeClass, Rejection, Retry } from './types.js';

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
  classify?: (error: unknown) => Outcome | { class: OutcomeClass; detail?: string } | undefined;
  /** Inspects a returned value; a `Rejection` makes it a failure of that class. */
  validate?: (value: T) => Rejection | undefined | void | PromiseLike<Rejection | undefined | void>;
  /** Called before each wait with the decision. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  decision: Retry;
  /** The error the attempt threw, if it threw. */
  error: unknown;
}

let shared: Policy | undefined;

/** The policy `retry()` and `createFetch()` use when given none. */
export function defaultPolicy(): Policy {
  shared ??= new Policy();
  return shared;
}

function isResponse(value: unknown): value is Response {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Response).status === 'number' &&
    typeof (value as Response).headers?.get === 'function'
  );
}

function isThenable<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return typeof (value as PromiseLike<V> | null)?.then === 'function';
}

const RETRY_OPTIONS = new Set([
  'policy',
  'maxAttempts',
  'backoff',
  'operation',
  'scope',
  'idempotent',
  'idempotencyKey',
  'signal',
  'now',
  'sleep',
  'classify',
  'validate',
  'onRetry',
]);

export async function retry<T>(
  fn: (attempt: Attempt) => T | PromiseLike<T>,
  options: RetryOptions<Awaited<T>> = {},
): Promise<Awaited<T>> {
  if (typeof fn !== 'function') throw new TypeError('retry(fn, options): fn must be a function');
  knownOptions(options, RETRY_OPTIONS, 'retry(fn, options)', '; other engine settings, such as timeouts, go in a Policy');
  const policy = options.policy ?? defaultPolicy();
  const core = policy.core;
  const now = options.now ?? policy.now;
  const signal = options.signal;
  signal?.throwIfAborted();
  const idempotent = options.idempotent ?? true;
  const overrides =
    options.maxAttempts === undefined && options.backoff === undefined
      ? undefined
      : { maxAttempts: options.maxAttempts, backoff: options.backoff };
  const named =
    options.operation !== undefined ||
    options.scope !== undefined ||
    options.idempotencyKey !== undefined ||
    overrides !== undefined;
  // One clock reading serves the start and the first admission. An unnamed
  // call starts and is admitted in one crossing (`begin`); the attempt's
  // number and timeout are then read from the plan area, not by calls.
  let t = now();
  const plan = policy.plan;
  policy.opened();
  let handle: number;
  try {
    handle = named
    ? startNamed(policy, t, options.operation ?? '', options.scope ?? '', idempotent, options.idempotencyKey, overrides)
    : core.begin(t, idempotent);
  } catch (error) {
    policy.closed(); // bad per-call settings: nothing was started
    throw error;
  }
  let attempt = named ? -1 : plan.attempt;
  let open = true;
  const key = options.idempotencyKey ?? null;
  let error: unknown;
  let response: Response | undefined;
  try {
    for (;;) {
      if (attempt < 0) attempt = checked(core.beforeAttempt(handle, t));
      if (attempt === 0) throw new RetryError(core.admission() as GiveUp, error, response);
      // Read before any await: the plan area holds the latest admission of any call.
      const context = new AttemptContext(attempt, plan.timeoutMs, key, signal);
      let value: Awaited<T> | undefined;
      let failure: Outcome | undefined;
      try {
        value = await fn(context);
      } catch (thrown) {
        if (signal?.aborted) {
          core.cancel(handle, now());
          throw signal.reason;
        }
        error = thrown;
        response = undefined;
        failure = custom(options.classify?.(thrown), thrown) ?? errorOutcome(thrown, context);
      } finally {
        context.done();
      }
      let outcome: Decided;
      if (failure !== undefined) {
        outcome = decided(policy, report(policy, handle, failure, now()), options.onRetry !== undefined);
      } else {
        // Outside the attempt's catch: a validator that throws ends the call
        // (the finally below releases it) and reaches the caller as itself.
        error = undefined;
        const isHttp = isResponse(value);
        response = isHttp ? (value as Response) : undefined;
        if (options.validate === undefined && !isHttp) {
          // Reports the success and closes the call if that ended it.
          const kind = checked(core.succeed(handle, now()));
          open = kind !== 0;
          outcome = decided(policy, kind, options.onRetry !== undefined);
        } else {
          outcome = await judge(policy, handle, value as Awaited<T>, options, now);
        }
      }
      const { kind, delay } = outcome;
      if (kind === 0) return value as Awaited<T>;
      if (kind === 2) throw new RetryError(outcome.decision as GiveUp, error, response);
      options.onRetry?.({ decision: outcome.decision as Retry, error });
      if (response?.body) await response.body.cancel().catch(() => undefined);
      policy.flush();
      try {
        await (options.sleep ?? defaultSleep)(delay, signal);
      } catch (reason) {
        if (signal?.aborted) core.cancel(handle, now());
        throw reason;
      }
      t = now();
      attempt = -1;
    }
  } finally {
    if (open) core.close(handle);
    policy.flush();
    policy.closed();
  }
}

/**
 * A decision's kind (0 done, 1 retry, 2 give up) with the delay and the
 * decision it left in the policy's shared slots. Read at once, in the same
 * synchronous run as the report: the next call on the policy to decide
 * overwrites the slots, and any await lets other calls run.
 */
interface Decided {
  kind: number;
  delay: number;
  decision: Retry | GiveUp | undefined;
}

const SUCCEEDED: Decided = { kind: 0, delay: -1, decision: undefined };

function decided(policy: Policy, kind: number, wantsRetry = false): Decided {
  if (kind === 0) return SUCCEEDED;
  // A retry's decision is converted only for an `onRetry` hook; a give-up's always.
  const decision = kind === 2 || wantsRetry ? (policy.core.decision() as Retry | GiveUp) : undefined;
  return { kind, delay: policy.plan.delayMs, decision };
}

/** A `classify` answer as an outcome: `{ class }` alone is an error of that class. */
function custom(
  answer: Outcome | { class: OutcomeClass; detail?: string } | undefined,
  thrown: unknown,
): Outcome | undefined {
  if (answer === undefined || answer === null) return undefined;
  if ('kind' in answer) return answer;
  const fallback = outcomeOfError(thrown);
  const detail = answer.detail ?? ('detail' in fallback ? fallback.detail : undefined);
  return { kind: 'error', class: answer.class, detail };
}

function errorOutcome(thrown: unknown, context: AttemptContext): Outcome {
  if (context.timedOut) return { kind: 'network', network: 'read_timeout', detail: 'the attempt timed out' };
  return outcomeOfError(thrown);
}

/** Reports a returned value: a validator's rejection, a response's status, or success. */
async function judge<T>(
  policy: Policy,
  handle: number,
  value: T,
  options: RetryOptions<T>,
  now: () => number,
): Promise<Decided> {
  if (options.validate !== undefined) {
    const verdict = options.validate(value);
    const rejection = isThenable(verdict) ? await verdict : verdict;
    if (rejection) {
      const outcome: Outcome = { kind: 'rejected', class: rejection.class, detail: rejection.detail };
      return decided(policy, report(policy, handle, outcome, now()), options.onRetry !== undefined);
    }
  }
  if (isResponse(value)) {
    const outcome: Outcome = { kind: 'status', status: value.status, headers: value.headers };
    return decided(policy, report(policy, handle, outcome, now()), options.onRetry !== undefined);
  }
  return decided(policy, checked(policy.core.onSuccess(handle, now())), options.onRetry !== undefined);
}
