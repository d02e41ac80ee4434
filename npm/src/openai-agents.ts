/**
 * The `stoic/openai-agents` entry: the OpenAI Agents SDK (`@openai/agents`,
 * an optional peer dependency; nothing here imports it) with stoic owning
 * the retries.
 *
 * ```js
 * import OpenAI from 'openai';
 * import { Agent, OpenAIChatCompletionsModel, Runner, tool } from '@openai/agents';
 * import { createFetch, Run } from 'stoic';
 * import { runTool } from 'stoic/openai-agents';
 *
 * const run = new Run('run-7');
 * const createOrder = tool(runTool(run, { name: 'create_order', description, parameters, execute }));
 * const client = new OpenAI({ maxRetries: 0, fetch: createFetch({ returnFailedResponses: true }) });
 * const agent = new Agent({ name: 'orders', model: new OpenAIChatCompletionsModel(client, 'gpt-5'), tools: [createOrder] });
 * const result = await new Runner().run(agent, 'order two mugs');
 * ```
 *
 * **Tools.** `runTool(run, options)` takes the options of the SDK's
 * `tool()` and returns them with `execute` running as
 * `run.call(toolCall.callId, ...)` and an `errorFunction` of stoic's: a
 * transient failure is retried inside and the model never hears of it; a
 * failure stoic will not retry reaches the model through the SDK's own
 * failure path as the run's observation, not as "An error occurred while
 * running the tool. Please try again.". Arguments that fail the tool's
 * schema are answered with the observation the engine writes for them.
 *
 * JSON the runner cannot parse it answers itself before any tool runs. In
 * TypeScript, type `execute`'s input yourself: `runTool`'s options are not
 * typed from `parameters`.
 *
 * `errorFunction(run)` alone, for a tool that does not run through a run:
 * the observation the engine writes for the error, as one attempt (not
 * retried).
 *
 * **Model calls.** Give the SDK an OpenAI client whose retries are stoic's:
 * `new OpenAI({ maxRetries: 0, fetch: createFetch({ returnFailedResponses:
 * true }) })` (the model recipe of `stoic`), to `OpenAIChatCompletionsModel`,
 * `OpenAIResponsesModel` or `setDefaultOpenAIClient`; leave the runner's
 * opt-in model retries (`modelSettings.retry`) unset: exactly one layer
 * retries.
 */
import type { Run, ToolCall, ToolResult } from './agents.js';
import { ToolFailure, wrongType } from './tool-failure.js';

export { retryable, ToolFailure } from './tool-failure.js';

/** What this module needs of a run: `Run` from `stoic`. */
export type RunLike = Pick<Run, 'call' | 'runId'>;

/** The SDK's `ToolCallDetails`, in part. */
export interface AgentsToolCallDetails {
  toolCall?: { callId?: string; name?: string; arguments?: string };
  signal?: AbortSignal;
}

/** The part of the SDK's `tool()` options this module rewrites. */
export interface AgentsToolOptions {
  name?: string;
  execute: (input: never, context?: never, details?: never) => unknown;
  errorFunction?: unknown;
}

export interface RunToolOptions {
  /** Whether the tool is safe to repeat (a read, a write that sets a value). Default false. */
  idempotent?: boolean;
  /** Whether the servers the tool writes to honour the run's key (default: the run's). */
  serverDeduplicates?: boolean;
}

type ErrorFunction = (context: unknown, error: unknown, details?: AgentsToolCallDetails) => Promise<string>;

/** A run made like `run` (its class), that tries once: for the engine's words on an error. */
function probeOf(run: RunLike): RunLike | undefined {
  const Kind = (run as { constructor?: unknown }).constructor;
  if (typeof Kind !== 'function') return undefined;
  try {
    return new (Kind as new (id: string, options: object) => RunLike)(run.runId, {
      maxAttempts: 1,
      maxRetries: 0,
      policyOptions: { breaker: null },
    });
  } catch {
    return undefined;
  }
}

/**
 * An `errorFunction` for the SDK's function tools: a `ToolFailure` (a
 * tool run through `runTool`) answers with its observation; any other
 * error with the observation the engine writes for it as the end of a
 * one-attempt call (the model's unreadable arguments: the words that say
 * so). `run` is asked for its class only: the probe is a run of its own.
 */
export function errorFunction(run: RunLike): ErrorFunction {
  if (typeof run?.call !== 'function') {
    throw Object.assign(new TypeError('errorFunction(run): run must be a Run from stoic'), { code: 'wrong_type', field: 'run' });
  }
  return async (_context, error, details) => {
    if (error instanceof ToolFailure) return error.message;
    const probe = probeOf(run);
    if (probe === undefined) return String(error);
    const toolCall = details?.toolCall;
    const raw = toolCall?.arguments;
    const answered: ToolResult<unknown> = await probe.call(
      toolCall?.callId || 'tool',
      () => {
        throw error;
      },
      { args: typeof raw === 'string' && raw !== '' ? raw : {}, tool: toolCall?.name },
    );
    return answered.observation ?? String(error);
  };
}

/**
 * The SDK's `tool()` options with `execute` run through `run` (a `Run`,
 * or a function of the run context that returns one) and stoic's
 * `errorFunction`: pass the result to `tool()`. See the module docs.
 */
export function runTool<O extends AgentsToolOptions>(run: RunLike | ((context: unknown) => RunLike), options: O, settings: RunToolOptions = {}): O {
  const call = 'runTool(run, options, settings)';
  if (typeof run !== 'function' && typeof (run as RunLike | undefined)?.call !== 'function') {
    throw Object.assign(new TypeError(`${call}: run must be a Run from stoic, or a function that returns one`), { code: 'wrong_type', field: 'run' });
  }
  if (typeof options !== 'object' || options === null || typeof options.execute !== 'function') {
    throw wrongType(call, 'options', "the tool's options, with execute");
  }
  if (typeof settings !== 'object' || settings === null) throw wrongType(call, 'settings', 'an object');
  if (settings.idempotent !== undefined && typeof settings.idempotent !== 'boolean') throw wrongType(call, 'idempotent', 'true or false');
  if (settings.serverDeduplicates !== undefined && typeof settings.serverDeduplicates !== 'boolean') {
    throw wrongType(call, 'serverDeduplicates', 'true or false');
  }
  const execute = options.execute as (input: unknown, context?: unknown, details?: AgentsToolCallDetails) => unknown;
  const name = typeof options.name === 'string' ? options.name : execute.name;
  const runOf = (context: unknown): RunLike =>
    typeof run === 'function' ? (run as (context: unknown) => RunLike)(context) : run;
  const wrapped = async (input: unknown, context?: unknown, details?: AgentsToolCallDetails): Promise<unknown> => {
    const found = runOf(context);
    const step = details?.toolCall?.callId || `agents-${crypto.randomUUID()}`;
    const result = await found.call(step, (_toolCall: ToolCall) => execute(input, context, details), {
      args: typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { input },
      tool: name || 'tool',
      idempotent: settings.idempotent ?? false,
      serverDeduplicates: settings.serverDeduplicates,
      signal: details?.signal,
    });
    if (result.ok) return result.value;
    throw new ToolFailure(result);
  };
  const answer = typeof run === 'function' ? undefined : errorFunction(run);
  const errorFn: ErrorFunction = async (context, error, details) =>
    answer !== undefined ? answer(context, error, details) : errorFunction(runOf(context))(context, error, details);
  return { ...options, execute: wrapped, errorFunction: errorFn } as O;
}
