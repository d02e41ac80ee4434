/** The core's pure helpers a client needs: random keys and their header, Retry-After and server hints. */
import { requireLoaded } from './loaded.js';
import * as core from './wasm/stoic_wasm.js';
import { record, text as textParam, time, wellFormed } from './guard.js';
import { packHeaders } from './headers.js';
import type { HeadersLike, ServerHint } from './types.js';

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
  return core.keyHeaderValue(wellFormed(key, 'key'), textParam(form, 'form'));
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
