/**
 * stoic: decides what to do when a call fails.
 *
 * The engine (Rust, compiled to WebAssembly) classifies each failure, picks
 * the wait (jittered backoff or the server's hint), keeps one idempotency
 * key across retries, consults the circuit breaker and the retry budget,
 * and keeps the call inside its deadline. This runtime sleeps, calls and
 * translates. Import the package itself: its entry point for your runtime
 * (Node, browser, workerd) loads the module first.
 */
export { retry, defaultPolicy, type RetryOptions, type RetryInfo } from './retry.js';
export { createFetch, type FetchOptions, type StoicFetch, type StoicRequestInit } from './fetch.js';
export { Policy, Call, type PolicyOptions, type HostOptions, type CallSpec } from './policy.js';
export type { Attempt } from './attempt.js';
export { ConfigError, InputError, RetryError } from './errors.js';
export type { ConfigProblem } from './errors.js';
export { outcomeOfError } from './classify.js';
export {
  Backoff,
  canonicalJson,
  canonicalizeJsonText,
  idempotencyKey,
  idempotencyKeyFromText,
  keyHeaderValue,
  parseHttpDate,
  parseKeyHeader,
  parseRetryAfter,
  randomKey,
  serverHint,
  type BackoffOptions,
} from './helpers.js';
export {
  CircuitBreaker,
  Metrics,
  RetryBudget,
  logRecord,
  mergeMetrics,
  payloadFingerprint,
  ServerIdempotency,
  type Admit,
  type AlertEvent,
  type BudgetAnswer,
  type BudgetEvent,
  type LogRecordInput,
  type Permit,
  type RetryCost,
  type RetryTicket,
  type ServerDecision,
  type ServerIdempotencyConfig,
  type StoredEntry,
} from './components.js';
export { sleep } from './clock.js';
export type * from './types.js';
