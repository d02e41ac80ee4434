/**
 * Errors. The wasm module throws real `Error` objects with `name`, `code`
 * and `field`: `ConfigError` for every config mistake (a wrong type, an
 * unknown key, a value out of range: the same class and codes as in
 * Python), `InputError` for data a pure helper or `restore()` rejects.
 * `ConfigError` and `InputError` below make `instanceof` work on them
 * (they test the name). `RetryError` is what a call that gave up throws.
 */
import type { GiveUp, GiveUpFields, StopReason } from './types.js';

function named(name: string) {
  return (value: unknown): boolean => value instanceof Error && value.name === name;
}

/** One problem of a config: its stable code, the field as you spelled it, why. */
export interface ConfigProblem {
  readonly code: string;
  readonly field: string;
  readonly message: string;
}

/**
 * A config the core rejected. `code` and `field` are the first problem's
 * (`field` as you spelled it); `problems` lists every one, and the message
 * says them all.
 */
export class ConfigError extends Error {
  declare readonly code: string;
  declare readonly field: string;
  declare readonly problems: readonly ConfigProblem[];
  static override [Symbol.hasInstance] = named('ConfigError');

  constructor(message?: string, options?: ErrorOptions) {
    super(printable(message), options);
    this.name = 'ConfigError';
  }
}

/** Data a pure helper rejected (`duplicate_key`, `lone_surrogate`, ...). */
export class InputError extends Error {
  declare readonly code: string;
  /** The parameter at fault, where one is (`scope`, `idempotencyKey`, ...). */
  declare readonly field?: string;
  static override [Symbol.hasInstance] = named('InputError');

  constructor(message?: string, options?: ErrorOptions) {
    super(printable(message), options);
    this.name = 'InputError';
  }
}

/**
 * An `InputError` with its `code` (and the parameter at fault as `field`,
 * where there is one): how the runtime raises one of its own.
 * @internal
 */
export function inputError(code: string, message: string, field?: string, options?: ErrorOptions): InputError {
  const error = Object.assign(new InputError(message, options), { code });
  return field === undefined ? error : Object.assign(error, { field });
}

/**
 * A message `Error` takes without throwing: text as it is; a symbol or any
 * other primitive as its text; an object by its tag (its own `toString`
 * could recurse without end, as a deeply nested array's does).
 */
function printable(message: unknown): string | undefined {
  if (message === undefined || typeof message === 'string') return message;
  if (typeof message === 'object' || typeof message === 'function') return Object.prototype.toString.call(message);
  return String(message);
}

/**
 * The call gave up: carries the core's decision (reason code, attempts,
 * observation). `cause` is the last error thrown by the attempt, if any;
 * `response` the last HTTP response, if the attempt returned one.
 */
export class RetryError extends Error {
  override readonly name = 'RetryError';
  /** The stop reason, as a stable code. */
  readonly code: StopReason;
  readonly reason: StopReason;
  readonly attempts: number;
  readonly totalMs: number;
  readonly observation: string;
  /** The full decision. */
  readonly decision: GiveUp;
  readonly response: Response | undefined;

  constructor(decision: GiveUp | (GiveUpFields & { kind: string }), cause?: unknown, response?: Response) {
    if (typeof decision !== 'object' || decision === null) {
      throw Object.assign(new TypeError('RetryError(decision): decision must be the engine\'s give-up object'), {
        code: 'wrong_type',
        field: 'decision',
      });
    }
    super(decision.observation, cause === undefined ? undefined : { cause });
    const giveUp: GiveUp = { ...decision, kind: 'give_up' };
    this.code = giveUp.reason;
    this.reason = giveUp.reason;
    this.attempts = giveUp.attempts;
    this.totalMs = giveUp.totalMs;
    this.observation = giveUp.observation;
    this.decision = giveUp;
    this.response = response;
  }
}
