/**
 * Checks at the edge of the module: a value that is not text never reaches a
 * text parameter of the wasm module (the glue would read it as a pointer
 * and trap), and comes back as a `TypeError` with a `code` and the
 * parameter's name, like every other input error of the package.
 * @internal
 */
import { inputError, type InputError } from './errors.js';

/** A value for a message: text quoted, anything else by its kind (never throws). */
export function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : describe(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function wrongType(name: string, expected: string, value: unknown): TypeError {
  const error = new TypeError(`${name} must be ${expected}, not ${describe(value)}`);
  Object.assign(error, { code: 'wrong_type', field: name });
  return error;
}

/** `value` if it is a string; else a `TypeError` naming `name`. */
export function text(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  throw wrongType(name, 'a string', value);
}

/** `value` if it is a number (a time, a duration, a count); else a `TypeError`. */
export function num(value: unknown, name: string): number {
  if (typeof value === 'number') return value;
  throw wrongType(name, 'a number', value);
}

/**
 * A time or duration in ms: a finite number from 0, below 2^53. A NaN, an
 * infinity or an absurd reading would become the policy's latest time and
 * freeze its clock (times never go backwards), so it is refused.
 */
export function time(value: unknown, name: string): number {
  if (typeof value !== 'number') throw wrongType(name, 'a number', value);
  if (Number.isFinite(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER) return value;
  throw outOfRange(name, `a finite number of ms from 0, below 2^53, not ${value}`);
}

/** A `RangeError` (code `out_of_range`) saying what `name` must be. */
function outOfRange(name: string, mustBe: string): RangeError {
  return Object.assign(new RangeError(`${name} must be ${mustBe}`), { code: 'out_of_range', field: name });
}

/** A whole count from 0 to 2^32 - 1 (a retry number). */
export function count(value: unknown, name: string): number {
  if (typeof value !== 'number') throw wrongType(name, 'a number', value);
  if (Number.isInteger(value) && value >= 0 && value <= 0xffffffff) return value;
  throw outOfRange(name, `a whole number from 0 to 2^32 - 1, not ${value}`);
}

/** `value` if it is a boolean. */
export function flag(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  throw wrongType(name, 'true or false', value);
}

/** `value` if it is an object literal (not an array, a `Map`, a class instance). */
export function plainObject<T extends object>(value: unknown, name: string): T {
  const proto = typeof value === 'object' && value !== null ? Object.getPrototypeOf(value) : undefined;
  if (proto === null || proto === Object.prototype) return value as T;
  throw wrongType(name, 'an object literal', value);
}

/** `value` if it is a non-null object (an options bag, a record). */
export function record<T extends object>(value: unknown, name: string): T {
  if (typeof value === 'object' && value !== null) return value as T;
  throw wrongType(name, 'an object', value);
}

/** `value` if it is a function. */
export function callable<T extends (...args: never[]) => unknown>(value: unknown, name: string): T {
  if (typeof value === 'function') return value as T;
  throw wrongType(name, 'a function', value);
}

/** An `AbortSignal` (anything with `aborted` and `addEventListener`), or undefined. */
export function optionalSignal(value: unknown, name: string): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const candidate = value as Partial<AbortSignal> | null;
  if (typeof candidate === 'object' && candidate !== null && typeof candidate.addEventListener === 'function') {
    return value as AbortSignal;
  }
  throw wrongType(name, 'an AbortSignal', value);
}

/** A `TypeError` with code `invalid_value` for a value outside a list of codes. */
export function invalidValue(message: string, field: string): TypeError {
  return Object.assign(new TypeError(message), { code: 'invalid_value', field });
}

/** An `InputError` with code `misuse` (an object used after it ended). */
export function misuse(message: string): InputError {
  return inputError('misuse', message);
}

/** An unpaired UTF-16 surrogate: a high one without its low half, or a low one alone. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `value` if it is well-formed text: for text whose identity matters (a
 * scope or operation name, a key, text that is hashed or parsed). Crossing
 * into wasm turns a lone surrogate into U+FFFD, which would make two texts
 * one (two scopes sharing a breaker, two runs one key), so it is refused
 * with an `InputError` (`lone_surrogate`), as in Python. Free text (an
 * error's detail, a header) stays lossy.
 */
export function wellFormed(value: unknown, name: string): string {
  const given = text(value, name);
  if (!LONE_SURROGATE.test(given)) return given;
  const message = `${name} holds an unpaired surrogate, which no UTF-8 text can carry; pass well-formed text`;
  throw inputError('lone_surrogate', message, name);
}

/** `value` if it is well-formed text, null or undefined. */
export function optionalWellFormed(value: unknown, name: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  return wellFormed(value, name);
}

/** `value` if it is a string, null or undefined. */
export function optionalText(value: unknown, name: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  return text(value, name);
}

/**
 * Snapshot or JSON text: a string as it is, or a plain object already
 * parsed (`await env.KV.get(key, 'json')`) as its JSON text.
 */
export function jsonText(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    try {
      const json = JSON.stringify(value);
      if (json !== undefined) return json;
    } catch {
      // A cyclic or BigInt-holding object: reported below.
    }
  }
  throw wrongType(name, 'JSON text or a plain object', value);
}

/** An HTTP status: an integer in 100..=999 (a code outside that is not HTTP). */
export function httpStatus(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 999) return value;
  if (typeof value !== 'number') throw wrongType('status', 'an integer HTTP status (100-999)', value);
  throw outOfRange('status', `an integer HTTP status (100-999), not ${value}`);
}

/**
 * Refuses option names `known` does not hold: a misspelt option would
 * otherwise be ignored. `call` names the function in the messages, `hint`
 * says where other settings go.
 */
export function knownOptions(options: unknown, known: Set<string>, call: string, hint = ''): void {
  if (typeof options !== 'object' || options === null) {
    throw Object.assign(new TypeError(`${call}: options must be an object`), { code: 'wrong_type', field: 'options' });
  }
  for (const name in options) {
    if (!known.has(name)) {
      const who = call.slice(0, call.indexOf('('));
      const near = [...known].find((k) => distance(k.toLowerCase(), name.toLowerCase()) <= 2);
      const guess = near === undefined ? '' : `; did you mean "${near}"?`;
      const error = new TypeError(`${who}: unknown option "${name}"${guess} (known: ${[...known].join(', ')}${hint})`);
      throw Object.assign(error, { code: 'unknown_field', field: name });
    }
  }
}

/** Each option a function takes: its check, or null for a value the engine checks itself. */
export type OptionSpec = Readonly<Record<string, OptionCheck | null>>;

/** An `OptionSpec` without a prototype, so `toString` or `constructor` is an unknown option, not a check. */
export function optionSpec(spec: Record<string, OptionCheck | null>): OptionSpec {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, OptionCheck | null>, spec));
}

/**
 * `knownOptions` and `checkOptions` in one walk over the keys given (the
 * hot path of `retry()`, which runs it on every call): an option `spec`
 * does not name is refused as unknown, and each set option is checked.
 */
export function checkedOptions(options: unknown, spec: OptionSpec, call: string, hint = ''): void {
  if (typeof options !== 'object' || options === null) {
    throw Object.assign(new TypeError(`${call}: options must be an object`), { code: 'wrong_type', field: 'options' });
  }
  for (const name in options) {
    const check = spec[name];
    if (check === undefined) knownOptions(options, new Set(Object.keys(spec)), call, hint);
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined && check !== null && check !== undefined) check(value, name);
  }
}

/** The edit distance of two short names (for "did you mean"). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/**
 * Refuses, in an object that may carry anybody's keys (a `RequestInit`), the
 * names that would silently do nothing: the ones `elsewhere` says belong
 * somewhere else, and near-misses (edit distance <= 2) of the names `own`
 * holds. Names in `others` (the object's own members) always pass.
 */
export function misplacedOptions(
  options: object,
  own: readonly string[],
  others: readonly string[],
  elsewhere: Map<string, string>,
  call: string,
): void {
  for (const name of Object.keys(options)) {
    if (own.includes(name) || others.includes(name)) continue;
    const where = elsewhere.get(name);
    const near = where === undefined ? own.find((o) => distance(o.toLowerCase(), name.toLowerCase()) <= 2) : undefined;
    if (where === undefined && near === undefined) continue;
    const error = new TypeError(
      where !== undefined ? `${call}: "${name}" ${where}` : `${call}: unknown option "${name}" (did you mean "${near}"?)`,
    );
    throw Object.assign(error, { code: 'unknown_field', field: name });
  }
}

/** A check of one option's value (throws a `TypeError` with a code). */
export type OptionCheck = (value: unknown, name: string) => unknown;

/**
 * Runs `checks` on the options that are set (undefined means absent).
 *
 * Walks the keys given (own and inherited, as reading `options.x` sees
 * them), not every check: a call passes none or a few, and this runs on
 * every `retry()` (walking all the checks was a sixth of its overhead).
 */
export function checkOptions(options: object, checks: Readonly<Record<string, OptionCheck>>): void {
  for (const name in options) {
    if (!Object.hasOwn(checks, name)) continue;
    const value = (options as Record<string, unknown>)[name];
    const check = checks[name];
    if (value !== undefined && check !== undefined) check(value, name);
  }
}

/** An HTTP header name (an RFC 9110 token). */
export function headerName(value: unknown, name: string): string {
  const given = text(value, name);
  if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(given)) return given;
  throw invalidValue(`${name} must be an HTTP header name, not ${JSON.stringify(given)}`, name);
}

/** One of `codes`. */
export function oneOf(codes: readonly string[]): OptionCheck {
  return (value, name) => {
    const given = text(value, name);
    if (codes.includes(given)) return given;
    throw invalidValue(`${name} must be one of ${codes.map((c) => JSON.stringify(c)).join(', ')}, not ${JSON.stringify(given)}`, name);
  };
}
