/**
 * Canonical JSON (RFC 8785) and the keys derived from content: what an
 * agent harness or a server needs to name one logical operation the same in
 * every process and language, a page included: both builds of the module
 * have them.
 */
import { requireLoaded } from './loaded.js';
import * as core from './wasm/stoic_wasm.js';
import { inputError } from './errors.js';
import { wellFormed } from './guard.js';

/** The most nesting a value may have (the core's bound for JSON text). */
const MAX_DEPTH = 128;

/**
 * Checks a value before it becomes JSON, bounded before it recurses: a value
 * nested deeper than the core accepts, one that contains itself, and values
 * JSON would silently drop or empty (functions, symbols, `undefined` members,
 * `Map`, `Set`) are refused, so two different values never share a key.
 */
function check(value: unknown, open: unknown[]): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw inputError('number_out_of_range', `${value} has no JSON form`);
    if (Number.isInteger(value) && Math.abs(value) > 2 ** 53 && Math.abs(value) < 1e21) {
      // Between 2^53 and 1e21 JSON writes a number as an integer: it may be an
      // id the parser already rounded (past 1e21 it is written as a float).
      throw inputError('number_out_of_range', `${value} is beyond 2^53, where integers lose digits: pass it as a string`);
    }
    return;
  }
  if (typeof value === 'bigint') {
    throw inputError('number_out_of_range', `the BigInt ${value} has no exact JSON number form: pass it as a string`);
  }
  if (typeof value !== 'object') throw inputError('invalid_json', `a ${typeof value} has no JSON form`);
  if (open.includes(value)) throw inputError('cyclic', 'the value contains itself; it has no JSON form');
  if (open.length >= MAX_DEPTH) throw inputError('too_deep', `the value is nested deeper than ${MAX_DEPTH} levels`);
  if (value instanceof Map || value instanceof Set) {
    throw inputError('invalid_json', `a ${value.constructor.name} has no JSON form (JSON would write it as {})`);
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return; // a Date, say: JSON's own form
  open.push(value);
  if (Array.isArray(value)) {
    for (const item of value) check(item ?? null, open);
  } else {
    for (const item of Object.values(value)) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        throw inputError('invalid_json', `a member that is ${typeof item} has no JSON form`);
      }
      check(item, open);
    }
  }
  open.pop();
}

/** JSON text of a value, checked first (see `check`). */
function jsonOf(value: unknown): string {
  check(value, []);
  const text = JSON.stringify(value);
  if (text === undefined) throw inputError('invalid_json', 'the value has no JSON form');
  return text;
}

/** RFC 8785 canonical JSON of a value (sorted members, ES6 number form). */
export function canonicalJson(value: unknown): string {
  requireLoaded();
  return core.canonicalJsonExact(jsonOf(value));
}

/** RFC 8785 canonical form of JSON text (duplicate members, lone surrogates and huge numbers throw). */
export function canonicalizeJsonText(text: string): string {
  requireLoaded();
  return core.canonicalJson(wellFormed(text, 'text'));
}

/**
 * The deterministic key of one logical operation: `{runId}:{step}:{hash}`,
 * the hash over the canonical JSON of `args`. The same in every process and
 * language that sees the same run, step and arguments.
 */
export function idempotencyKey(runId: string, step: string, args: unknown): string {
  requireLoaded();
  return core.idempotencyKey(wellFormed(runId, 'runId'), wellFormed(step, 'step'), jsonOf(args));
}

/** `idempotencyKey` over arguments given as JSON text. */
export function idempotencyKeyFromText(runId: string, step: string, argsJson: string): string {
  requireLoaded();
  return core.idempotencyKey(wellFormed(runId, 'runId'), wellFormed(step, 'step'), wellFormed(argsJson, 'argsJson'));
}
