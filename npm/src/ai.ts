/**
 * The `stoic/ai` entry: the Vercel AI SDK's tools run through an agent run.
 *
 * ```js
 * import { generateText, stepCountIs } from 'ai';
 * import { Run } from 'stoic';
 * import { stoicTools } from 'stoic/ai';
 *
 * const run = new Run('run-7');
 * const result = await generateText({
 *   model,                                  // its provider's fetch: createFetch({ returnFailedResponses: true })
 *   maxRetries: 0,                          // one layer retries: stoic's
 *   tools: stoicTools(run, { createOrder, getOrder }, { idempotent: ['getOrder'] }),
 *   stopWhen: stepCountIs(5),
 *   prompt,
 * });
 * ```
 *
 * Each tool's `execute` runs as `run.call(toolCallId, ...)`: the tool call
 * id is the step, the input the arguments the key hashes. A transient
 * failure is retried inside and the model never hears of it. A failure
 * stoic will not retry ends `execute` with a `ToolFailure`, which the SDK
 * turns into its own `tool-error` part; what the model reads there is the
 * run's observation, word for word (the error's `toString()` and its JSON
 * form are the observation, so neither the text path nor the JSON path
 * shows the model `ToolFailure: ...` or `{}`). The decision is the run's;
 * this module only hands it to the SDK.
 *
 * A tool whose `execute` streams (an async iterable) is read to its end
 * inside the call and answers with its last value: a retried tool's
 * partial outputs are not shown as preliminary results.
 *
 * Nothing here imports the AI SDK: any tool set whose tools have
 * `execute(input, { toolCallId, abortSignal })` works (the `ai` package is
 * an optional peer dependency).
 */
import type { Run, ToolCall } from './agents.js';
import { ToolFailure, wrongType } from './tool-failure.js';

export { retryable, ToolFailure } from './tool-failure.js';

/** The part of an AI SDK tool this module uses. */
export interface AiTool {
  execute?: (input: never, options: never) => unknown;
}

/** What `execute` receives besides the input (the AI SDK's `ToolExecutionOptions`, in part). */
export interface AiToolExecutionOptions {
  toolCallId: string;
  abortSignal?: AbortSignal;
}

/** What this module needs of a run: `Run` from `stoic`. */
export type RunLike = Pick<Run, 'call'>;

export interface StoicToolsOptions {
  /** Names of the tools that are safe to repeat (reads, writes that set a value): retried after a failure that may have been applied. */
  idempotent?: readonly string[];
  /** Whether the servers the tools write to honour the run's key (default: the run's `serverDeduplicates`). */
  serverDeduplicates?: boolean;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

/** The last value of a streaming tool's outputs. */
async function lastOf(outputs: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const output of outputs) last = output;
  return last;
}

/** The arguments the key hashes: the input object (a tool's input that is not one is hashed as `{ input }`). */
function argsOf(input: unknown): object {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { input };
}

/**
 * `tools` with each `execute` run through `run` (see the module docs); tools
 * without `execute` are left as they are. Returns a new tool set of the
 * same type.
 */
export function stoicTools<TOOLS extends Record<string, AiTool>>(run: RunLike, tools: TOOLS, options: StoicToolsOptions = {}): TOOLS {
  const call = 'stoicTools(run, tools, options)';
  if (typeof run?.call !== 'function') throw wrongType(call, 'run', 'a Run from stoic');
  if (typeof tools !== 'object' || tools === null) throw wrongType(call, 'tools', 'a tool set');
  if (typeof options !== 'object' || options === null) throw wrongType(call, 'options', 'an object');
  const names = options.idempotent ?? [];
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
    throw wrongType(call, 'idempotent', 'an array of tool names');
  }
  const idempotent = new Set(names);
  for (const name of idempotent) {
    if (!Object.hasOwn(tools, name)) {
      throw Object.assign(new TypeError(`${call}: idempotent names "${name}", which is not a tool of the set`), {
        code: 'invalid_value',
        field: 'idempotent',
      });
    }
  }
  const wrapped: Record<string, AiTool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as ((input: unknown, options: AiToolExecutionOptions) => unknown) | undefined;
    if (typeof execute !== 'function') {
      wrapped[name] = tool;
      continue;
    }
    const executeInRun = async (input: unknown, given: AiToolExecutionOptions): Promise<unknown> => {
      const attempt = async (call: ToolCall): Promise<unknown> => {
        // The tool's abortSignal is the attempt's: it fires at the attempt's
        // timeout and with the SDK's abort (made only if the tool reads it).
        const output = await execute.call(tool, input, {
          ...given,
          get abortSignal() {
            return call.signal;
          },
        });
        return isAsyncIterable(output) ? lastOf(output) : output;
      };
      const result = await run.call(given.toolCallId, attempt, {
        args: argsOf(input),
        tool: name,
        idempotent: idempotent.has(name),
        serverDeduplicates: options.serverDeduplicates,
        signal: given.abortSignal,
      });
      if (result.ok) return result.value;
      throw new ToolFailure(result);
    };
    wrapped[name] = { ...tool, execute: executeInRun };
  }
  return wrapped as TOOLS;
}
