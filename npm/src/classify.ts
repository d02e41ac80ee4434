/**
 * Translating what JavaScript throws into the core's outcome vocabulary.
 * The tables (error codes -> network kinds, the class of an unknown error)
 * are the core's host policy, read once from the module; this file only
 * knows where JavaScript keeps those facts on an error object.
 */
import { hostPolicy, isFailureStatus } from './wasm/stoic_wasm.js';
import { requireLoaded } from './loaded.js';
import type { NetworkErrorKind, Outcome, OutcomeClass } from './types.js';

interface HostPolicy {
  errorCodes: Record<string, NetworkErrorKind>;
  unknownErrorClass: OutcomeClass;
  keyHeader: string;
  keyForm: 'bare' | 'quoted';
  defaultOperation: string;
  fetchRefusals: string[];
  httpDefaults: { keys: boolean; serverDeduplicates: boolean };
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
  headers?: unknown;
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

/**
 * Headers as fetch's `Headers`, or copied from what else an error carries:
 * a `Map` or another iterable of pairs (another realm's `Headers`, axios'
 * `AxiosHeaders`), or a plain object (got); a value may be a string, a
 * number or an array of them (a repeated header).
 */
function headersOf(value: unknown): Headers | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (value instanceof Headers) return value;
  const headers = new Headers();
  try {
    const entries = Symbol.iterator in value ? (value as Iterable<[string, unknown]>) : Object.entries(value);
    for (const [name, v] of entries) {
      for (const item of Array.isArray(v) ? (v as unknown[]) : [v]) {
        if (typeof item === 'string' || typeof item === 'number') headers.append(name, String(item));
      }
    }
  } catch {
    // A header name or value a Headers object refuses: the status still counts.
  }
  return headers;
}

/**
 * The HTTP answer an error carries, the way the ecosystem's clients attach
 * it: `error.response.status` with `error.response.headers` (ky's
 * `HTTPError`, axios), or `error.status` / `error.statusCode` with
 * `error.headers` (the OpenAI and Anthropic SDKs' `APIError`, fetch
 * wrappers, got, Node SDKs). The headers make it the answer it was: a 429's
 * `Retry-After` or `retry-after-ms` is the wait, `x-should-retry: false` a
 * refusal.
 */
function statusOutcome(error: unknown): Outcome | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const coded = error as Coded;
  const response = typeof coded.response === 'object' && coded.response !== null ? coded.response : undefined;
  const fromResponse = httpStatus(response?.status);
  const status = fromResponse ?? httpStatus(coded.status) ?? httpStatus(coded.statusCode);
  // A 2xx or 3xx on an error (a 304 a client throws, a parse error on a
  // 200) is no failure of the server's: the error is the caller's own.
  if (status === undefined || !isFailureStatus(status)) return undefined;
  // The headers of the answer whose status this is: the response's, or
  // (a status on the error itself) the error's own, else the response's.
  const headers = fromResponse !== undefined ? response?.headers : (coded.headers ?? response?.headers);
  // No detail: the error's message is the client's words, not the server's body.
  return { kind: 'status', status, headers: headersOf(headers) };
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
 * - an HTTP status on the error (ky, axios, got, the model SDKs' `APIError`)
 *   -> that status, with the headers it carries (the response's, or the
 *   error's own `headers`), so `Retry-After` and `retry-after-ms` count;
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
    // The causes Node's fetch gives a request it will never send as asked
    // (the core's table); browsers say only "Failed to fetch".
    if (typeof cause?.message === 'string' && hostTables().fetchRefusals.includes(cause.message)) {
      return { kind: 'network', network: 'refused_locally', detail: `fetch refused the request (${cause.message})` };
    }
    return { kind: 'network', network: 'unknown', detail };
  }
  return statusOutcome(error) ?? { kind: 'error', class: hostTables().unknownErrorClass, detail };
}
