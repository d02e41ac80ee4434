/**
 * The package's data types: plain objects discriminated by `kind`, with
 * milliseconds in `...Ms` fields. They mirror the core's serde wire form
 * (the same in Rust, JavaScript and Python) with keys in camelCase.
 */

// ---------------------------------------------------------------- codes

/** How a failure is classified. */
export type FailureClass = 'transient' | 'deterministic' | 'ambiguous';
/** Every class, success included. */
export type OutcomeClass = 'success' | FailureClass;

/** A failure without an HTTP response, placed before or after sending. */
export type NetworkErrorKind =
  | 'connect_refused'
  | 'connect_timeout'
  | 'dns_failure'
  | 'reset_before_send'
  | 'reset_after_send'
  | 'read_timeout'
  | 'body_cut'
  | 'refused_locally'
  | 'unknown';

/** Why a call stopped without succeeding. */
export type StopReason =
  | 'attempts_exhausted'
  | 'deadline_exceeded'
  | 'retry_after_exceeds_deadline'
  | 'not_retryable'
  | 'not_idempotent'
  | 'server_refused_retry'
  | 'circuit_open'
  | 'budget_exhausted'
  | 'shutting_down'
  | 'cancelled';

/** A backoff strategy code. */
export type BackoffStrategy =
  | 'none'
  | 'constant'
  | 'linear'
  | 'exponential'
  | 'full_jitter'
  | 'equal_jitter'
  | 'decorrelated_jitter';

/** The header a server hint came from. */
export type HintSource =
  | 'retry_after'
  | 'retry_after_ms'
  | 'x_ms_retry_after_ms'
  | 'x_amz_retry_after'
  | 'grpc_retry_pushback_ms'
  | 'ratelimit'
  | 'ratelimit_reset'
  | 'x_ratelimit_reset'
  | 'x_should_retry'
  | 'openai_ratelimit_reset'
  | 'anthropic_ratelimit_reset';

/** Where a retry's delay came from: a strategy or a server hint. */
export type DelaySource = BackoffStrategy | HintSource;

/**
 * The rule an outcome matched: `success`, `status_503`,
 * `network_read_timeout`, `rejected_transient`, ...
 */
export type MatchedCode =
  | 'success'
  | `status_${number}`
  | `network_${NetworkErrorKind}`
  | `rejected_${OutcomeClass}`;

export type BreakerStateCode = 'closed' | 'open' | 'half_open';
export type BudgetKind = 'ratio' | 'run_cap' | 'token_bucket' | 'grpc';
export type AlertRule = 'retry_rate' | 'exhausted_rate' | 'circuit_open';
export type AlertLevel = 'ok' | 'warning' | 'critical';
export type LogOutcome = 'success' | 'retry' | 'exhausted' | 'gave_up';
export type TransitionReason =
  | 'consecutive_failures'
  | 'failure_rate'
  | 'slow_call_rate'
  | 'cooldown_elapsed'
  | 'probe_failed'
  | 'probe_slow'
  | 'probes_succeeded'
  | 'fleet_opened'
  | 'fleet_closed';

// ---------------------------------------------------------------- config

/** The backoff part of a config. */
export interface BackoffSpec {
  strategy?: BackoffStrategy;
  baseMs?: number;
  capMs?: number;
  multiplier?: number;
}

/**
 * When a hedged call sends its next copy if no answer came: a fixed delay
 * after each copy, or a quantile of the scope's recent latencies (no timer
 * hedge until `minSamples` are known).
 */
export type HedgeDelay =
  | { kind: 'fixed'; afterMs: number }
  | { kind: 'quantile'; quantile?: number; minSamples?: number; samples?: number };

/**
 * A hedged call's settings (`retry(fn, { hedging })`, `createFetch({
 * hedging })`; `stoic/full`, not the browser build). Only a call that is
 * safe to repeat is hedged.
 */
export interface HedgingConfig {
  /** Copies sent beyond the first, 1 to 4 (default 1). */
  maxHedges?: number;
  /** Default: the 95th percentile of the scope's last 100 latencies, once 20 are known. */
  delay?: HedgeDelay;
}

/** What `onHedge` is told when a hedge (a copy after the first) goes out. */
export interface HedgeInfo {
  /** The copy's number: 2 for the first hedge. */
  copy: number;
  /** The copies in flight now, this one included. */
  inFlight: number;
  /** The copy's own timeout; null if unbounded. */
  timeoutMs: number | null;
}

export interface TimeoutsConfig {
  /** `null` for no connect timeout. */
  connectMs?: number | null;
  /** Per attempt; `null` for none. */
  readMs?: number | null;
  /** The whole call, retries and waits included; `null` for none. */
  totalMs?: number | null;
}

export interface HintsConfig {
  respect?: boolean;
  maxDelayMs?: number;
}

export interface ClassifyConfig {
  /** Status code -> class overrides, e.g. `{ 404: 'transient' }`. */
  status?: Record<number, OutcomeClass>;
  /** Network kind -> class overrides (kinds are codes: `reset_after_send`). */
  network?: Partial<Record<NetworkErrorKind, OutcomeClass>>;
  ambiguous?: 'if_idempotent' | 'always' | 'never';
  /** Statuses that may have been applied (default 500, 502, 504): ambiguous, not transient. */
  ambiguousStatus?: number[];
}

export type Compare = 'ge' | 'gt';

export type BreakerWindow =
  | { kind: 'count'; size: number }
  | { kind: 'time'; durationMs: number; buckets: number };

export type TripRule =
  | { kind: 'consecutive_failures'; threshold?: number; compare?: Compare }
  | {
      kind: 'failure_rate';
      window: BreakerWindow;
      failureRate: number;
      minimumThroughput: number;
      compare?: Compare;
      slowCall?: { durationMs: number; rate: number } | null;
    };

export interface BreakerConfig {
  trip?: TripRule;
  cooldownMs?: number;
  halfOpen?: { maxProbes?: number; successThreshold?: number };
}

export interface RatioBudgetConfig {
  ratio?: number;
  windowMs?: number;
  minRetriesPerSec?: number;
  buckets?: number;
  /** Retries always allowed at once, whatever the ratio (so sequential work gets its retries). */
  minConcurrentRetries?: number;
}

export interface TokenBucketConfig {
  profile?: 'aws_standard' | 'aws_2026';
  capacity?: number;
  retryCost?: number;
  timeoutRetryCost?: number;
  throttlingRetryCost?: number;
  successRefund?: number;
}

/** Retry budgets; `null` turns one off, `{}` turns it on with defaults. */
export interface RetryBudgetConfig {
  ratio?: RatioBudgetConfig | null;
  runCap?: { maxRetries?: number } | null;
  tokenBucket?: TokenBucketConfig | null;
  grpc?: { maxTokens?: number; tokenRatio?: number } | null;
}

export interface AlertConfig {
  windowMs?: number;
  retryRateWarning?: number;
  exhaustedRateCritical?: number;
  minRequests?: number;
}

/**
 * The engine's config. Every field is optional: absent fields take the
 * core's documented defaults (5 attempts, full jitter 1 s .. 30 s, 30 s per
 * attempt, 120 s in total, breaker after 5 consecutive failures, 10 % retry
 * budget). Keys may also be written in snake_case.
 */
export interface Config {
  version?: 1;
  /** The jitter seed (number or BigInt); drawn from `crypto.getRandomValues` when absent. */
  seed?: number | bigint;
  maxAttempts?: number;
  backoff?: BackoffSpec;
  timeouts?: TimeoutsConfig;
  hints?: HintsConfig;
  classify?: ClassifyConfig;
  observation?: { maxExcerptChars?: number };
  /** `null` disables circuit breakers. */
  breaker?: BreakerConfig | null;
  budget?: RetryBudgetConfig;
  alerts?: AlertConfig;
  maxScopes?: number;
  /** Queue a log record per decision (read them with `onEvent` or `events()`). */
  logRecords?: boolean;
}

/**
 * The effective config, every default filled in, camelCase keys (codes such
 * as `reset_after_send` stay as they are). `seed` is a number, or a BigInt
 * when one beyond 2^53 was given (a number would round it).
 */
export type ResolvedConfig = Required<Omit<Config, 'seed'>> & { seed: number | bigint };

// ---------------------------------------------------------------- outcomes

/** Response headers in any of the usual shapes. */
export type HeadersLike =
  | Headers
  | Iterable<readonly [string, string]>
  | Record<string, string>;

/** What the host observed when an attempt ended. */
export type Outcome =
  | { kind: 'success' }
  | {
      kind: 'status';
      status: number;
      /** Response headers, read for server hints (`Retry-After` and friends). */
      headers?: HeadersLike;
      /** Unix ms now, for HTTP-date hints; defaults to the policy's wall clock, `null` for none. */
      wallNowMs?: number | null;
      /** A body excerpt for the observation. */
      detail?: string;
    }
  | { kind: 'network'; network: NetworkErrorKind; detail?: string }
  | { kind: 'rejected'; class: OutcomeClass; detail?: string }
  /** The caller's own code threw (no response involved): `detail` is the error's name and message. */
  | { kind: 'error'; class: OutcomeClass; detail?: string };

/** A result the host's validator rejects. */
export interface Rejection {
  class: FailureClass;
  detail?: string;
}

// ---------------------------------------------------------------- decisions

/** Go ahead with the attempt, under these limits. */
export interface AttemptPlan {
  attempt: number;
  maxAttempts: number;
  timeoutMs: number | null;
  connectTimeoutMs: number | null;
  remainingMs: number | null;
  idempotencyKey: string | null;
}

/** The call is over without success. */
export interface GiveUpFields {
  reason: StopReason;
  attempts: number;
  totalMs: number;
  matched: MatchedCode | null;
  class: OutcomeClass | null;
  /** When trying again could make sense (monotonic ms), if known. */
  retryAt: number | null;
  /** Text for a caller (or an agent) that can reason about the failure. */
  observation: string;
  /**
   * Whether the last failure was retryable and the call stopped for another
   * reason (attempts, deadline, breaker, budget). False for `not_retryable`
   * and `not_idempotent`, where retry() rethrows the caller's own error.
   */
  wasRetryable: boolean;
}

export type Admission =
  | ({ kind: 'proceed' } & AttemptPlan)
  | ({ kind: 'reject' } & GiveUpFields);

export interface Done {
  kind: 'done';
  attempts: number;
  totalMs: number;
}

export interface Retry {
  kind: 'retry';
  delayMs: number;
  /** The attempt that just failed (1-based). */
  attempt: number;
  matched: MatchedCode;
  class: FailureClass;
  source: DelaySource;
  /** The computed backoff, kept even when a server hint won. */
  backoffMs: number;
}

export interface GiveUp extends GiveUpFields {
  kind: 'give_up';
}

export type Decision = Done | Retry | GiveUp;

// ---------------------------------------------------------------- events and status

export interface LogRecord {
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
  operation: string;
  /** `"2 of 5"`. */
  attempt: string;
  delayMs: number;
  error: { code: string; message: string } | null;
  strategy: string;
  outcome: LogOutcome;
  totalDurationMs: number;
  /** The record as one line of JSON (the core's field names and order). */
  line: string;
  /** The record as one human-readable line. */
  text: string;
}

export type StoicEvent =
  | {
      kind: 'breaker_transition';
      scope: string;
      from: BreakerStateCode;
      to: BreakerStateCode;
      at: number;
      reason: TransitionReason;
    }
  | { kind: 'budget_exhausted'; scope: string; budget: BudgetKind; at: number; message: string }
  | {
      kind: 'alert_changed';
      scope: string;
      rule: AlertRule;
      from: AlertLevel;
      to: AlertLevel;
      value: number;
      threshold: number;
      at: number;
    }
  | { kind: 'log'; scope: string; record: LogRecord }
  | { kind: 'fleet_health'; from: 'detached' | 'live' | 'stale'; to: 'detached' | 'live' | 'stale'; at: number }
  | { kind: 'nested_retries'; scope: string; operation: string; retriesAbove: number; at: number; message: string }
  | MetricPointEvent
  | DecisionEvent;

/**
 * What a point or a decision is about (OpenTelemetry attributes; the same
 * names in every language). `outcome` and `reason` are codes from fixed
 * lists; `scope` and `operation` are the caller's names.
 */
export interface MeasureAttributes {
  scope: string;
  operation: string;
  outcome?: 'success' | 'retry' | 'exhausted' | 'gave_up';
  /** The error retried on (`status_503`) or why the call stopped (`not_retryable`). */
  reason?: string;
}

/** A point of a catalogue metric, queued while `policy.measuring` is on. */
export interface MetricPointEvent {
  kind: 'metric';
  /** The metric's OpenTelemetry name (`stoic.retries`). */
  metric: string;
  /** 1 for a counter; seconds for `stoic.retry.duration`. */
  value: number;
  attributes: MeasureAttributes;
}

/** A retry, a stop or a success after retries (a span event), queued while `policy.measuring` is on. */
export interface DecisionEvent {
  kind: 'decision';
  /** `stoic.retry`, `stoic.success`, `stoic.exhausted`, `stoic.gave_up` or `stoic.hedge`. */
  name: string;
  attributes: MeasureAttributes & { attempt: number; delay_seconds: number };
}

export interface BudgetStatus {
  ratio: { requests: number; retries: number; maxRetries: number } | null;
  runCap: { used: number; maxRetries: number } | null;
  tokenBucket: { tokens: number; capacity: number } | null;
  grpc: { milliTokens: number; maxMilliTokens: number; retryAllowed: boolean } | null;
}

export interface MetricsSnapshot {
  asOfMs: number;
  callsTotal: number;
  attemptsTotal: number;
  retryTotal: number;
  retryAttemptsTotal: number;
  retrySuccess: number;
  retryExhausted: number;
  gaveUpTotal: number;
  retryDuration: { counts: number[]; sumMs: number; count: number };
  /** 0 closed, 1 half-open, 2 open. */
  circuitBreakerState: number;
}

/** One scope's value of a metric, in the units exporters publish. */
export interface MetricPoint {
  /** `{ scope }`. */
  attributes: Record<string, string>;
  /** A counter's or gauge's value. */
  value?: number;
  /** A histogram's cumulative bucket counts (`le` form), `+Inf` last. */
  buckets?: number[];
  /** A histogram's sum, in seconds. */
  sumSeconds?: number;
  /** A histogram's count. */
  count?: number;
}

/** A metric of the engine's catalogue, as exporters publish it (`metricCatalogue()`). */
export interface MetricDescription {
  /** The snapshot field it comes from, in the core's snake_case (`retry_total`). */
  field: string;
  /** The OpenTelemetry instrument name (`stoic.retries`). */
  otelName: string;
  /** The Prometheus metric name (`stoic_retry_total`). */
  prometheusName: string;
  kind: 'counter' | 'histogram' | 'gauge';
  /** UCUM unit: `s` for durations, `{call}`-style for counts. */
  unit: string;
  description: string;
  /** The attribute (label) names: `['scope']`. */
  attributes: string[];
  /** A histogram's bucket upper bounds, in seconds (`+Inf` follows). */
  boundsSeconds?: number[];
  /** One per scope of the snapshots given (none for the catalogue alone). */
  points: MetricPoint[];
}

export interface RestoreReport {
  restored: number;
  /** Parts that started fresh because the config changed (`"api.breaker"`). */
  reset: string[];
}

export type BreakerState =
  | { kind: 'closed'; consecutiveFailures: number }
  | { kind: 'open'; since: number; until: number }
  | { kind: 'half_open'; probesInFlight: number; successes: number };

export interface BreakerTransition {
  from: BreakerStateCode;
  to: BreakerStateCode;
  at: number;
  reason: TransitionReason;
}

export type ServerHint =
  | { kind: 'delay'; delayMs: number; source: HintSource }
  | { kind: 'bounded'; hintMs: number; source: HintSource }
  | { kind: 'do_not_retry'; source: HintSource };
