/**
 * Translating what JavaScript throws into the core's outcome vocabulary.
 * This is the host's knowledge (what `ECONNREFUSED` or fetch's `TypeError`
 * means about whether a request left); what to do about it is the core's.
 */
import type { NetworkErrorKind, Outcome } from './types.js';

/** Node and undici error codes -> where the failure happened. */
const CODES: Record<string, NetworkErrorKind> = {
  ECONNREFUSED: 'connect_refused',
  EHOSTUNREACH: 'connect_refused',
  ENETUNREACH: 'connect_refused',
  EHOSTDOWN: 'connect_refused',
  ENOTFOUND: 'dns_failure',
  EAI_AGAIN: 'dns_failure',
  ETIMEDOUT: 'connect_timeout',
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'read_timeout',
  UND_ERR_BODY_TIMEOUT: 'read_timeout',
  // A reset or a closed socket: the request may or may not have arrived.
  ECONNRESET: 'unknown',
  EPIPE: 'unknown',
  ECONNABORTED: 'unknown',
  UND_ERR_SOCKET: 'unknown',
  UND_ERR_CLOSED: 'unknown',
};

/** What browsers' and Node's `fetch` reject with on a network failure. */
const FETCH_FAILED =
  /^(fetch failed|failed to fetch|networkerror when attempting to fetch resource\.?|load failed|network request failed|terminated)$/i;

interface Coded {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

function networkCode(error: unknown): NetworkErrorKind | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as Coded).code;
    if (typeof code === 'string' && Object.hasOwn(CODES, code)) return CODES[code];
    current = (current as Coded).cause;
  }
  return undefined;
}

function message(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return String(error);
  } catch {
    return 'unprintable value';
  }
}

/**
 * The outcome an exception stands for:
 * - a network error code anywhere in the `cause` chain -> its kind;
 * - `TimeoutError` (`AbortSignal.timeout`, an attempt timeout) -> `read_timeout`;
 * - fetch's network `TypeError` -> `unknown` (may have been sent);
 * - other `TypeError`, `ReferenceError`, `SyntaxError`, `RangeError` and
 *   `AbortError` -> rejected as deterministic (a bug or a cancellation does
 *   not heal by waiting);
 * - anything else -> rejected as transient (the caller asked for retries).
 */
export function outcomeOfError(error: unknown): Outcome {
  const detail = message(error);
  const kind = networkCode(error);
  if (kind !== undefined) return { kind: 'network', network: kind, detail };
  const name = (error as Coded | null)?.name;
  if (name === 'TimeoutError') return { kind: 'network', network: 'read_timeout', detail };
  if (error instanceof TypeError && FETCH_FAILED.test(error.message)) {
    return { kind: 'network', network: 'unknown', detail };
  }
  if (
    error instanceof TypeError ||
    error instanceof ReferenceError ||
    error instanceof SyntaxError ||
    error instanceof RangeError ||
    name === 'AbortError'
  ) {
    return { kind: 'rejected', class: 'deterministic', detail };
  }
  return { kind: 'rejected', class: 'transient', detail };
}
