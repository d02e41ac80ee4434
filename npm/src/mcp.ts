/**
 * The `stoic/mcp` entry: Model Context Protocol tools through an agent run,
 * on both sides of the protocol (`@modelcontextprotocol/sdk` 1.x, an
 * optional peer dependency; nothing here imports it).
 *
 * Server side, `toolHandler(name, handler, { run })` wraps a tool handler
 * (`server.registerTool(name, config, handler)`): the handler runs as
 * `run.call(...)`, so a transient failure inside it is retried there; a
 * failure stoic will not retry answers `isError: true` with the run's
 * observation as its text and `_meta` saying why (`io.stoic/reason`,
 * `io.stoic/retryable`, `io.stoic/retry-after-ms` when known). Those go in
 * `_meta`, not `structuredContent`: the specification ties
 * `structuredContent` to the tool's `outputSchema`, and the SDK's client
 * validates it against that schema even on an error result. A request
 * whose `_meta` carries `io.stoic/idempotency-key` is answered once per key
 * (`ToolReplays`, stoic's server-side idempotency): a repeat replays the
 * stored result (`_meta['io.stoic/replayed']: true`) and the handler runs
 * once; a key reused with other arguments is refused with the core's text.
 *
 * Client side, `callTool(client, run, step, { name, arguments })` makes
 * the call as `run.call(step, ...)`, sends the call's key in `_meta`, and
 * resolves with the run's `ToolResult`: request timeouts and transport
 * failures are retried only where repeating is safe (the tool declares
 * `readOnlyHint` or `idempotentHint` in `tools/list`, or the caller says the
 * server honours the key with `serverDeduplicates`); protocol errors
 * (`McpError`) end the call with an observation instead of throwing.
 *
 * ```js
 * // server
 * server.registerTool('create_order', { inputSchema }, toolHandler('create_order',
 *   async (args, extra, call) => ({ content: [{ type: 'text', text: JSON.stringify(await create(args)) }] }),
 *   { run: () => new Run('orders-mcp', { policy }) }));
 * // client
 * const result = await callTool(client, run, toolCall.id, { name: 'create_order', arguments: args });
 * reply(result.ok ? result.value.content : result.observation);
 * ```
 */
import type { Run, ToolCall, ToolResult } from './agents.js';
import { knownOptions } from './guard.js';
import type { Outcome } from './types.js';
import { retryable as retryLater, wrongType } from './tool-failure.js';
import { CoreServerIdempotency, payloadFingerprint } from './wasm/stoic_wasm.js';

/** The `_meta` keys stoic reads and writes (reverse-DNS prefixed, as the specification asks of vendors). */
export const META = {
  /** In a request: the tool call's idempotency key. */
  idempotencyKey: 'io.stoic/idempotency-key',
  /** In a result: why the tool call failed (the core's tool reason code). */
  reason: 'io.stoic/reason',
  /** In a result: whether the same call may succeed if made again later. */
  retryable: 'io.stoic/retryable',
  /** In a result: milliseconds until trying again may make sense, when known. */
  retryAfterMs: 'io.stoic/retry-after-ms',
  /** In a result: this is the stored result of an earlier call with the same key. */
  replayed: 'io.stoic/replayed',
  /** In a result: why a request's key was refused (`idempotency_key_reused`, ...). */
  refusal: 'io.stoic/refusal',
} as const;

/** A tool call's result, as MCP sends it (`CallToolResult`, in part). */
export interface McpToolResult {
  content?: unknown[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [field: string]: unknown;
}

/** What a server's tool handler receives besides its arguments (the SDK's `RequestHandlerExtra`, in part). */
export interface McpRequestExtra {
  requestId?: string | number;
  sessionId?: string;
  signal?: AbortSignal;
  _meta?: Record<string, unknown>;
}

/** What this module needs of a run: `Run` from `stoic`. */
export type RunLike = Pick<Run, 'call'>;

/**
 * A run's `ToolResult` as MCP answers a tool call: the tool's own result,
 * or `isError: true` with the observation as its text and the reason in
 * `_meta`.
 */
export function asCallToolResult(result: ToolResult<McpToolResult>): McpToolResult {
  const given = result as Partial<ToolResult<McpToolResult>> | null | undefined;
  if (typeof given !== 'object' || given === null || typeof given.ok !== 'boolean') {
    throw wrongType('asCallToolResult(result)', 'result', "a run's ToolResult");
  }
  if (given.ok) return typeof given.value === 'object' && given.value !== null ? given.value : { content: [] };
  if (typeof given.observation !== 'string') throw wrongType('asCallToolResult(result)', 'result.observation', 'text');
  const reason = typeof given.reason === 'string' ? given.reason : undefined;
  const meta: Record<string, unknown> = { [META.reason]: reason, [META.retryable]: retryLater(reason) };
  if (Number.isFinite(given.retryAfterMs)) meta[META.retryAfterMs] = given.retryAfterMs;
  return { isError: true, content: [{ type: 'text', text: given.observation }], _meta: meta };
}

/** The arguments the key hashes: the tool's arguments object (none: `{}`). */
function argsOf(args: unknown): object {
  if (args === undefined || args === null) return {};
  return typeof args === 'object' && !Array.isArray(args) ? args : { arguments: args };
}

// ------------------------------------------------------------------ server

/** What a server's store holds for a key (the core's `StoredEntry`). */
interface StoredEntry {
  fingerprint: string;
  state: { kind: 'in_flight'; sinceUnixMs: number } | { kind: 'completed'; atUnixMs: number; status: number };
}

type ServerDecision =
  | { kind: 'proceed'; record: StoredEntry | null; replaces: boolean }
  | { kind: 'replay'; status: number }
  | { kind: 'refuse'; refusal: string; status: number; detail: string; retryAfterS: number | null };

interface Slot {
  entry: StoredEntry;
  /** The answer, once the call completed with one worth replaying. */
  result?: McpToolResult;
  /** The call in progress here. */
  running?: Promise<unknown>;
}

/** What one execution of a tool ended with, and whether a repeat may replay it. */
interface Execution {
  result: McpToolResult;
  /** `keep`: replay it; `release`: a repeat may run again (the run would have repeated it); `hold`: neither, until the key's in-flight time passes. */
  fate: 'keep' | 'release' | 'hold';
}

export interface ToolReplaysOptions {
  /** How long a completed call is replayed (the core's default: 24 h). */
  ttlMs?: number;
  /** How long a call that never completed blocks repeats of its key (the core's default: 60 s). */
  inFlightTimeoutMs?: number;
  /** Unix ms now (default `Date.now`); tests inject their own. */
  now?: () => number;
}

/** `ToolReplays`' answer for one request (a module function: not part of the class's API). */
let answerOf: (replays: ToolReplays, key: string, fingerprint: string, execute: () => Promise<Execution>) => Promise<McpToolResult>;

/** Keys between sweeps of the entries whose time is over. */
const SWEEP_EVERY = 1024;

/**
 * The results of a server's tool calls by idempotency key, in this
 * process's memory: stoic's server-side idempotency (`ServerIdempotency`)
 * decides whether a request runs, replays the stored result, or is refused.
 * A repeat that arrives while the first is still running waits for it and
 * replays its result. What is kept: successes, and failures the same
 * request would meet again (`deterministic`) or that may have been applied
 * (`ambiguous`: the replay tells the caller to check first). A failure the
 * run would itself have retried later (`exhausted`, `breaker_open`, ...)
 * frees the key: a repeat runs again.
 */
export class ToolReplays {
  readonly #core: CoreServerIdempotency;
  readonly #entries = new Map<string, Slot>();
  readonly #now: () => number;
  #inserts = 0;

  constructor(options: ToolReplaysOptions = {}) {
    if (typeof options !== 'object' || options === null) throw wrongType('new ToolReplays(options)', 'options', 'an object');
    const { now, ...config } = options;
    if (now !== undefined && typeof now !== 'function') throw wrongType('new ToolReplays(options)', 'now', 'a function');
    this.#core = new CoreServerIdempotency({ ...config, requireKey: true });
    this.#now = now ?? Date.now;
  }

  /** Keys held (completed, or in flight). */
  get size(): number {
    return this.#entries.size;
  }

  static {
    answerOf = (replays, key, fingerprint, execute) => replays.#answer(key, fingerprint, execute);
  }

  /** Runs `execute` once per key and payload; repeats replay its result. */
  async #answer(key: string, fingerprint: string, execute: () => Promise<Execution>): Promise<McpToolResult> {
    for (;;) {
      const slot = this.#entries.get(key);
      const decision = this.#core.decide(this.#now(), key, fingerprint, slot?.entry ?? null) as ServerDecision;
      if (decision.kind === 'replay' && slot?.result !== undefined) {
        return { ...slot.result, _meta: { ...slot.result._meta, [META.replayed]: true } };
      }
      if (decision.kind === 'refuse') {
        if (decision.refusal === 'idempotency_key_in_use' && slot?.running !== undefined) {
          // The first call runs here: wait for it, then decide again.
          await slot.running.catch(() => undefined);
          continue;
        }
        const meta: Record<string, unknown> = { [META.refusal]: decision.refusal, [META.retryable]: decision.retryAfterS !== null };
        if (decision.retryAfterS !== null) meta[META.retryAfterMs] = decision.retryAfterS * 1000;
        return { isError: true, content: [{ type: 'text', text: decision.detail }], _meta: meta };
      }
      if (decision.kind !== 'proceed' || decision.record === null) {
        // Not reachable with a key (the store always holds a result for a completed entry).
        return (await execute()).result;
      }
      return this.#run(key, fingerprint, decision.record, execute);
    }
  }

  async #run(key: string, fingerprint: string, record: StoredEntry, execute: () => Promise<Execution>): Promise<McpToolResult> {
    const running = execute();
    const slot: Slot = { entry: record, running };
    this.#entries.set(key, slot);
    if (++this.#inserts % SWEEP_EVERY === 0) this.#sweep();
    let execution: Execution;
    try {
      execution = await running;
    } finally {
      slot.running = undefined;
    }
    if (this.#entries.get(key) === slot) {
      if (execution.fate === 'keep') {
        slot.entry = { fingerprint, state: { kind: 'completed', atUnixMs: this.#now(), status: 200 } };
        slot.result = execution.result;
      } else if (execution.fate === 'release') {
        this.#entries.delete(key);
      }
    }
    return execution.result;
  }

  /** Drops the entries the core no longer holds to (a completed one past its time, an abandoned one). */
  #sweep(): void {
    const now = this.#now();
    for (const [key, slot] of this.#entries) {
      if (slot.running !== undefined) continue;
      const decision = this.#core.decide(now, key, slot.entry.fingerprint, slot.entry) as ServerDecision;
      if (decision.kind === 'proceed') this.#entries.delete(key);
    }
  }
}

export interface ToolHandlerOptions<Extra extends McpRequestExtra = McpRequestExtra> {
  /** The run each call goes through: a `Run`, or a function that makes one per request (each with its own retry quota). */
  run: RunLike | ((extra: Extra) => RunLike);
  /** Whether the tool is safe to repeat (retried after a failure that may have been applied). Default false. */
  idempotent?: boolean;
  /** Whether the servers the tool writes to honour the run's key (default: the run's). */
  serverDeduplicates?: boolean;
  /** Where results are kept by the key a request sends (default: a `ToolReplays` of this handler's own; `null`: keys are not honoured). */
  replays?: ToolReplays | null;
}

const HANDLER_OPTIONS = new Set(['run', 'idempotent', 'serverDeduplicates', 'replays']);

/** The fate of a run's answer in the store. */
function fateOf(result: ToolResult<unknown>): Execution['fate'] {
  if (result.ok) return 'keep';
  if (retryLater(result.reason)) return 'release';
  return result.reason === 'cancelled' ? 'hold' : 'keep';
}

/** A step no other request of the run shares (a request without a key of its own). */
function freshStep(): string {
  return `mcp-${crypto.randomUUID()}`;
}

/**
 * A tool handler for an MCP server (`server.registerTool(name, config,
 * handler)`), run through `options.run`: see the module docs. `handler`
 * gets the tool's arguments, the SDK's `extra` and the run's `ToolCall`
 * (its `key`, its attempt's `signal`). `name` is the tool's, for the run's
 * records and the payload a key is bound to. (A tool registered without an
 * input schema is called with `extra` alone; its handler gets `{}` as its
 * arguments. Type it with `inputSchema: {}`.)
 */
export function toolHandler<Args, Extra extends McpRequestExtra, R extends McpToolResult>(
  name: string,
  handler: (args: Args, extra: Extra, call: ToolCall) => R | PromiseLike<R>,
  options: ToolHandlerOptions<Extra>,
): (args: Args, extra: Extra) => Promise<R> {
  const call = 'toolHandler(name, handler, options)';
  if (typeof name !== 'string' || name === '') throw wrongType(call, 'name', 'the tool\'s name');
  if (typeof handler !== 'function') throw wrongType(call, 'handler', 'a function');
  if (typeof options !== 'object' || options === null) throw wrongType(call, 'options', 'an object with a run');
  knownOptions(options, HANDLER_OPTIONS, call);
  const given = options.run;
  if (typeof given !== 'function' && typeof (given as RunLike | undefined)?.call !== 'function') {
    throw wrongType(call, 'run', 'a Run from stoic, or a function that returns one');
  }
  if (options.replays !== undefined && options.replays !== null && !(options.replays instanceof ToolReplays)) {
    throw wrongType(call, 'replays', 'a ToolReplays, or null');
  }
  const replays = options.replays === undefined ? new ToolReplays() : options.replays;
  const runOf = (extra: Extra): RunLike => (typeof given === 'function' ? (given as (extra: Extra) => RunLike)(extra) : given);

  const wrapped = async (...params: unknown[]): Promise<McpToolResult> => {
    // The SDK passes (args, extra) to a tool with an input schema, (extra) to one without.
    const withArgs = params.length >= 2;
    const args = withArgs ? params[0] : {};
    const extra = ((withArgs ? params[1] : params[0]) ?? {}) as Extra;
    const sentKey = extra._meta?.[META.idempotencyKey];
    const execute = async (step: string): Promise<Execution> => {
      const result = await runOf(extra).call(
        step,
        (toolCall) => handler(args as Args, extra, toolCall),
        {
          args: argsOf(args),
          tool: name,
          idempotent: options.idempotent ?? false,
          serverDeduplicates: options.serverDeduplicates,
          signal: extra.signal,
        },
      );
      return { result: asCallToolResult(result), fate: fateOf(result) };
    };
    if (sentKey === undefined || replays === null) return (await execute(freshStep())).result;
    // A key that is not text is the core's to refuse (as an invalid key).
    const key = typeof sentKey === 'string' ? sentKey : '';
    const fingerprint = payloadFingerprint(JSON.stringify({ tool: name, arguments: args }));
    // The request's key is the step: the handler's own keyed writes are the
    // same on the caller's repeats of this call.
    return answerOf(replays, key, fingerprint, () => execute(key));
  };
  return wrapped as unknown as (args: Args, extra: Extra) => Promise<R>;
}

// ------------------------------------------------------------------ client

/** A tool's annotations, as `tools/list` gives them (in part). */
export interface McpToolAnnotations {
  readOnlyHint?: boolean;
  idempotentHint?: boolean;
  [field: string]: unknown;
}

/** What `callTool` needs of an MCP client (the SDK's `Client`). */
export interface McpClientLike {
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    resultSchema?: never,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
  listTools(params?: { cursor?: string }): Promise<{ tools: { name: string; annotations?: McpToolAnnotations }[]; nextCursor?: string }>;
}

export interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface CallToolOptions {
  /** Whether the tool is safe to repeat; default: what it declares (`readOnlyHint` or `idempotentHint` in `tools/list`). */
  idempotent?: boolean;
  /** Whether the server honours `io.stoic/idempotency-key` (a `stoic/mcp` server); default: the run's `serverDeduplicates`. */
  serverDeduplicates?: boolean;
  /** Aborting ends the call: `callTool` rejects with the reason. */
  signal?: AbortSignal;
  /** The MCP request timeout of each attempt, in ms (default: the SDK's). */
  timeoutMs?: number;
}

const CALL_OPTIONS = new Set(['idempotent', 'serverDeduplicates', 'signal', 'timeoutMs']);

/** JSON-RPC codes of the SDK's `McpError` that are not the server's answer. */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/**
 * What an MCP client's error stands for: a request timeout was sent and
 * unanswered (`read_timeout`), a connection closed with the request
 * outstanding may have been received (`unknown`), an HTTP status from the
 * Streamable HTTP transport is that status, and any other `McpError` is the
 * server's protocol error: a response, and a failure the same request meets
 * again (`rejected`, deterministic). Anything else (a socket error, fetch's
 * `TypeError`) is left to the run's classifier.
 */
function mcpOutcome(error: unknown): Outcome | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'number') return undefined;
  if (error.name === 'McpError') {
    // The SDK's client puts its "MCP error <code>: " before the server's
    // message, which the SDK's server already began with: say it once.
    const prefix = `MCP error ${code}: `;
    let message = error.message;
    while (message.startsWith(prefix + prefix)) message = message.slice(prefix.length);
    if (code === REQUEST_TIMEOUT) return { kind: 'network', network: 'read_timeout', detail: `McpError: ${message}` };
    if (code === CONNECTION_CLOSED) return { kind: 'network', network: 'unknown', detail: `McpError: ${message}` };
    return { kind: 'rejected', class: 'deterministic', detail: message };
  }
  if (error.message.startsWith('Streamable HTTP error: ') && Number.isInteger(code) && code >= 100 && code <= 599) {
    return { kind: 'status', status: code, detail: error.message };
  }
  return undefined;
}

const declared = new WeakMap<object, Map<string, McpToolAnnotations | undefined>>();

/** Every tool the server lists, with its annotations. */
async function listAnnotations(client: McpClientLike): Promise<Map<string, McpToolAnnotations | undefined>> {
  const tools = new Map<string, McpToolAnnotations | undefined>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    for (const tool of page.tools) tools.set(tool.name, tool.annotations);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** Whether the server declares `name` safe to repeat (read once per client, again for a tool it did not list). */
async function declaredSafe(client: McpClientLike, name: string): Promise<boolean> {
  let tools = declared.get(client);
  if (tools === undefined || !tools.has(name)) {
    try {
      tools = await listAnnotations(client);
    } catch {
      return false; // unknown: not safe
    }
    declared.set(client, tools);
  }
  const annotations = tools.get(name);
  return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
}

/**
 * Calls tool `params.name` on `client` as tool call `step` of `run` and
 * resolves with the run's `ToolResult` (its `value` the `CallToolResult`,
 * `isError` ones included: those are the tool's answer). See the module
 * docs for what is retried.
 */
export async function callTool(
  client: McpClientLike,
  run: RunLike,
  step: string,
  params: CallToolParams,
  options: CallToolOptions = {},
): Promise<ToolResult<McpToolResult>> {
  const call = 'callTool(client, run, step, params, options)';
  if (typeof client?.callTool !== 'function') throw wrongType(call, 'client', 'an MCP Client');
  if (typeof run?.call !== 'function') throw wrongType(call, 'run', 'a Run from stoic');
  if (typeof params !== 'object' || params === null || typeof params.name !== 'string') {
    throw wrongType(call, 'params', 'an object with the tool\'s name');
  }
  if (typeof options !== 'object' || options === null) throw wrongType(call, 'options', 'an object');
  knownOptions(options, CALL_OPTIONS, call);
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))) {
    throw wrongType(call, 'timeoutMs', 'a number of milliseconds above 0');
  }
  const idempotent = options.idempotent ?? (await declaredSafe(client, params.name));
  return run.call(
    step,
    async (toolCall) => {
      const request = { ...params, _meta: { ...params._meta, [META.idempotencyKey]: toolCall.key } };
      const requestOptions: { signal: AbortSignal; timeout?: number } = { signal: toolCall.signal };
      if (timeoutMs !== undefined) requestOptions.timeout = timeoutMs;
      return (await client.callTool(request, undefined, requestOptions)) as McpToolResult;
    },
    {
      args: argsOf(params.arguments),
      tool: params.name,
      idempotent,
      serverDeduplicates: options.serverDeduplicates,
      signal: options.signal,
      classify: mcpOutcome,
    },
  );
}
