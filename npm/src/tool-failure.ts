/**
 * The error a framework adapter's tool ends with when stoic will not retry
 * the call: its message, its text (`toString()`) and its JSON form are the
 * run's observation, so whichever way a framework shows a tool's error to
 * the model, the model reads the observation.
 */
import type { ToolReason, ToolResult } from './agents.js';
import { toolRetryLater } from './wasm/stoic_wasm.js';

/** A tool call stoic will not retry: its message is the observation, `result` the run's whole answer. */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
  /** Why the call ended (the core's code). */
  readonly reason: ToolReason | undefined;
  /** Whether the same call may succeed if made again later (the core's answer for `reason`). */
  readonly retryable: boolean;
  /** Milliseconds until trying again may make sense, when known. */
  readonly retryAfterMs: number | undefined;
  /** The tool call's idempotency key. */
  readonly key: string;
  /** The run's whole answer (its `error` is the tool's last error, for logs). */
  readonly result: ToolResult<unknown>;

  constructor(result: ToolResult<unknown>) {
    const given = result as Partial<ToolResult<unknown>> | null | undefined;
    if (typeof given !== 'object' || given === null || given.ok !== false || typeof given.observation !== 'string') {
      throw wrongType('new ToolFailure(result)', 'result', "a run's ToolResult of a failed call");
    }
    super(given.observation, { cause: given.error });
    this.reason = typeof given.reason === 'string' ? given.reason : undefined;
    this.retryable = retryable(this.reason);
    this.retryAfterMs = Number.isFinite(given.retryAfterMs) ? given.retryAfterMs : undefined;
    this.key = typeof given.key === 'string' ? given.key : '';
    this.result = result;
  }

  /** The observation (the AI SDK's text for a tool error is `String(error)`). */
  override toString(): string {
    return this.message;
  }

  /** The observation, where a framework sends a tool error as JSON. */
  toJSON(): string {
    return this.message;
  }
}

/** Whether a tool call that ended for `reason` may be made again later (the core's `retry_later`). */
export function retryable(reason: ToolReason | undefined): boolean {
  return typeof reason === 'string' && toolRetryLater(reason) === true;
}

/** A `TypeError` with the package's `code` and `field`, for an argument of the wrong kind. @internal */
export function wrongType(call: string, field: string, what: string): TypeError {
  return Object.assign(new TypeError(`${call}: ${field} must be ${what}`), { code: 'wrong_type', field });
}

