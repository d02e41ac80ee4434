/**
 * Translating what JavaScript throws into the core's outcome vocabulary.
 * The tables (error codes -> network kinds, the class of an unknown error)
 * are the core's host policy, read once from the module; this file only
 * knows where JavaScript keeps those facts on an error object.
 */
import { hostPolicy } from './wasm/stoic_wasm.js';
import { requireLoaded } from './loaded.js';
import type { NetworkErrorKind, Outcome, OutcomeClass } from './types.js';

interface HostPolicy {
  errorCodes: Record<string, NetworkErrorKind>;
  unknownErrorClass: OutcomeClass;
  keyHeader: string;
  keyForm: 'bare' | 'quoted';
  defaultOperation: string;
}

let host: HostPolicy | undefined;

/** The core's host policy (read on first use: the module is loaded by then). @internal */
export function hostTables(): HostPolicy {
  if (host === undefined) {
    requireLoaded();
    host = hostPolicy() as HostPolicy;
  }
  return host;
}

/**
 * The causes Node's `fetch` (undici) gives a request it will never send as
 * asked: a port the fetch standard blocks, a scheme it does not speak, a
 * redirect under `redirect: 'error'`. (Browsers say only "Failed to fetch".)
 */
const REFUSED_BY_FETCH: ReadonlySet<string> = new Set(['bad port', 'unknown scheme', 'unexpected redirect']);

/** What browsers' and Node's `fetch` reject with on a network failure. */
const FETCH_FAILED =
  /^(fetch failed|failed to fetch|networkerror when attempting to fetch resource\.?|load failed|network request failed|terminated)$/i;

interface Coded {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  status?: unknown;
  statusCode?: unknown;
  response?: { status?: unknown; headers?: unknown } | null;
}

/** A network error code on the error or a few levels down its `cause` chain (undici and many clients wrap the socket error). */
function networkCode(error: unknown): NetworkErrorKind | undefined {
  const codes = hostTables().errorCodes;
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as Coded).code;
    if (typeof code === 'string' && Object.hasOwn(codes, code)) return codes[code];
    current = (current as Coded).cause;
  }
  return undefined;
}

function httpStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 999 ? value : undefined;
}

/** Headers as fetch's `Headers`, or a plain object (axios, got): whatever the error carries. */
function headersOf(value: unknown): Headers | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (typeof (value as Headers).get === 'function' && typeof (value as Headers).forEach === 'function') {
    return value as Headers;
  }
  const headers = new Headers();
  try {
    for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === 'string') headers.append(name, v);
      else if (typeof v === 'number') headers.append(name, String(v));
      else if (Array.isArray(v)) for (const item of v) if (typeof item === 'string') headers.append(name, item);
    }
  } catch {
    // A header name or value a Headers object refuses: the status still counts.
  }
  return headers;
}

/**
 * The HTTP status an error carries, the way the ecosystem's clients attach
 * it: `error.response.status` (ky's `HTTPError`, axios), `error.status`
 * (ky, fetch wrappers, SDKs), `error.statusCode` (got, Node SDKs).
 */
function statusOutcome(error: unknown): Outcome | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const coded = error as Coded;
  const response = typeof coded.response === 'object' && coded.response !== null ? coded.response : undefined;
  const status = httpStatus(response?.status) ?? httpStatus(coded.status) ?? httpStatus(coded.statusCode);
  if (status === undefined) return undefined;
  // No detail: the error's message is the client's words, not the server's body.
  return { kind: 'status', status, headers: headersOf(response?.headers) };
}

function message(error: unknown): string {
  try {
    if (!(error instanceof Error)) return String(error);
    // fetch's own message is only "fetch failed": why is in its cause.
    const cause = error.cause;
    const why = cause instanceof Error && !error.message.includes(cause.message) ? ` (${cause.message})` : '';
    return `${error.name}: ${error.message}${why}`;
  } catch {
    return 'unprintable value';
  }
}

/**
 * The outcome an exception stands for:
 * - a network error code anywhere in the `cause` chain -> its kind (the
 *   core's table);
 * - `TimeoutError` (`AbortSignal.timeout`, an attempt timeout) -> `read_timeout`;
 * - fetch's network `TypeError` -> `unknown` (may have been sent);
 * - an HTTP status on the error (ky, axios, got, SDK errors) -> that status,
 *   with the response's headers, so `Retry-After` counts;
 * - anything else (a bug, an `AbortError`) -> an error of the core's
 *   unknown-error class (deterministic: it does not heal by waiting).
 */
export function outcomeOfError(error: unknown): Outcome {
  const detail = message(error);
  const kind = networkCode(error);
  if (kind !== undefined) return { kind: 'network', network: kind, detail };
  const name = (error as Coded | null)?.name;
  if (name === 'TimeoutError') return { kind: 'network', network: 'read_timeout', detail };
  if (error instanceof TypeError && FETCH_FAILED.test(error.message)) {
    // A request fetch refuses before sending it, or a redirect meeting
    // `redirect: 'error'`: the same request fails the same way every time.
    const cause = (error as Coded).cause as Coded | undefined;
    if (typeof cause?.message === 'string' && REFUSED_BY_FETCH.has(cause.message)) {
      const refused = `fetch refused the request (${cause.message}): the same request fails the same way`;
      return { kind: 'error', class: 'deterministic', detail: refused };
    }
    return { kind: 'network', network: 'unknown', detail };
  }
  return statusOutcome(error) ?? { kind: 'error', class: hostTables().unknownErrorClass, detail };
}
