/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `Policy`: a validated config and the state calls share (a circuit
 * breaker, retry budgets and metrics per scope). Build one per service
 * family and reuse it; `retry()` and `createFetch()` take it as an option.
 */
import { ConfigError, inputError, type InputError } from './errors.js';
import { requireLoaded } from './loaded.js';
import { classIndexOf, networkIndex } from './codes.js';
import { boundaryError, CorePolicy } from './wasm/stoic_wasm.js';
import { monotonicNow, wallNow } from './clock.js';
import { hookFailed } from './hooks.js';
import { callable, flag, httpStatus, invalidValue, jsonText, knownOptions, misuse, optionalText, optionalWellFormed, plainObject, record, shown, text as text_, time, wellFormed } from './guard.js';
import { packHeaders } from './headers.js';
import { disposable } from './owned.js';
import { PlanArea } from './plan.js';
import { TextArea } from './text.js';
import { Abi } from './abi.generated.js';
import type {
  Admission,
  BackoffSpec,
  BreakerStateCode,
  BudgetStatus,
  Config,
  Decision,
  GiveUp,
  MetricsSnapshot,
  Outcome,
  ResolvedConfig,
  RestoreReport,
  StoicEvent,
} from './types.js';

/** Host-side options, beside the engine's config. */
export interface HostOptions {
  /** Monotonic milliseconds (default: `performance.timeOrigin + performance.now()`). */
  now?: () => number;
  /** Unix milliseconds, for HTTP-date hints and log timestamps (default `Date.now`). */
  wallNow?: () => number;
  /** Receives every event (breaker transitions, budget refusals, alerts, log records). */
  onEvent?: (event: StoicEvent) => void;
}

export type PolicyOptions = Config & HostOptions;

/**
 * Where each option of `retry()`, `createFetch()` or a request goes. A
 * Policy holds config and shared state; a call's callbacks and per-call
 * settings are the call's, so one given to a Policy by mistake is refused
 * with a message that says where it goes (the core would only call it an
 * unknown field, or a function no config can hold). None of these names is
 * a config field; `classify` is, as data, so only a function there is one
 * of `retry()`'s.
 */
const CALL_OPTION_HOMES: Readonly<Record<string, string>> = {
  onRetry: 'retry(fn, { onRetry }) or createFetch({ onRetry })',
  onGiveUp: 'retry(fn, { onGiveUp }) or createFetch({ onGiveUp })',
  sleep: 'retry(fn, { sleep }) or createFetch({ sleep })',
  validate: 'retry(fn, { validate }) or createFetch({ validate })',
  classify: "retry(fn, { classify }) (a Policy's classify is data: its status table and error classes)",
  signal: "retry(fn, { signal }) or a request's own init",
  operation: "retry(fn, { operation }) or a request's init",
  scope: "retry(fn, { scope }), createFetch({ scope }) or a request's init",
  idempotencyKey: "retry(fn, { idempotencyKey }) or a request's init",
  idempotent: 'retry(fn, { idempotent })',
  policy: 'retry(fn, { policy }) or createFetch({ policy })',
  fetch: 'createFetch({ fetch })',
  keys: 'createFetch({ keys })',
  keyHeader: 'createFetch({ keyHeader })',
  keyForm: 'createFetch({ keyForm })',
  serverDeduplicates: 'createFetch({ serverDeduplicates })',
  stream: "createFetch({ stream }) or a request's init",
  returnFailedResponses: 'createFetch({ returnFailedResponses })',
  hedging: "retry(fn, { hedging }), createFetch({ hedging }) or a request's init",
  onHedge: 'retry(fn, { onHedge }) or createFetch({ onHedge })',
};

function misplacedCallOption(config: Record<string, unknown>): void {
  for (const field of Object.keys(config)) {
    const home = Object.hasOwn(CALL_OPTION_HOMES, field) ? CALL_OPTION_HOMES[field] : undefined;
    const value = config[field];
    const misplaced = field === 'classify' ? typeof value === 'function' : value !== undefined;
    if (home === undefined || !misplaced) continue;
    const message = `${field}: a Policy holds config and shared state, not a call's options; pass ${field} to ${home}`;
    // Not a field of a Policy at all, except classify, whose type is wrong.
    const code = field === 'classify' ? 'wrong_type' : 'unknown_field';
    const problem = { code, field, message };
    throw Object.assign(new ConfigError(message), { code, field, problems: [problem] });
  }
}

/** What a call is, when it starts. */
export interface CallSpec {
  /** A name for records and logs. */
  operation?: string;
  /** The service: calls in one scope share a breaker, a budget and metrics. */
  scope?: string;
  /** The HTTP method; the core decides from it whether the call is idempotent. */
  method?: string;
  /** Overrides the method's idempotency (true for any operation safe to repeat). */
  idempotent?: boolean;
  /** A key carried by every attempt; makes ambiguous failures safe to retry. */
  idempotencyKey?: string;
  /** This call's attempts, in place of the policy's (its breaker and budget stay shared). */
  maxAttempts?: number;
  /** This call's backoff, in place of the policy's. */
  backoff?: BackoffSpec;
}

const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ policy: Policy; handle: number }>(({ policy, handle }) => {
        // Never throws: an error in a finalizer is uncaught (and ends a Node process).
        try {
          policy.core.close(handle);
          policy.closed();
        } catch {
          // The policy's memory is gone, and with it the call.
        }
      })
    : undefined;

/**
 * Policies made and not freed, counted only where no garbage collector can
 * free them (no `FinalizationRegistry`: workerd). Past this many, the
 * pattern is almost surely a policy per request without `free()`, whose
 * memory stays until the isolate ends: said once, with the way out.
 */
let unfreed = 0;
const UNFREED_WARNING = 1_000;

function countUnfreed(delta: 1 | -1): void {
  if (finalizer !== undefined) return;
  unfreed += delta;
  if (delta === 1 && unfreed === UNFREED_WARNING) {
    console.warn(
      `stoic: ${UNFREED_WARNING} policies were made and not freed, in a runtime that cannot free them for you (no FinalizationRegistry): each keeps its memory until the isolate ends. Call policy.free() when a request ends, or run the request in withPolicy(options, run, { store }), which always frees it.`,
    );
  }
}

export class Policy {
  /** @internal The engine, until its memory is released (then `misuse`). */
  get core(): CorePolicy {
    if (this.#released) throw misuse('this policy was freed');
    return this.#core;
  }
  readonly #core: CorePolicy;
  #released = false;
  readonly now: () => number;
  readonly wallNow: () => number;
  /** @internal */
  readonly onEvent: ((event: StoicEvent) => void) | undefined;
  /** @internal */
  readonly text: TextArea;
  /** @internal */
  readonly plan: PlanArea;

  constructor(options: PolicyOptions = {}) {
    requireLoaded();
    const { now, wallNow: wall, onEvent, ...config } = plainObject<PolicyOptions>(options, 'options');
    if (onEvent !== undefined) callable(onEvent, 'onEvent');
    misplacedCallOption(config);
    this.#core = new CorePolicy(config);
    this.text = new TextArea(this.core);
    this.plan = new PlanArea(this.core);
    // A custom clock's readings are checked as any time given to a call is.
    this.now = now === undefined ? monotonicNow : checkedClock(callable(now, 'now'), 'now()');
    this.wallNow = wall === undefined ? wallNow : checkedClock(callable(wall, 'wallNow'), 'wallNow()');
    this.onEvent = onEvent;
    this.core.setWallClock(this.now(), this.wallNow());
    countUnfreed(1);
  }

  /**
   * Releases the policy's wasm memory now (its breakers, budgets, metrics
   * and any open calls) instead of when the garbage collector gets to it:
   * call it when a policy's life ends with a request (a Worker that builds
   * one per request). Calls still running finish first: the memory goes
   * when the last ends. Starting a call afterwards throws an `InputError`
   * (`code: 'misuse'`). Freeing twice is harmless. Also `[Symbol.dispose]`, so `using policy = new Policy()`
   * works where the runtime has `Symbol.dispose`.
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    countUnfreed(-1);
    if (this.#open === 0) this.#release();
  }

  #release(): void {
    this.#released = true;
    this.#core.free();
  }

  /** The same as `free()`, for `using`. */
  declare [Symbol.dispose]: () => void;

  #freed = false;
  /** Calls started and not yet ended: `free()` waits for them. */
  #open = 0;

  /** @internal A call began: the policy's memory must outlive it. */
  opened(): void {
    if (this.#freed) throw misuse('this policy was freed');
    this.#open += 1;
  }

  /** @internal A call ended: a `free()` asked for meanwhile happens now. */
  closed(): void {
    if (this.#open === 0) return;
    this.#open -= 1;
    if (this.#open === 0 && this.#freed && !this.#released) this.#release();
  }

  /** Pairs a monotonic reading with Unix ms, for log timestamps (done at construction). */
  setWallClock(now: number, wallMs: number): void {
    this.core.setWallClock(time(now, 'now'), time(wallMs, 'wallMs'));
  }

  /** The effective config, every default filled in. */
  config(): ResolvedConfig {
    return this.core.config() as ResolvedConfig;
  }

  /** Starts a call (the low-level loop; `retry()` and `createFetch()` do this for you). */
  start(spec: CallSpec = {}, now: number = this.now()): Call {
    knownOptions(spec, SPEC_FIELDS, 'start(spec)');
    time(now, 'now');
    // Undefined: the core decides by the method (CallSpec::from_host).
    const idempotent = spec.idempotent === undefined ? undefined : flag(spec.idempotent, 'idempotent');
    const method = spec.method === undefined ? undefined : text_(spec.method, 'method');
    const overrides =
      spec.maxAttempts === undefined && spec.backoff === undefined
        ? undefined
        : { maxAttempts: spec.maxAttempts, backoff: spec.backoff };
    this.opened();
    try {
      return new Call(this, startNamed(this, now, spec.operation ?? '', spec.scope ?? '', idempotent, spec.idempotencyKey, overrides, method));
    } catch (error) {
      this.closed();
      throw error;
    }
  }

  /** From now on no attempt is admitted and no retry scheduled. */
  drain(): void {
    this.core.drain();
  }

  isDraining(): boolean {
    return this.core.isDraining();
  }

  /**
   * Whether calls queue their metric points and decisions as `metric` and
   * `decision` events (off by default; `stoic/opentelemetry` turns it on).
   */
  get measuring(): boolean {
    const core = this.core as Partial<Pick<CorePolicy, 'isMeasuring'>>;
    return typeof core.isMeasuring === 'function' ? core.isMeasuring() : false;
  }

  /** Throws `not_in_build` in the browser build (which leaves measuring out), unless turning it off. */
  set measuring(on: boolean) {
    const value = flag(on, 'measuring');
    const core = this.core as Partial<Pick<CorePolicy, 'setMeasuring'>>;
    if (typeof core.setMeasuring === 'function') {
      core.setMeasuring(value);
    } else if (value) {
      throw notInBuild('policy.measuring', 'measuring');
    }
  }

  /** Drains queued events, oldest first. Events not taken yet (a loop that stops early) stay queued. */
  *events(): Generator<StoicEvent> {
    for (;;) {
      if (this.#undelivered.length === 0) {
        const drained = this.core.drainEvents() as StoicEvent[] | undefined;
        if (drained === undefined) return;
        this.#undelivered = drained;
      }
      yield this.#undelivered.shift() as StoicEvent;
    }
  }

  /**
   * Adds a listener for the policy's events (breaker transitions, budget
   * refusals, alerts, fleet health, and with `logRecords: true` log records),
   * beside `onEvent` and any other listener; returns the function that
   * removes it. Events are handed out as calls end or wait, and after each
   * fleet exchange.
   */
  listen(listener: (event: StoicEvent) => void): () => void {
    callable(listener, 'listener');
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  #listeners: readonly ((event: StoicEvent) => void)[] = [];

  /** Events taken from the engine and not handed out yet: an `events()` loop stopped early. */
  #undelivered: StoicEvent[] = [];

  /**
   * @internal Hands queued events to `onEvent` and the listeners, if any:
   * all of them in one crossing (`drainEvents`). A listener that throws is
   * reported once (`console.warn`) and the others still get every event:
   * flushing happens inside calls, whose results a listener never changes.
   */
  flush(): void {
    if (this.onEvent === undefined && this.#listeners.length === 0) return;
    const drained = this.core.drainEvents() as StoicEvent[] | undefined;
    const queue = this.#undelivered.length === 0 ? drained : [...this.#undelivered, ...(drained ?? [])];
    if (queue === undefined) return;
    this.#undelivered = [];
    const onEvent = this.onEvent;
    for (const event of queue) {
      if (onEvent !== undefined) deliver('onEvent', onEvent, event);
      for (const listener of this.#listeners) deliver('a listener', listener, event);
    }
  }

  /**
   * Whether a decision about a response with `status` can read its headers
   * (the server's hints): only for a status this policy may retry. An
   * integration that reports responses itself can skip gathering the
   * headers of every other one (a 200's), as `createFetch` does.
   */
  readsHints(status: number): boolean {
    return this.core.readsHints(httpStatus(status));
  }

  /** The breaker state of a scope (`"default"` when omitted), or null. */
  breakerState(scope = ''): BreakerStateCode | null {
    return (this.core.breakerState(wellFormed(scope, 'scope')) as BreakerStateCode | undefined) ?? null;
  }

  /** The retry budgets of a scope, or null for a scope not used yet. */
  budgetStatus(scope = '', now: number = this.now()): BudgetStatus | null {
    return this.core.budgetStatus(time(now, 'now'), wellFormed(scope, 'scope')) as BudgetStatus | null;
  }

  /** Metrics by scope name. */
  metrics(): Record<string, MetricsSnapshot> {
    return this.core.metrics() as Record<string, MetricsSnapshot>;
  }

  /** Metrics of all scopes added together. */
  metricsTotal(): MetricsSnapshot {
    return this.core.metricsTotal() as MetricsSnapshot;
  }

  /**
   * Whether decisions see the fleet (`stoic/redis`): `detached` before the
   * first exchange, `live`, or `stale` when the store has not answered for
   * longer than 5 s.
   */
  fleetHealth(now: number = this.now()): 'detached' | 'live' | 'stale' {
    const core = this.core as Partial<Pick<CorePolicy, 'fleetHealth'>>;
    return (core.fleetHealth?.(time(now, 'now')) ?? 'detached') as 'detached' | 'live' | 'stale';
  }

  /** When shared state next changes by itself (an open breaker's end), or null. */
  nextTimeout(): number | null {
    const at = this.core.nextTimeout();
    return at < 0 ? null : at;
  }

  /**
   * The shared state (breakers, budgets, metrics of every scope) as
   * versioned JSON text, for storage between invocations (an edge worker's
   * KV or Durable Object storage). The text is the same in every language.
   */
  snapshot(): string {
    return withSnapshots(this.core, 'snapshot()').snapshot();
  }

  /** Restores `snapshot()` text; parts saved under another config start fresh. */
  restore(snapshot: string | object): RestoreReport {
    return withSnapshots(this.core, 'restore()').restore(jsonText(snapshot, 'snapshot')) as RestoreReport;
  }
}

/**
 * One logical operation, for hosts that drive the loop themselves:
 * `beforeAttempt()`, send, `onOutcome()`, sleep `delayMs` on `retry`.
 * `close()` frees it (a finalizer does it for calls left open).
 */
export class Call {
  readonly #policy: Policy;
  #handle: number;

  /** @internal */
  constructor(policy: Policy, handle: number) {
    // Made by `Policy.start()` only: a hand-made call would close another's handle.
    if (!(policy instanceof Policy) || !Number.isInteger(handle)) throw misuse('a Call comes from policy.start()');
    this.#policy = policy;
    this.#handle = handle;
    finalizer?.register(this, { policy, handle }, this);
  }

  #live(): number {
    if (this.#handle < 0) throw misuse('this call is closed');
    return this.#handle;
  }

  /** The call's idempotency key, the same on every attempt. */
  get idempotencyKey(): string | null {
    return this.#policy.core.callKey(this.#live()) ?? null;
  }

  /**
   * May the next attempt go out, and under which limits? Asking again while
   * an admitted attempt has no outcome throws an `InputError` (`code: 'misuse'`).
   */
  beforeAttempt(now: number = this.#policy.now()): Admission {
    const core = this.#policy.core;
    const handle = this.#live();
    checked(core.beforeAttempt(handle, time(now, 'now')));
    const admission = core.admission(handle) as Admission;
    this.#policy.flush();
    return admission;
  }

  /**
   * What to do after an attempt ended with `outcome`. Reporting one with no
   * admitted attempt, or after the call ended, throws an `InputError`
   * (`code: 'misuse'`); a raised error or rejected value classified as
   * success throws one with `code: 'not_a_failure'`.
   */
  onOutcome(outcome: Outcome, now: number = this.#policy.now()): Decision {
    const handle = this.#live();
    report(this.#policy, handle, record(outcome, 'outcome'), time(now, 'now'));
    const decision = this.#policy.core.decision(handle) as Decision;
    this.#policy.flush();
    return decision;
  }

  /** The caller gave up: ends the call with `cancelled`. */
  cancel(now: number = this.#policy.now()): GiveUp {
    const giveUp = this.#policy.core.cancel(this.#live(), time(now, 'now')) as GiveUp;
    this.#policy.flush();
    return giveUp;
  }

  /** The same as `close()`. */
  free(): void {
    this.close();
  }

  /** The same as `close()`, for `using`. */
  declare [Symbol.dispose]: () => void;

  /** Frees the call. Closing twice is harmless. */
  close(): void {
    if (this.#handle < 0) return;
    finalizer?.unregister(this);
    this.#policy.core.close(this.#handle);
    this.#handle = -1;
    this.#policy.closed();
  }
}

/** Hands `event` to one listener; its failure is reported, never thrown. */
function deliver(name: string, listener: (event: StoicEvent) => void, event: StoicEvent): void {
  try {
    listener(event);
  } catch (error) {
    hookFailed(`the policy's ${name}`, listener, error);
  }
}

/** A clock whose readings are refused when they are not valid times. */
function checkedClock(clock: () => number, name: string): () => number {
  return () => time(clock(), name);
}

/** The fields a call's spec may have (a misspelt one would be ignored). */
const SPEC_FIELDS = new Set(['operation', 'scope', 'method', 'idempotent', 'idempotencyKey', 'maxAttempts', 'backoff']);

/** A `policy` option: a `Policy` (a plain object would fail later, without a code). */
export function policyOption(value: unknown, name: string): Policy {
  if (value instanceof Policy) return value;
  throw Object.assign(new TypeError(`${name} must be a Policy (new Policy({...}))`), { code: 'wrong_type', field: name });
}

/**
 * Passes a hot-path answer through, or throws the error its misuse code
 * stands for. The hot-path methods answer with plain numbers because the
 * glue returns a Rust `Result` as a fresh array on every call.
 * @internal
 */
export function checked(code: number): number {
  if (code < Abi.MIN_MISUSE_CODE) return code;
  throw boundaryError(code);
}

/**
 * An outcome's figures as the core's methods take them, written by
 * `encodeOutcome`: the status, network kind or class index (`code`), the
 * wall clock for an HTTP-date hint (`wall`, -1: not read), and the byte
 * lengths of the headers (`a`) and the detail (`b`) in the text area. One
 * object reused: this runs on every failed attempt.
 * @internal
 */
export const encoded = { code: 0, wall: -1, a: Abi.ABSENT_TEXT as number, b: Abi.ABSENT_TEXT as number };

/**
 * Checks `outcome`, writes its texts to the text area and its figures to
 * `encoded`, and returns its kind as a `COPY_*` code. What a plain call
 * (`report`) and a hedged call's copy (hedge.ts) both report.
 * @internal
 */
export function encodeOutcome(policy: Policy, outcome: Outcome): number {
  switch (outcome.kind) {
    case 'success':
      return Abi.COPY_SUCCESS;
    case 'status': {
      const status = httpStatus(outcome.status);
      // Only a status the policy may retry has its headers read (for the server's hints).
      const headers = policy.core.readsHints(status) ? packHeaders(outcome.headers) : undefined;
      const text = policy.text.write(headers, optionalText(outcome.detail, 'detail'));
      // The wall clock dates an HTTP-date hint: read only when headers are.
      const given = outcome.wallNowMs;
      encoded.code = status;
      encoded.wall = given === null || (given === undefined && headers === undefined) ? -1 : time(given ?? policy.wallNow(), 'wallNowMs');
      encoded.a = text.a;
      encoded.b = text.b;
      return Abi.COPY_STATUS;
    }
    case 'network': {
      const index = networkIndex(outcome.network);
      if (index < 0) throw invalidValue(`unknown network error kind: ${shown(outcome.network)}`, 'network');
      encodeDetail(policy, index, outcome.detail);
      return Abi.COPY_NETWORK;
    }
    case 'rejected':
    case 'error': {
      const index = classIndexOf(outcome.class);
      if (index < 0) throw invalidValue(`unknown class: ${shown(outcome.class)}`, 'class');
      encodeDetail(policy, index, outcome.detail);
      return outcome.kind === 'error' ? Abi.COPY_RAISED : Abi.COPY_REJECTED;
    }
    default:
      throw invalidValue(`unknown outcome kind: ${shown((outcome as { kind: unknown }).kind)}`, 'kind');
  }
}

/** An outcome without a response: its code, and its detail as the only text (at the area's start). */
function encodeDetail(policy: Policy, code: number, detail: unknown): void {
  encoded.code = code;
  encoded.wall = -1;
  encoded.a = Abi.ABSENT_TEXT;
  encoded.b = policy.text.write(undefined, optionalText(detail, 'detail')).b;
}

/**
 * Reports an outcome for call `handle`; returns the decision kind
 * (0 done, 1 retry, 2 give up).
 * @internal
 */
export function report(policy: Policy, handle: number, outcome: Outcome, now: number): number {
  const core = policy.core;
  switch (encodeOutcome(policy, outcome)) {
    case Abi.COPY_SUCCESS:
      return checked(core.onSuccess(handle, now));
    case Abi.COPY_STATUS:
      return checked(core.onStatus(handle, now, encoded.code, encoded.wall, encoded.a, encoded.b));
    case Abi.COPY_NETWORK:
      return checked(core.onNetwork(handle, now, encoded.code, encoded.b));
    case Abi.COPY_RAISED:
      return checked(core.onRaised(handle, now, encoded.code, encoded.b));
    default:
      return checked(core.onRejected(handle, now, encoded.code, encoded.b));
  }
}

/**
 * Starts a named call (operation, scope and key cross through the text area).
 * @internal
 */
export function startNamed(
  policy: Policy,
  now: number,
  operation: string,
  scope: string,
  idempotent: boolean | undefined,
  key: string | undefined,
  overrides?: CallOverrides,
  method?: string,
): number {
  // Checked here, where every named start passes: a non-string would reach
  // the text area's encoder and fail there without a code.
  const text = policy.text.write(wellFormed(operation, 'operation'), wellFormed(scope, 'scope'), optionalWellFormed(key, 'idempotencyKey'));
  return overrides === undefined
    ? policy.core.startNamed(now, text.a, text.b, idempotent, text.c, method)
    : policy.core.startWith(now, text.a, text.b, idempotent, text.c, method, overrides);
}

/** Per-call settings on a shared policy; its breakers and budgets stay shared. */
export interface CallOverrides {
  maxAttempts?: number;
  backoff?: BackoffSpec;
}

// `using` support where the runtime has `Symbol.dispose` (Node >= 20,
// current browsers); the method is `free()` / `close()` either way.
disposable(Policy);
disposable(Call, 'close');

/**
 * The policy's module, if it can snapshot: the browser entry loads the
 * client build, which leaves snapshots out to stay small.
 */
function withSnapshots(core: CorePolicy, method: string): Pick<CorePolicy, 'snapshot' | 'restore'> {
  const full = core as Partial<Pick<CorePolicy, 'snapshot' | 'restore'>>;
  if (typeof full.snapshot === 'function' && typeof full.restore === 'function') {
    return full as Pick<CorePolicy, 'snapshot' | 'restore'>;
  }
  throw notInBuild(`Policy.${method}`, 'snapshots');
}

/** What the browser build (the client module) leaves out to stay small: `not_in_build`. */
function notInBuild(what: string, leftOut: string): InputError {
  return inputError(
    'not_in_build',
    `${what} is not in the browser build of stoic, which leaves ${leftOut} out to stay small: ` +
      "import from 'stoic/full' for the whole engine",
  );
}
