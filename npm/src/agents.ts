/**
 * Agent runs: stoic owns an agent's retries.
 *
 * ```js
 * import { Run } from 'stoic/agents';
 * const run = new Run('run-7');                               // one per agent run
 * const result = await run.call(toolCall.id, (call) => createOrder(args), { args });
 * reply(result.ok ? result.value : result.observation);       // what the model reads
 * ```
 *
 * A run has an id, a policy (its own, or a shared `policy` whose breakers
 * and budgets every run uses) and a retry quota for the whole run
 * (`maxRetries`, 20 by default: the retries of every tool call, and of every
 * request made inside one, count). A tool call's idempotency key
 * `{runId}:{step}:{hash of args}` is made once, before the first attempt;
 * transient failures are retried inside and the model never hears of them;
 * anything else ends the call with a `ToolResult` saying why (`reason`) and
 * what the model can do next (`observation`). A tool call always gets an
 * answer: only errors you name as bugs (`bugs`) and the caller's abort
 * reject.
 *
 * Inside the call, `fn` gets the key (`call.key`), and where the runtime
 * has `AsyncLocalStorage` (Node) `createFetch` sends it as `Idempotency-Key`
 * on the writes it makes and spends the run's retries. **Safety rule:** the
 * key alone does not make a write safe to repeat; only `serverDeduplicates`
 * (the servers honour the key) or `idempotent: true` does. Without either,
 * a write whose answer was lost ends `ambiguous`, sent once, with its key.
 *
 * Exactly one layer retries: a failure a stoic layer inside the tool
 * already retried (its `RetryError`) ends the tool call as that layer
 * decided, without more attempts.
 */
import type { Attempt } from './attempt.js';
import { idempotencyKey } from './canonical.js';
import { InputError, inputError, RetryError } from './errors.js';
import { callable, checkedOptions, flag, invalidValue, optionalSignal, optionSpec, shown, text, wellFormed } from './guard.js';
import { givenUp } from './loop.js';
import { Policy, type PolicyOptions } from './policy.js';
import { retryIn, type RetryOptions } from './retry.js';
import { inToolCall, type ToolCallContext } from './run-context.js';
import type { BackoffSpec, GiveUp } from './types.js';
import { CoreRunQuota, defaultRunMaxRetries, toolReason } from './wasm/stoic_wasm.js';

/** Why a tool call ended without a value (the core's codes). */
export type ToolReason =
  | 'deterministic'
  | 'ambiguous'
  | 'exhausted'
  | 'budget'
  | 'breaker_open'
  | 'deadline'
  | 'refused'
  | 'cancelled';

/** How a tool call ended: a value, or an observation for the model. */
export interface ToolResult<T> {
  /** Whether the tool returned a value. */
  readonly ok: boolean;
  /** What the tool returned (undefined unless `ok`). */
  readonly value: T | undefined;
  /** Text for the model: what failed, what it means, what to do next. */
  readonly observation: string | undefined;
  /** Why there is no value. */
  readonly reason: ToolReason | undefined;
  /** The call's idempotency key. */
  readonly key: string;
  /** Attempts made. */
  readonly attempts: number;
  /** Milliseconds until trying again may make sense (an open breaker, the server's wait), when known. */
  readonly retryAfterMs: number | undefined;
  /** The last error the tool threw, for logs (never for the model). */
  readonly error: unknown;
}

/** What a tool function receives. */
export interface ToolCall extends Attempt {
  /** The tool call's idempotency key, the same on every attempt. */
  readonly key: string;
  /** The tool's arguments: `args` as given, or parsed when given as JSON text. */
  readonly args: unknown;
}

export interface RunOptions {
  /** Shared breakers and budgets (default: the run's own policy, from `policyOptions`). */
  policy?: Policy;
  /** The run's own policy's config, when no `policy` is given. */
  policyOptions?: PolicyOptions;
  /** Retries the whole run may make (default 20). */
  maxRetries?: number;
  /** Whether the servers the tools write to honour the key (default false). */
  serverDeduplicates?: boolean;
  /** Errors that are bugs in the tool: they reject instead of becoming an observation (a predicate, or an `Error` class). */
  bugs?: ((error: unknown) => boolean) | (abstract new (...args: never[]) => Error);
  /** Maps a tool's error to an outcome, as `retry()`'s `classify` does. */
  classify?: RetryOptions<unknown>['classify'];
  /** Each tool call's attempts, in place of the policy's. */
  maxAttempts?: number;
  /** Each tool call's backoff, in place of the policy's. */
  backoff?: BackoffSpec;
  /** How to wait (default: `setTimeout`); tests inject their own. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Monotonic ms (default: the policy's clock). */
  now?: () => number;
}

export interface ToolCallOptions {
  /** The tool's arguments: what the key hashes (an object, or a model's JSON text of one). */
  args?: unknown;
  /** Whether repeating the tool is harmless (default false: a tool may write). */
  idempotent?: boolean;
  /** This call's word on whether servers honour the key (default: the run's). */
  serverDeduplicates?: boolean;
  /** The tool's name, for records and the breaker's scope (default: `fn.name`). */
  tool?: string;
  /** Aborting ends the call: `call` rejects with the reason. */
  signal?: AbortSignal;
  /** Maps this call's errors to outcomes before the run's `classify` (a framework adapter knows its errors). */
  classify?: RetryOptions<unknown>['classify'];
}

const RUN_OPTIONS = optionSpec({
  policy: null,
  policyOptions: null,
  maxRetries: null,
  serverDeduplicates: flag,
  bugs: callable,
  classify: callable,
  maxAttempts: null,
  backoff: null,
  sleep: callable,
  now: callable,
});

const CALL_OPTIONS = optionSpec({
  args: null,
  idempotent: flag,
  serverDeduplicates: flag,
  tool: text,
  signal: optionalSignal,
  classify: callable,
});

/** The reason code a tool call ends with for a give-up's stop reason (`not_retryable` -> `deterministic`, ...). */
export function toolReasonOf(stopReason: string): ToolReason | undefined {
  return toolReason(text(stopReason, 'stopReason')) as ToolReason | undefined;
}

/**
 * The error of a stoic layer inside the tool that already retried and
 * ended the request: a `RetryError`, or one an SDK wrapped (`cause`).
 */
function innerError(error: unknown): RetryError | undefined {
  const seen = new Set<unknown>();
  while (typeof error === 'object' && error !== null && !seen.has(error)) {
    if (error instanceof RetryError) return error;
    // An SDK's error built from a response createFetch gave up on and returned.
    const { response, headers } = error as { response?: object; headers?: object };
    const decision = (response && givenUp.get(response)) ?? (headers && givenUp.get(headers));
    if (decision !== undefined) return new RetryError(decision, error, response as Response | undefined);
    seen.add(error);
    error = (error as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether `error` is a bug by the run's `bugs`: a predicate, or an `Error` class. */
function isBug(bugs: RunOptions['bugs'], error: unknown): boolean {
  if (bugs === undefined) return false;
  if (bugs === Error || bugs.prototype instanceof Error) return error instanceof (bugs as unknown as typeof Error);
  return (bugs as (error: unknown) => boolean)(error) === true;
}

/** A model's tool arguments that could not be read: the call's reason to fail. */
class InvalidToolArguments extends Error {
  override readonly name = 'InvalidToolArguments';
}

/** The key of `(runId, step, args)`, a core error naming the caller's `field`. */
function keyOf(runId: string, step: string, args: unknown, field: string): string {
  try {
    return idempotencyKey(runId, step, args);
  } catch (error) {
    if (error instanceof InputError && !error.field) throw inputError(error.code, error.message, field);
    throw error;
  }
}

/** One agent run: its id, its policy and its retry quota. */
export class Run {
  readonly runId: string;
  readonly policy: Policy;
  readonly #quota: CoreRunQuota;
  readonly #options: RunOptions;

  constructor(runId: string, options: RunOptions = {}) {
    checkedOptions(options, RUN_OPTIONS, 'new Run(runId, options)');
    // The key rule is the core's: an empty run id fails here, before any tool runs.
    keyOf(wellFormed(runId, 'runId'), 'step', {}, 'runId');
    const maxRetries = options.maxRetries ?? defaultRunMaxRetries();
    if (!Number.isSafeInteger(maxRetries) || maxRetries < 0 || maxRetries > 0xffff_ffff) {
      throw invalidValue(`maxRetries must be a whole number >= 0, not ${shown(maxRetries)}`, 'maxRetries');
    }
    if (options.policy !== undefined && !(options.policy instanceof Policy)) {
      throw invalidValue('policy must be a stoic Policy', 'policy');
    }
    this.runId = runId;
    this.policy = options.policy ?? new Policy(options.policyOptions);
    this.#quota = new CoreRunQuota(maxRetries);
    this.#options = options;
  }

  /** Retries the run has made, across its calls. */
  get retriesUsed(): number {
    return this.#quota.used;
  }

  /** Retries the run may still make. */
  get retriesLeft(): number {
    return this.#quota.remaining;
  }

  /**
   * Runs `fn` as tool call `step` of this run and always resolves with a
   * `ToolResult` (see the module docs); rejects only for a bug (`bugs`) or
   * the caller's abort.
   */
  async call<T>(
    step: string,
    fn: (call: ToolCall) => T | PromiseLike<T>,
    options: ToolCallOptions = {},
  ): Promise<ToolResult<Awaited<T>>> {
    checkedOptions(options, CALL_OPTIONS, 'run.call(step, fn, options)');
    callable(fn, 'fn');
    const args = options.args === undefined ? {} : options.args;
    if (typeof args !== 'string' && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw invalidValue(`args must be an object or a model's JSON text of one, not ${shown(args)}`, 'args');
    }
    const key = keyOf(this.runId, wellFormed(step, 'step'), args, step === '' ? 'step' : 'args');
    // A model's malformed arguments are not the caller's bug: the call
    // fails with them as its reason (the tool does not run), for the model to correct.
    const parsed = typeof args === 'string' ? parseArguments(args) : args;
    const dedupe = options.serverDeduplicates ?? this.#options.serverDeduplicates ?? false;
    const idempotent = options.idempotent ?? false;
    const context: ToolCallContext = { key, serverDeduplicates: dedupe, idempotent, quota: this.#quota, writes: 0 };
    let attempts = 0;
    const tool = (attempt: Attempt): T | PromiseLike<T> => {
      attempts = attempt.attempt;
      context.writes = 0; // each attempt's n-th write gets the n-th key again
      if (parsed instanceof InvalidToolArguments) throw parsed;
      const call: ToolCall = {
        key,
        args: parsed,
        attempt: attempt.attempt,
        timeoutMs: attempt.timeoutMs,
        idempotencyKey: key,
        get signal() {
          return attempt.signal;
        },
      };
      return fn(call);
    };
    const retryOptions: RetryOptions<Awaited<T>> = {
      policy: this.policy,
      operation: options.tool ?? (fn.name || 'tool'),
      idempotent,
      // The engine hears of the key only when the servers honour it: then
      // an ambiguous failure is safe to repeat.
      idempotencyKey: dedupe ? key : undefined,
      signal: options.signal,
      maxAttempts: this.#options.maxAttempts,
      backoff: this.#options.backoff,
      sleep: this.#options.sleep,
      now: this.#options.now,
      // A failure a stoic layer inside already retried is final here.
      classify: (error) =>
        innerError(error) !== undefined
          ? { class: 'deterministic' }
          : (options.classify?.(error) ?? this.#options.classify?.(error)),
    };
    try {
      const value = await inToolCall(context, () => retryIn(this.#quota, tool, retryOptions));
      return result(true, value, undefined, key, Math.max(attempts, 1), undefined);
    } catch (error) {
      if (options.signal?.aborted && error === options.signal.reason) throw error;
      if (!(error instanceof RetryError)) throw error; // a set-up error, a hook's: not the tool's
      const inner = innerError(error.cause);
      const decision = inner?.decision ?? error.decision;
      const cause = (inner ?? error).cause ?? inner ?? error;
      if (isBug(this.#options.bugs, cause)) throw cause;
      return result<Awaited<T>>(false, undefined, decision, key, decision.attempts, cause, (this.#options.now ?? this.policy.now)());
    }
  }
}

/** A model's JSON text of a tool's arguments, parsed, or why it cannot be. */
function parseArguments(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    return new InvalidToolArguments(`the tool's arguments are not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return new InvalidToolArguments(`the tool's arguments must be a JSON object, not ${Array.isArray(parsed) ? 'an array' : String(parsed)}`);
  }
  return parsed;
}

function result<T>(
  ok: boolean,
  value: T | undefined,
  decision: GiveUp | undefined,
  key: string,
  attempts: number,
  error: unknown,
  now?: number,
): ToolResult<T> {
  const retryAt = decision?.retryAt;
  return {
    ok,
    value,
    observation: decision?.observation,
    reason: decision === undefined ? undefined : toolReasonOf(decision.reason),
    key,
    attempts,
    retryAfterMs: typeof retryAt === 'number' && now !== undefined ? Math.max(0, Math.ceil(retryAt - now)) : undefined,
    error,
  };
}
