/**
 * What a client needs, and all the browser entry ships: `retry`,
 * `createFetch`, `Policy` and its calls, the errors, hints, idempotency keys
 * (random, and derived from content: an agent's `{runId}:{step}:{hash}` is
 * the same key in a page as in Node and Python) and their header, and the
 * agent `Run`. The browser entry loads the client build of the module, which
 * leaves out the standalone parts, server-side idempotency and policy
 * snapshots; every other entry (Node, workerd, inline, init, `stoic/full`)
 * exports those too (`./index.ts`).
 */
export { retry, defaultPolicy, type RetryOptions, type RetryInfo, type GiveUpInfo } from './retry.js';
export { createFetch, type FetchOptions, type StoicFetch, type StoicRequestInit } from './fetch.js';
export { Policy, Call, type PolicyOptions, type HostOptions, type CallSpec } from './policy.js';
export type { Attempt } from './attempt.js';
export { ConfigError, InputError, RetryError } from './errors.js';
export type { ConfigProblem } from './errors.js';
export { outcomeOfError } from './classify.js';
export {
  keyHeaderValue,
  parseHttpDate,
  parseKeyHeader,
  parseRetryAfter,
  randomKey,
  serverHint,
} from './helpers.js';
export { canonicalJson, canonicalizeJsonText, idempotencyKey, idempotencyKeyFromText } from './canonical.js';
export {
  Run,
  toolReasonOf,
  type RunOptions,
  type ToolCall,
  type ToolCallOptions,
  type ToolReason,
  type ToolResult,
} from './agents.js';
export { sleep } from './clock.js';
export { isActive, isTesting, setActive, setTesting, type TestingOptions } from './testing.js';
export type * from './types.js';
