/** The core's pure helpers: canonical JSON, idempotency keys, Retry-After, backoff. */
import * as core from './core.js';
import { text as textParam } from './guard.js';
import { packHeaders } from './headers.js';
import type { BackoffStrategy, HeadersLike, ServerHint } from './types.js';

/** JSON text of a value; non-finite numbers have no JSON form, so they throw. */
function jsonOf(value: unknown): string {
  const text = JSON.stringify(value, (_key, member: unknown) => {
    if (typeof member === 'number' && !Number.isFinite(member)) {
      const error = new TypeError(`${member} has no JSON form`);
      Object.assign(error, { code: 'number_out_of_range' });
      throw error;
    }
    if (typeof member === 'number' && Number.isInteger(member) && Math.abs(member) > 2 ** 53 && Math.abs(member) < 1e21) {
      // Between 2^53 and 1e21 JSON writes a number as an integer: it may be an
      // id the parser already rounded, so refuse it (past 1e21 it is written
      // as a float, 1e+21, and is one).
      const error = new TypeError(`${member} is beyond 2^53, where integers lose digits: pass it as a string`);
      Object.assign(error, { code: 'number_out_of_range' });
      throw error;
    }
    if (typeof member === 'bigint') {
      // A BigInt is exact; as a JSON number it would be a double standing for many integers.
      const error = new TypeError(`the BigInt ${member} has no exact JSON number form: pass it as a string`);
      Object.assign(error, { code: 'number_out_of_range' });
      throw error;
    }
    return member;
  });
  if (text === undefined) throw new TypeError('the value has no JSON form');
  return text;
}

/** RFC 8785 canonical JSON of a value (sorted members, ES6 number form). */
export function canonicalJson(value: unknown): string {
  return core.canonicalJsonExact(jsonOf(value));
}

/** RFC 8785 canonical form of JSON text (duplicate members, lone surrogates and huge numbers throw). */
export function canonicalizeJsonText(text: string): string {
  return core.canonicalJson(textParam(text, 'text'));
}

/**
 * The deterministic key of one logical operation: `{runId}:{step}:{hash}`,
 * the hash over the canonical JSON of `args`. The same in every process and
 * language that sees the same run, step and arguments.
 */
export function idempotencyKey(runId: string, step: string, args: unknown): string {
  return core.idempotencyKey(textParam(runId, 'runId'), textParam(step, 'step'), jsonOf(args));
}

/** `idempotencyKey` over arguments given as JSON text. */
export function idempotencyKeyFromText(runId: string, step: string, argsJson: string): string {
  return core.idempotencyKey(textParam(runId, 'runId'), textParam(step, 'step'), textParam(argsJson, 'argsJson'));
}

/** A random UUIDv4 key (from `crypto.getRandomValues`, or from 16 given bytes). */
export function randomKey(bytes?: Uint8Array): string {
  return core.randomKey(bytes);
}

/** The `Idempotency-Key` header value of a key: `bare` or `quoted` (RFC 8941). */
export function keyHeaderValue(key: string, form: 'bare' | 'quoted' = 'bare'): string {
  return core.keyHeaderValue(textParam(key, 'key'), textParam(form, 'form'));
}

/** The key in an `Idempotency-Key` header value, or null if malformed. */
export function parseKeyHeader(value: string): string | null {
  return core.parseKeyHeader(textParam(value, 'value')) ?? null;
}

/** A `Retry-After` value as a delay in ms (seconds or HTTP-date), or null. */
export function parseRetryAfter(value: string, nowMs: number = Date.now()): number | null {
  return core.parseRetryAfter(textParam(value, 'value'), nowMs) ?? null;
}

/** An HTTP-date as Unix seconds, or null (`nowS` resolves two-digit years). */
export function parseHttpDate(value: string, nowS?: number): number | null {
  return core.parseHttpDate(textParam(value, 'value'), nowS) ?? null;
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
  const wall = options.wallNowMs === undefined ? Date.now() : (options.wallNowMs ?? -1);
  return core.serverHint(packHeaders(headers) ?? '', wall, options.backoffMs ?? -1) as ServerHint | null;
}

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
export class Backoff {
  readonly #inner: core.CoreBackoff;

  constructor(options: BackoffOptions = {}) {
    this.#inner = new core.CoreBackoff(options);
  }

  delayMs(retry: number): number {
    return this.#inner.delayMs(retry);
  }
}
