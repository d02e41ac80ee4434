/**
 * `createFetch()`: a `fetch` that retries what the engine says to retry.
 *
 * Per request it starts one call (scope: the URL's host), adds an
 * `Idempotency-Key` header to non-idempotent requests (one key, the same on
 * every attempt), bounds each attempt with the plan's timeout (which the
 * core keeps within the total deadline) through an `AbortSignal`, reports
 * the status with the response headers (so `Retry-After` and the other
 * hints count) and a body excerpt, lets the caller validate a 2xx body, and
 * returns the final `Response` or throws a `RetryError` carrying the
 * decision and the last response.
 */
import { AttemptContext } from './attempt.js';
import { sleep as defaultSleep } from './clock.js';
import { outcomeOfError } from './classify.js';
import { isIdempotentMethod, keyHeaderValue, parseKeyHeader, randomKey } from './core.js';
import { RetryError } from './errors.js';
import { checked, Policy, report, startNamed } from './policy.js';
import { defaultPolicy } from './retry.js';
import type { GiveUp, Outcome, Rejection, Retry } from './types.js';

export interface FetchOptions {
  /** Shared state and config (default: the shared default policy). */
  policy?: Policy;
  /** The underlying fetch (default: `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** How to wait (default: `setTimeout`). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The key header's name (default `Idempotency-Key`). */
  keyHeader?: string;
  /** `bare` (Stripe-style, the default) or `quoted` (RFC 8941 sf-string, the IETF draft). */
  keyForm?: 'bare' | 'quoted';
  /** The scope of a request (default: the URL's host). */
  scope?: (url: URL) => string;
  /** Checks a 2xx response (read a clone if you read the body); a `Rejection` fails the attempt. */
  validate?: (response: Response) => Rejection | undefined | void | PromiseLike<Rejection | undefined | void>;
  /** Called before each wait with the decision. */
  onRetry?: (info: { decision: Retry; error: unknown; response: Response | undefined }) => void;
}

export interface StoicRequestInit extends RequestInit {
  /** A name for records (default: `METHOD /path`). */
  operation?: string;
  /** Overrides the scope for this request. */
  scope?: string;
  /** The idempotency key (default: a random UUID for non-idempotent methods). */
  idempotencyKey?: string;
  /** Overrides the factory's validator for this request. */
  validate?: FetchOptions['validate'];
}

export type StoicFetch = (input: RequestInfo | URL, init?: StoicRequestInit) => Promise<Response>;

/** Reads at most `maxChars` characters of a response body, for the observation. */
async function excerpt(response: Response, maxChars: number): Promise<string | undefined> {
  if (maxChars === 0 || response.body === null) return undefined;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < maxChars) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body that fails mid-read still has its status to report.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text.length > 0 ? text : undefined;
}

export function createFetch(options: FetchOptions = {}): StoicFetch {
  const keyHeader = options.keyHeader ?? 'Idempotency-Key';
  const keyForm = options.keyForm ?? 'bare';
  return async function stoicFetch(input, init = {}) {
    const policy = options.policy ?? defaultPolicy();
    const core = policy.core;
    const now = policy.now;
    const send = options.fetch ?? globalThis.fetch;
    const { operation, scope, idempotencyKey, validate = options.validate, ...requestInit } = init;
    const request = input instanceof Request ? input : undefined;
    // Relative URLs resolve against the page, as the browser's fetch does.
    const base = (globalThis as { location?: { href: string } }).location?.href;
    const url = new URL(request?.url ?? String(input), base);
    const method = (requestInit.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(requestInit.headers ?? request?.headers);
    const idempotent = isIdempotentMethod(method);

    let key = idempotencyKey ?? parseKeyHeader(headers.get(keyHeader) ?? '') ?? undefined;
    if (key === undefined && !idempotent) key = randomKey(undefined);
    if (key !== undefined && !headers.has(keyHeader)) headers.set(keyHeader, keyHeaderValue(key, keyForm));

    // A stream body can be sent once; buffer it so every attempt sends the same bytes.
    let body = requestInit.body;
    if (body instanceof ReadableStream || (body === undefined && request?.body)) {
      body = await new Response(body ?? request?.body).arrayBuffer();
    }

    const signal = requestInit.signal ?? request?.signal ?? undefined;
    signal?.throwIfAborted();
    const handle = startNamed(
      policy,
      now(),
      operation ?? `${method} ${url.pathname}`,
      scope ?? options.scope?.(url) ?? url.host,
      idempotent,
      key,
    );
    let error: unknown;
    let response: Response | undefined;
    try {
      for (;;) {
        const attempt = checked(core.beforeAttempt(handle, now()));
        if (attempt === 0) throw new RetryError(core.admission() as GiveUp, error, response);
        const context = new AttemptContext(attempt, policy.plan.timeoutMs, key ?? null, signal ?? undefined);
        let outcome: Outcome;
        try {
          response = await send(url, { ...requestInit, method, headers, body, signal: context.signal });
          error = undefined;
          outcome = await judge(response, validate, core.maxExcerptChars());
        } catch (thrown) {
          if (signal?.aborted) {
            core.cancel(handle, now());
            throw signal.reason;
          }
          error = thrown;
          response = undefined;
          outcome = context.timedOut
            ? { kind: 'network', network: 'read_timeout', detail: 'the attempt timed out' }
            : outcomeOfError(thrown);
        } finally {
          context.done();
        }
        const kind = report(policy, handle, outcome, now());
        if (kind === 0 && response !== undefined) return response;
        // The decision and its delay live in the module's shared slots until
        // the next call on this policy decides: read them before any await.
        const decision = core.decision();
        if (kind === 2) throw new RetryError(decision as GiveUp, error, response);
        const delayMs = core.delayMs();
        options.onRetry?.({ decision: decision as Retry, error, response });
        if (response?.body) await response.body.cancel().catch(() => undefined);
        policy.flush();
        try {
          await (options.sleep ?? defaultSleep)(delayMs, signal ?? undefined);
        } catch (reason) {
          if (signal?.aborted) core.cancel(handle, now());
          throw reason;
        }
      }
    } finally {
      core.close(handle);
      policy.flush();
    }
  };
}

/** The outcome of a response: a validator's rejection of a 2xx, or its status. */
async function judge(
  response: Response,
  validate: FetchOptions['validate'],
  maxChars: number,
): Promise<Outcome> {
  if (response.ok && validate !== undefined) {
    const rejection = await validate(response);
    if (rejection) return { kind: 'rejected', class: rejection.class, detail: rejection.detail };
  }
  const detail = response.ok ? undefined : await excerpt(response.clone(), maxChars);
  return { kind: 'status', status: response.status, headers: response.headers, detail };
}
