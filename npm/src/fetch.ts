/**
 * `createFetch()`: a `fetch` that retries what the engine says to retry.
 *
 * Per request it asks the core's HTTP plan how to run it (operation
 * `METHOD /path`, scope: the URL's host, whether it is safe to repeat,
 * whether to add a key), bounds each attempt with the plan's timeout
 * through an `AbortSignal`, reads the body inside the attempt (so a body cut
 * off mid-read is a failure of that attempt, and the timeout and the
 * caller's signal cover it), reports the status with the response headers
 * and a body excerpt, lets the caller validate a 2xx, and returns the final
 * `Response` or throws a `RetryError` carrying the decision and the last
 * response. The loop is `runCall` (loop.ts), the one `retry()` runs too.
 *
 * **Safety rule:** a request that may have been applied (POST, PATCH) is
 * repeated only when the caller gave an idempotency key or declared that the
 * server deduplicates on the key header (`serverDeduplicates: true`); the
 * automatic key alone never makes it safe.
 */
import type { Attempt } from './attempt.js';
import { resendMarker, type ResendMarker } from './tracing.js';
import { refusedCrossOriginHint } from './cors.js';
import { hostTables, outcomeOfError } from './classify.js';
import { isEventStream, keyHeaderValue, nestedRetryHeader, parseKeyHeader, randomKey, validatesStatus, wantsExcerpt } from './wasm/stoic_wasm.js';
import { type HttpPlan, planOf } from './http-plan.js';
import {
  callable,
  checkedOptions,
  checkOptions,
  flag,
  headerName,
  misplacedOptions,
  oneOf,
  type OptionCheck,
  record,
  type OptionSpec,
  optionSpec,
  text,
} from './guard.js';
import { type GiveUpInfo, type RetryInfo, runCall, type Steps } from './loop.js';
import { type Policy, policyOption, startNamed } from './policy.js';
import { currentToolCall, nextWriteKey } from './run-context.js';

/** The header a model SDK marks its own retries with (the core's host rule), read once the module is loaded. */
let nestedHeader: string | undefined;
import { defaultPolicy } from './retry.js';
import { switches } from './testing.js';
import type { HedgeInfo, HedgingConfig, Outcome, Rejection } from './types.js';
import { type HedgedSpec, hedgedRunner } from './hedging.js';

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
  /**
   * Add a random key to POST/PATCH requests that have none (default true).
   * The key is sent, but it does not make the request safe to repeat unless
   * `serverDeduplicates` is set.
   */
  keys?: boolean;
  /**
   * The server deduplicates on the key header (it honours `Idempotency-Key`):
   * keyed non-idempotent requests may then be repeated after ambiguous
   * failures. Default false: most servers ignore the header.
   */
  serverDeduplicates?: boolean;
  /**
   * Return responses without reading their body inside the attempt (for
   * streaming). The attempt timeout then stops when the headers arrive; the
   * caller's signal still covers the body. Default false.
   */
  stream?: boolean;
  /** The scope of a request (default: the URL's host). */
  scope?: (url: URL) => string;
  /** Checks a 2xx response (read it freely; with `stream`, read a clone); a `Rejection` fails the attempt. */
  validate?: (response: Response) => Rejection | undefined | void | PromiseLike<Rejection | undefined | void>;
  /** Called before each wait with the decision. */
  onRetry?: (info: RetryInfo) => void | PromiseLike<void>;
  /** Called when the engine stops a request that did not succeed, before it rejects. */
  onGiveUp?: (info: GiveUpInfo) => void | PromiseLike<void>;
  /**
   * When the engine stops on a response that failed (a 404, a 503 on the
   * last attempt), resolve with that response instead of rejecting with
   * `RetryError` (default false): for clients that judge statuses
   * themselves, such as axios and ky's `throwHttpErrors`. `onGiveUp` still
   * sees the decision; a call that ends without a response still rejects.
   */
  returnFailedResponses?: boolean;
  /**
   * Sends copies of a slow request, the first response winning, and aborts
   * the others (`stoic/full`). Only requests safe to repeat are hedged (a
   * GET, or a request with an idempotency key the engine trusts); the
   * others run as usual. `null`: not hedged.
   */
  hedging?: HedgingConfig | null;
  /** Called when a hedge (a copy after the first) goes out. */
  onHedge?: (info: HedgeInfo) => void;
}

export interface StoicRequestInit extends RequestInit {
  /** A name for records (default: `METHOD /path`). */
  operation?: string;
  /** Overrides the scope for this request. */
  scope?: string;
  /** The idempotency key: the caller vouches that the server honours it, so the request may be repeated. */
  idempotencyKey?: string;
  /** Overrides the factory's validator for this request. */
  validate?: FetchOptions['validate'];
  /** Overrides the factory's `stream` for this request. */
  stream?: boolean;
  /**
   * Overrides the factory's `hedging` for this request (`false`: not
   * hedged); a request that asks for it and is not safe to repeat is
   * refused (`not_idempotent`).
   */
  hedging?: HedgingConfig | false | null;
}

export type StoicFetch = (input: RequestInfo | URL, init?: StoicRequestInit) => Promise<Response>;

/** Each factory option's check: an option not named here is refused as unknown. */
const FACTORY_OPTIONS: OptionSpec = optionSpec({
  policy: policyOption,
  fetch: callable,
  sleep: callable,
  keyHeader: headerName,
  keyForm: oneOf(['bare', 'quoted']),
  keys: flag,
  serverDeduplicates: flag,
  stream: flag,
  scope: callable,
  validate: callable,
  onRetry: callable,
  onGiveUp: callable,
  returnFailedResponses: flag,
  hedging: null,
  onHedge: callable,
});

/** The type of each per-request option. */
const REQUEST_CHECKS: Readonly<Record<string, OptionCheck>> = {
  operation: text,
  scope: text,
  idempotencyKey: text,
  validate: callable,
  stream: flag,
  hedging: (value, name) => (value === false || value === null ? value : record(value, name)),
};

/** What a request's init may carry besides the `RequestInit` members. */
const REQUEST_OPTIONS = ['operation', 'scope', 'idempotencyKey', 'validate', 'stream', 'hedging'];

/** `RequestInit` members (standard, undici's, Workers'): never mistaken for a misspelling. */
const REQUEST_INIT = [
  'body', 'cache', 'credentials', 'headers', 'integrity', 'keepalive', 'method', 'mode', 'priority',
  'redirect', 'referrer', 'referrerPolicy', 'signal', 'window', 'duplex', 'dispatcher', 'cf',
];

/** Names that do nothing in a request's init, and where they belong. */
const ELSEWHERE = new Map([
  ...Object.keys(FACTORY_OPTIONS).filter((n) => !REQUEST_OPTIONS.includes(n)).map((n): [string, string] => [n, 'is a createFetch() option, not a per-request one']),
  ['idempotent', 'does not exist: a request is safe to repeat by its method, or with an idempotencyKey or createFetch({ serverDeduplicates: true })'],
  ['maxAttempts', 'belongs to the policy: createFetch({ policy: new Policy({ maxAttempts }) })'],
]);

/** Statuses a `Response` cannot be built with a body for. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** A response whose body was read into `bytes`, with the original's status, headers and URL. */
function buffered(original: Response, bytes: ArrayBuffer): Response {
  return rebuilt(original, NULL_BODY.has(original.status) ? null : bytes);
}

/** `original` with another body, keeping its status, headers, URL and redirect flag. */
function rebuilt(original: Response, body: BodyInit | null): Response {
  const copy = new Response(body, { status: original.status, statusText: original.statusText, headers: original.headers });
  Object.defineProperty(copy, 'url', { value: original.url });
  Object.defineProperty(copy, 'redirected', { value: original.redirected });
  return copy;
}

/**
 * A stream of events whose body fails with a `TimeoutError` when no data
 * arrives for `idleMs` (the attempt's timeout; null: unbounded), so a
 * stalled stream ends instead of hanging, while a long one runs its course.
 */
function idleBounded(original: Response, idleMs: number | null): Response {
  if (idleMs === null || original.body === null) return original;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (controller: TransformStreamDefaultController<Uint8Array>): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      controller.error(new DOMException(`no data arrived on the event stream for ${idleMs} ms`, 'TimeoutError'));
    }, idleMs);
    // A stream nobody reads any more must not keep the process alive.
    (timer as { unref?: () => void }).unref?.();
  };
  const body = original.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start: arm,
      transform(chunk, controller) {
        arm(controller);
        controller.enqueue(chunk);
      },
      flush() {
        clearTimeout(timer);
      },
    }),
  );
  return rebuilt(original, body);
}

/**
 * The last plan worked out for a request without a key, and what it was
 * asked with: a client sends the same request again and again, the plan is
 * a pure function of these, and the crossing (strings both ways) is a few
 * percent of a request's overhead.
 */
let lastPlan: { method: string; host: string; path: string; flags: number; plan: Readonly<HttpPlan> } | undefined;

/** `planOf`, without the crossing for the keyless request planned last. */
function requestPlan(method: string, host: string, path: string, key: string | undefined, deduplicates: boolean, keys: boolean): Readonly<HttpPlan> {
  const flags = (deduplicates ? 1 : 0) | (keys ? 2 : 0);
  const last = lastPlan;
  if (key === undefined && last !== undefined && last.flags === flags && last.method === method && last.host === host && last.path === path) {
    return last.plan;
  }
  const plan = Object.freeze(planOf(method, host, path, key, deduplicates, keys));
  if (key === undefined) lastPlan = { method, host, path, flags, plan };
  return plan;
}

/** The last content type asked about, and the core's answer (a client's responses mostly share one). */
let lastContentType = '';
let lastIsEventStream = false;

/** `isEventStream`, without the crossing for the content type asked about last. */
function eventStream(contentType: string): boolean {
  if (contentType !== lastContentType) {
    lastIsEventStream = isEventStream(contentType);
    lastContentType = contentType;
  }
  return lastIsEventStream;
}

/** Whether a response can be rebuilt from its bytes (opaque and 1xx ones cannot). */
function canBuffer(response: Response): boolean {
  return response.status >= 200 && response.status <= 599 && response.type !== 'opaque' && response.type !== 'opaqueredirect';
}

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
  checkedOptions(options, FACTORY_OPTIONS, 'createFetch(options)');
  return async function stoicFetch(input, init = {}) {
    if (typeof init === 'object' && init !== null) {
      misplacedOptions(init, REQUEST_OPTIONS, REQUEST_INIT, ELSEWHERE, 'fetch(input, init)');
      checkOptions(init, REQUEST_CHECKS);
    }
    // The core's tables, read at the first request: the module may load
    // after createFetch() is called.
    const host = hostTables();
    const keys = options.keys ?? host.httpDefaults.keys;
    const serverDeduplicates = options.serverDeduplicates ?? host.httpDefaults.serverDeduplicates;
    const keyHeader = options.keyHeader ?? host.keyHeader;
    const keyForm = options.keyForm ?? host.keyForm;
    const policy = options.policy ?? defaultPolicy();
    const core = policy.core;
    const now = policy.now;
    const send = options.fetch ?? globalThis.fetch;
    const {
      operation,
      scope,
      idempotencyKey,
      validate = options.validate,
      stream = options.stream ?? false,
      hedging: asked,
      ...requestInit
    } = init;
    const request = input instanceof Request ? input : undefined;
    // Relative URLs resolve against the page, as the browser's fetch does.
    const base = (globalThis as { location?: { href: string } }).location?.href;
    const url = new URL(request?.url ?? String(input), base);
    const method = (requestInit.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(requestInit.headers ?? request?.headers);

    if (!switches.active) {
      // Retrying off (`setActive(false)`): one request, outside the engine.
      if (idempotencyKey !== undefined && !headers.has(keyHeader)) headers.set(keyHeader, keyHeaderValue(idempotencyKey, keyForm));
      return send(request ?? url, { ...requestInit, method, headers });
    }
    // No crossing for a request without the header (most of them).
    const given = idempotencyKey === undefined ? headers.get(keyHeader) : null;
    let key = idempotencyKey ?? (given === null ? undefined : parseKeyHeader(given) ?? undefined);
    // Inside an agent's tool call, its key is the automatic key (sent, not
    // by itself trusted) and its retries are the run's.
    const toolCall = currentToolCall();
    const deduplicates = serverDeduplicates || (toolCall?.serverDeduplicates ?? false);
    const plan = requestPlan(method, url.host, url.pathname, key, deduplicates, keys);
    if (plan.autoKey) key = toolCall === undefined ? randomKey(undefined) : nextWriteKey(toolCall);
    // A tool call its caller declared safe to repeat makes its writes safe to repeat.
    const safeToRepeat = plan.safeToRepeat || (toolCall?.idempotent ?? false);
    if (key !== undefined && !headers.has(keyHeader)) headers.set(keyHeader, keyHeaderValue(key, keyForm));

    // A stream body can be sent once; buffer it so every attempt sends the same bytes.
    let body = requestInit.body;
    if (body instanceof ReadableStream || (body === undefined && request?.body)) {
      body = await new Response(body ?? request?.body).arrayBuffer();
    }

    const signal = requestInit.signal ?? request?.signal ?? undefined;
    signal?.throwIfAborted();
    const t = now();
    const hedging = asked === false || asked === null ? undefined : (asked ?? options.hedging ?? undefined);
    const callScope = scope ?? options.scope?.(url) ?? plan.scope;
    const sentKeyHeader = headers.has(keyHeader) ? keyHeader : undefined;
    const stepsFor = () => new FetchSteps(send, request, url, { ...requestInit, method, headers }, body, stream, validate, core.maxExcerptChars(), resendMarker(policy), sentKeyHeader);
    const loop = {
      signal,
      sleep: options.sleep,
      onRetry: options.onRetry,
      onGiveUp: options.onGiveUp,
      onHedge: options.onHedge,
      returnFailedResponses: options.returnFailedResponses,
    };
    // An agent's tool call spends its run's retries one at a time: not hedged.
    if (hedging !== undefined && toolCall === undefined) {
      const spec = { operation: operation ?? plan.operation, scope: callScope, idempotent: safeToRepeat, key: plan.trustKey ? key : undefined };
      const hedged = startHedgedRequest(policy, t, spec, hedging, asked !== undefined);
      if (hedged !== undefined) return hedgedRunner().run(policy, hedged, key ?? null, stepsFor, loop, now);
    }
    policy.opened();
    let handle: number;
    try {
      handle = startNamed(
        policy,
        t,
        operation ?? plan.operation,
        callScope,
        safeToRepeat,
        plan.trustKey ? key : undefined,
        switches.attempts === undefined ? undefined : { maxAttempts: switches.attempts },
      );
      if (toolCall !== undefined) core.joinRun(handle, toolCall.quota);
      // A layer above (a model SDK) that retried this request itself says
      // so: the multiplication becomes a `nested_retries` event.
      const marked = headers.get((nestedHeader ??= nestedRetryHeader()));
      if (marked !== null) core.noteRetriesAbove(handle, t, marked);
    } catch (error) {
      policy.closed();
      throw error;
    }
    return runCall(policy, handle, false, t, key ?? null, stepsFor(), loop, now);
  };
}

/**
 * Starts a request as a hedged call; undefined when it runs as a plain one:
 * hedging asked by the factory for a request the core finds not safe to
 * repeat (a request that asked for it itself is refused: `not_idempotent`).
 */
function startHedgedRequest(policy: Policy, t: number, spec: HedgedSpec, hedging: HedgingConfig, askedByRequest: boolean): number | undefined {
  try {
    return hedgedRunner().start(policy, t, spec, hedging);
  } catch (error) {
    if (askedByRequest || (error as { code?: unknown } | null)?.code !== 'not_idempotent') throw error;
    return undefined;
  }
}

/** The attempts of one request: send it, read its body unless streaming, judge the response. */
class FetchSteps implements Steps<Response> {
  readonly #streams: boolean;
  /** Whether the current attempt's response is a stream of events. */
  #eventStream = false;
  /**
   * The current attempt's response as its headers arrived (undefined: they
   * have not): a failure after them was after sending, and a body then cut
   * keeps this response.
   */
  #head: Response | undefined;
  /** The current attempt's body, when it was read. */
  #bytes: ArrayBuffer | undefined;

  constructor(
    private readonly send: typeof fetch,
    private readonly request: Request | undefined,
    private readonly url: URL,
    private readonly init: RequestInit,
    private readonly body: BodyInit | null | undefined,
    stream: boolean,
    private readonly validate: FetchOptions['validate'],
    private readonly maxExcerptChars: number,
    /** Marks a resend on the caller's span (`stoic/opentelemetry`), when traced. */
    private readonly markResend: ResendMarker | undefined,
    /** The key header's name when the request carries it, for what a refused cross-origin request says (`cors.ts`). */
    private readonly sentKeyHeader: string | undefined,
  ) {
    this.#streams = stream;
  }

  readonly attempt = async (context: Attempt): Promise<Response> => {
    if (context.attempt > 1 && this.markResend !== undefined) {
      try {
        this.markResend(context.attempt - 1);
      } catch {
        // Telemetry never fails the request.
      }
    }
    this.#head = undefined;
    this.#bytes = undefined;
    const overrides: RequestInit = { ...this.init, signal: context.signal };
    if (this.body !== undefined && this.body !== null) overrides.body = this.body;
    // A Request keeps every setting it was made with (redirect, credentials, mode, ...).
    const { request, send } = this; // fetch must be called unbound (browsers throw "Illegal invocation")
    let response = await (request === undefined ? send(this.url, overrides) : send(new Request(request, overrides)));
    this.#head = response;
    // A stream of events (a model's streamed completion) is handed over as
    // it arrives, whatever was asked: buffering it would hold the first
    // token until the last. The attempt's timeout bounded the wait for its
    // headers; its idle gaps stay bounded by the same time.
    this.#eventStream = eventStream(response.headers.get('content-type') ?? '');
    if (this.#eventStream) return idleBounded(response, context.timeoutMs);
    if (!this.#streams && canBuffer(response)) {
      const bytes = await response.arrayBuffer();
      this.#bytes = bytes;
      response = buffered(response, bytes);
    }
    return response;
  };

  /** Whether the caller's signal stays linked after a successful attempt: a body read later. */
  get streams(): boolean {
    return this.#streams || this.#eventStream;
  }

  failure(thrown: unknown, timedOut: boolean): Outcome {
    // The headers arrived, then the body did not: the server began answering.
    const head = this.#head;
    if (head !== undefined) {
      const detail = timedOut ? `HTTP ${head.status}: the body did not finish arriving within the attempt's time` : `HTTP ${head.status}: the body broke off: ${String(thrown)}`;
      return { kind: 'network', network: 'body_cut', detail };
    }
    if (timedOut) return { kind: 'network', network: 'read_timeout', detail: 'the attempt timed out' };
    const outcome = outcomeOfError(thrown);
    // Worked out only here, on the failure path: a page's cross-origin request the browser may have refused.
    if (outcome.kind !== 'network' || outcome.network !== 'unknown') return outcome;
    const refused = refusedCrossOriginHint(this.url, this.sentKeyHeader);
    return refused === '' ? outcome : { ...outcome, detail: `${outcome.detail ?? ''}${refused}` };
  }

  /** The response whose body was cut, when the last attempt failed that way. */
  cutResponse(): Response | undefined {
    return this.#head;
  }

  judge(response: Response): Outcome | Promise<Outcome> {
    // A validator would have to read the whole stream before the caller sees any of it.
    const validate = this.#eventStream ? undefined : this.validate;
    const bytes = this.#bytes;
    // Nothing to await (no validator, no excerpt or one from the bytes
    // read): judged now, without a promise and a turn of its own.
    if (validate === undefined && (bytes !== undefined || !wantsExcerpt(response.status))) {
      return statusOutcome(response, this.maxExcerptChars, bytes);
    }
    return judge(response, validate, this.maxExcerptChars, bytes);
  }
}

/** A response's status outcome, with an excerpt of its read bytes when the core wants one. */
function statusOutcome(response: Response, maxChars: number, bytes: ArrayBuffer | undefined): Outcome {
  let detail: string | undefined;
  if (bytes !== undefined && wantsExcerpt(response.status)) {
    detail = new TextDecoder().decode(bytes.slice(0, maxChars * 4)).slice(0, maxChars) || undefined;
  }
  return { kind: 'status', status: response.status, headers: response.headers, detail };
}

/** The outcome of a response: a validator's rejection of a 2xx, or its status. */
async function judge(
  response: Response,
  validate: FetchOptions['validate'],
  maxChars: number,
  bytes: ArrayBuffer | undefined,
): Promise<Outcome> {
  if (validate !== undefined && validatesStatus(response.status)) {
    // A buffered body is cheap to clone: the validator may read it, the caller still can.
    const rejection = await validate(bytes === undefined ? response : response.clone());
    if (rejection) return { kind: 'rejected', class: rejection.class, detail: rejection.detail };
  }
  if (bytes !== undefined || !wantsExcerpt(response.status)) return statusOutcome(response, maxChars, bytes);
  const detail = await excerpt(response.clone(), maxChars);
  return { kind: 'status', status: response.status, headers: response.headers, detail };
}
