/**
 * The core's parts, standalone: a backoff schedule, a circuit breaker, a
 * retry budget, the metrics record and log records, for hosts that want one piece without a
 * whole policy. Times are the host's monotonic milliseconds.
 */
import { requireLoaded } from './loaded.js';
import { Owned } from './owned.js';
import * as core from './wasm/stoic_wasm.js';
import { count, flag, jsonText, optionalWellFormed, record, text, time, wellFormed } from './guard.js';
import type {
  AlertConfig,
  BackoffStrategy,
  AlertLevel,
  AlertRule,
  BreakerConfig,
  BreakerState,
  BreakerStateCode,
  BreakerTransition,
  BudgetKind,
  BudgetStatus,
  LogOutcome,
  LogRecord,
  MetricDescription,
  MetricsSnapshot,
  RetryBudgetConfig,
} from './types.js';

export interface BackoffOptions {
  strategy?: BackoffStrategy;
  baseMs?: number;
  capMs?: number;
  multiplier?: number;
  /** Fixes the schedule (number or BigInt); random when absent. */
  seed?: number | bigint;
}

/**
 * A seeded backoff schedule: `delayMs(retry)` with retry 1 for the first
 * retry. Stateful for decorrelated jitter (each delay depends on the last).
 */
export class Backoff extends Owned {
  private get inner(): core.CoreBackoff {
    return this.live();
  }

  constructor(options: BackoffOptions = {}) {
    requireLoaded();
    super(new core.CoreBackoff(options));
  }

  delayMs(retry: number): number {
    return this.inner.delayMs(count(retry, 'retry'));
  }
}

/** Permission to make one call; hand it back once. */
export interface Permit {
  generation: number;
  /** Serial number; a permit handed back twice, or never issued, is ignored. */
  id: number;
  probe: boolean;
}

export type Admit =
  | { admitted: true; permit: Permit }
  | { admitted: false; reason: 'circuit_open' | 'half_open_full'; retryAt: number | null };

export class CircuitBreaker extends Owned {
  private get inner(): core.CoreBreaker {
    return this.live();
  }


  constructor(config: BreakerConfig = {}, snapshot?: string) {
    requireLoaded();
    super(snapshot === undefined ? new core.CoreBreaker(config) : core.CoreBreaker.fromSnapshot(jsonText(snapshot, 'snapshot')));
  }

  /** A breaker restored from `snapshot()` text. */
  static fromSnapshot(snapshot: string): CircuitBreaker {
    return new CircuitBreaker({}, snapshot);
  }

  snapshot(): string {
    return this.inner.snapshot();
  }

  tryAcquire(now: number): Admit {
    return this.inner.tryAcquire(time(now, 'now')) as Admit;
  }

  /** Returns whether the outcome counted (a permit from an older state does not). */
  onSuccess(now: number, permit: Permit, durationMs = 0): boolean {
    return this.inner.onSuccess(time(now, 'now'), record(permit, 'permit'), time(durationMs, 'durationMs'));
  }

  onFailure(now: number, permit: Permit, durationMs = 0): boolean {
    return this.inner.onFailure(time(now, 'now'), record(permit, 'permit'), time(durationMs, 'durationMs'));
  }

  /** Returns a permit without an outcome. */
  release(permit: Permit): boolean {
    return this.inner.release(record(permit, 'permit'));
  }

  stateAt(now: number): BreakerStateCode {
    return this.inner.stateAt(time(now, 'now')) as BreakerStateCode;
  }

  state(): BreakerState {
    return this.inner.state() as BreakerState;
  }

  windowCounts(now: number): { calls: number; failures: number; slow: number } | null {
    return this.inner.windowCounts(time(now, 'now')) as { calls: number; failures: number; slow: number } | null;
  }

  nextTimeout(): number | null {
    const at = this.inner.nextTimeout();
    return at < 0 ? null : at;
  }

  pollTransition(): BreakerTransition | undefined {
    return this.inner.pollTransition() as BreakerTransition | undefined;
  }
}

export type RetryCost = 'normal' | 'timeout' | 'throttling';
/** A granted retry; hand it back once (a second time, or forged, it is ignored). */
export interface RetryTicket {
  /** Serial number. */
  id: number;
  tokenCost: number | null;
  /** The ratio budget's concurrency-floor slot, when the retry was granted on the floor. */
  floorSlot?: number;
}
export type BudgetAnswer = { allowed: true; ticket: RetryTicket } | { allowed: false; refusedBy: BudgetKind };
export interface BudgetEvent {
  kind: 'budget_exhausted';
  budget: BudgetKind;
  at: number;
}

export class RetryBudget extends Owned {
  private get inner(): core.CoreBudget {
    return this.live();
  }


  constructor(config: RetryBudgetConfig = {}) {
    requireLoaded();
    super(new core.CoreBudget(config));
  }

  reconfigure(config: RetryBudgetConfig): void {
    this.inner.reconfigure(config);
  }

  onFirstAttempt(now: number): void {
    this.inner.onFirstAttempt(time(now, 'now'));
  }

  tryRetry(now: number, cost: RetryCost = 'normal'): BudgetAnswer {
    return this.inner.tryRetry(time(now, 'now'), text(cost, 'cost')) as BudgetAnswer;
  }

  onAttemptSuccess(now: number, ticket: RetryTicket | null = null): void {
    this.inner.onAttemptSuccess(time(now, 'now'), ticket === null || ticket === undefined ? null : record(ticket, 'ticket'));
  }

  onAttemptFailure(now: number): void {
    this.inner.onAttemptFailure(time(now, 'now'));
  }

  status(now: number): BudgetStatus {
    return this.inner.status(time(now, 'now')) as BudgetStatus;
  }

  pollEvent(): BudgetEvent | undefined {
    return this.inner.pollEvent() as BudgetEvent | undefined;
  }
}

export interface AlertEvent {
  kind: 'alert_changed';
  rule: AlertRule;
  from: AlertLevel;
  to: AlertLevel;
  value: number;
  threshold: number;
  at: number;
}

export class Metrics extends Owned {
  private get inner(): core.CoreMetrics {
    return this.live();
  }


  constructor(alerts: AlertConfig = {}) {
    requireLoaded();
    super(new core.CoreMetrics(alerts));
  }

  onAttempt(now: number, isRetry: boolean): void {
    this.inner.onAttempt(time(now, 'now'), flag(isRetry, 'isRetry'));
  }

  onRetryScheduled(now: number): void {
    this.inner.onRetryScheduled(time(now, 'now'));
  }

  onCallFinished(now: number, summary: { retries: number; outcome: 'success' | 'exhausted' | 'gave_up'; durationMs: number }): void {
    const given = record<Record<string, unknown>>(summary, 'summary');
    this.inner.onCallFinished(
      time(now, 'now'),
      count(given.retries, 'summary.retries'),
      text(given.outcome, 'summary.outcome'),
      time(given.durationMs, 'summary.durationMs'),
    );
  }

  /** Sets the breaker gauge; false for an unknown state code. */
  setBreakerState(state: string): boolean {
    return this.inner.setBreakerState(text(state, 'state'));
  }

  evaluate(now: number): void {
    this.inner.evaluate(time(now, 'now'));
  }

  pollEvent(): AlertEvent | undefined {
    return this.inner.pollEvent() as AlertEvent | undefined;
  }

  snapshot(): MetricsSnapshot {
    return this.inner.snapshot() as MetricsSnapshot;
  }
}

/** Two metrics snapshots merged: counters add, the newer gauge wins. */
export function mergeMetrics(a: MetricsSnapshot, b: MetricsSnapshot): MetricsSnapshot {
  requireLoaded();
  return core.mergeMetrics(record(a, 'a'), record(b, 'b')) as MetricsSnapshot;
}

/**
 * The engine's metric catalogue: every metric of a scope's snapshot with the
 * names, kind, unit, description and bucket bounds exporters publish it
 * under (`stoic/prometheus`), and its points per scope when given
 * `policy.metrics()`, in the units exporters publish (seconds).
 */
export function metricCatalogue(metrics?: Record<string, MetricsSnapshot>): MetricDescription[] {
  requireLoaded();
  return core.metricCatalogue(metrics === undefined ? undefined : record(metrics, 'metrics')) as MetricDescription[];
}

export interface LogRecordInput {
  wallNowMs: number;
  operation: string;
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  error: { code: string; message: string } | null;
  strategy: string;
  outcome: LogOutcome;
  totalDurationMs: number;
}

/** A log record in the core's format (for hosts writing their own). */
export function logRecord(input: LogRecordInput): LogRecord {
  requireLoaded();
  const given = record<Record<string, unknown>>(input, 'input');
  const error = given.error === null || given.error === undefined ? undefined : record<Record<string, unknown>>(given.error, 'error');
  return core.logRecord(
    time(given.wallNowMs, 'wallNowMs'),
    text(given.operation, 'operation'),
    count(given.attempt, 'attempt'),
    count(given.maxAttempts, 'maxAttempts'),
    time(given.delayMs, 'delayMs'),
    error === undefined ? undefined : text(error.code, 'error.code'),
    error === undefined ? undefined : text(error.message, 'error.message'),
    text(given.strategy, 'strategy'),
    text(given.outcome, 'outcome'),
    time(given.totalDurationMs, 'totalDurationMs'),
  ) as LogRecord;
}

/** What a server's store holds for an idempotency key. */
export interface StoredEntry {
  fingerprint: string;
  state:
    | { kind: 'in_flight'; sinceUnixMs: number }
    | { kind: 'completed'; atUnixMs: number; status: number };
}

/** What a server does with a request that carries an idempotency key. */
export type ServerDecision =
  | { kind: 'proceed'; record: StoredEntry | null; replaces: boolean }
  | { kind: 'replay'; status: number }
  | {
      kind: 'refuse';
      refusal:
        | 'idempotency_key_missing'
        | 'idempotency_key_invalid'
        | 'idempotency_key_in_use'
        | 'idempotency_key_reused';
      /** The status to answer with: 400, 409 or 422. */
      status: 400 | 409 | 422;
      /** The problem text to answer with (the same in every language). */
      detail: string;
      retryAfterS: number | null;
    };

export interface ServerIdempotencyConfig {
  /** Refuse requests without a key (400). Default true. */
  requireKey?: boolean;
  /** How long a completed entry is replayed. Default 24 h. */
  ttlMs?: number;
  /** How long an in-flight entry blocks repeats (409) before it counts as abandoned. Default 60 s. */
  inFlightTimeoutMs?: number;
}

/**
 * The server half of the idempotency-key contract: proceed (recording the
 * entry first), replay the stored response, or refuse (400 missing, 409 in
 * use, 422 reused with another payload). Times are Unix milliseconds.
 */
export class ServerIdempotency extends Owned {
  private get inner(): core.CoreServerIdempotency {
    return this.live();
  }


  constructor(config: ServerIdempotencyConfig = {}) {
    requireLoaded();
    super(new core.CoreServerIdempotency(config));
  }

  decide(nowUnixMs: number, key: string | null, fingerprint: string, stored: StoredEntry | null): ServerDecision {
    return this.inner.decide(
      time(nowUnixMs, 'nowUnixMs'),
      optionalWellFormed(key, 'key'),
      wellFormed(fingerprint, 'fingerprint'),
      stored === null || stored === undefined ? null : record(stored, 'stored'),
    ) as ServerDecision;
  }
}

/** SHA-256 of the body's canonical JSON (RFC 8785), as lowercase hex. */
export function payloadFingerprint(bodyJson: string): string {
  requireLoaded();
  return core.payloadFingerprint(wellFormed(bodyJson, 'bodyJson'));
}
