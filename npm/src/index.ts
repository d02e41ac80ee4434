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
export * from './client.js';
import { runHedged, startHedged } from './hedge.js';
import { useHedging } from './hedging.js';

// Hedged calls: in every entry but the browser's, whose client module
// leaves them out (there a `hedging` option is refused with not_in_build).
useHedging({ start: startHedged, run: runHedged });
export { withPolicy, type PolicyStore, type WithPolicyOptions } from './edge.js';
export {
  Backoff,
  CircuitBreaker,
  Metrics,
  RetryBudget,
  logRecord,
  mergeMetrics,
  metricCatalogue,
  payloadFingerprint,
  ServerIdempotency,
  type Admit,
  type BackoffOptions,
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
