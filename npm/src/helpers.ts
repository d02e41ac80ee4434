/** The core's pure helpers: canonical JSON, idempotency keys, Retry-After and server hints. */
import { requireLoaded } from './loaded.js';
import * as core from './core.js';
import { record, text as textParam, time } from './guard.js';
import { packHeaders } from './headers.js';
import type { HeadersLike, ServerHint } from './types.js';

/** The most nesting a value may have (the core's bound for JSON text). */
const MAX_DEPTH = 128;

function inputError(code: string, message: string): Error {
  const error = new Error(message);
  error.name = 'InputError';
  return Object.assign(error, { code });
}

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
  return core.canonicalJson(textParam(text, 'text'));
}

/**
 * The deterministic key of one logical operation: `{runId}:{step}:{hash}`,
 * the hash over the canonical JSON of `args`. The same in every process and
 * language that sees the same run, step and arguments.
 */
export function idempotencyKey(runId: string, step: string, args: unknown): string {
  requireLoaded();
  return core.idempotencyKey(textParam(runId, 'runId'), textParam(step, 'step'), jsonOf(args));
}

/** `idempotencyKey` over arguments given as JSON text. */
export function idempotencyKeyFromText(runId: string, step: string, argsJson: string): string {
  requireLoaded();
  return core.idempotencyKey(textParam(runId, 'runId'), textParam(step, 'step'), textParam(argsJson, 'argsJson'));
}

/** A random UUIDv4 key (from `crypto.getRandomValues`, or from 16 given bytes). */
export function randomKey(bytes?: Uint8Array): string {
  requireLoaded();
  if (bytes !== undefined && !(bytes instanceof Uint8Array)) {
    throw Object.assign(new TypeError('bytes must be a Uint8Array of 16 bytes'), { code: 'wrong_type', field: 'bytes' });
  }
  return core.randomKey(bytes);
}

/** The `Idempotency-Key` header value of a key: `bare` or `quoted` (RFC 8941). */
export function keyHeaderValue(key: string, form: 'bare' | 'quoted' = 'bare'): string {
  requireLoaded();
  return core.keyHeaderValue(textParam(key, 'key'), textParam(form, 'form'));
}

/** The key in an `Idempotency-Key` header value, or null if malformed. */
export function parseKeyHeader(value: string): string | null {
  requireLoaded();
  return core.parseKeyHeader(textParam(value, 'value')) ?? null;
}

/** A `Retry-After` value as a delay in ms (seconds or HTTP-date), or null. */
export function parseRetryAfter(value: string, nowMs: number = Date.now()): number | null {
  requireLoaded();
  return core.parseRetryAfter(textParam(value, 'value'), time(nowMs, 'nowMs')) ?? null;
}

/** An HTTP-date as Unix seconds, or null (`nowS` resolves two-digit years). */
export function parseHttpDate(value: string, nowS?: number): number | null {
  requireLoaded();
  return core.parseHttpDate(textParam(value, 'value'), nowS === undefined ? undefined : time(nowS, 'nowS')) ?? null;
}

/**
 * The server's retry hint in response headers, or null. With `backoffMs`,
 * the result also says which delay the policy would use
 * (`delayWithBackoffMs`, null when the server refused retries).
 */
export function serverHint(
  headers: HeadersLike,
  options: { wallNowMs?: number | null; backoffMs?: number } = {},
): (ServerHint & { delayWithBackoffMs?: number | null }) | null {
  requireLoaded();
  const given = record<{ wallNowMs?: unknown; backoffMs?: unknown }>(options, 'options');
  const wall = given.wallNowMs === undefined ? Date.now() : given.wallNowMs === null ? -1 : time(given.wallNowMs, 'wallNowMs');
  const backoff = given.backoffMs === undefined ? -1 : time(given.backoffMs, 'backoffMs');
  return core.serverHint(packHeaders(headers) ?? '', wall, backoff) as ServerHint | null;
}
