/**
 * The agent in JavaScript: the Vercel AI SDK's `generateText` tool loop, its
 * mock language model (`ai/test`) as a scripted model, two tools against the
 * orders server, run two ways (the twin of `agent_pydantic_ai.py`).
 *
 * - `stoic`: the tools run through `stoicTools` (`stoic/ai`, one `Run`) and
 *   make their requests with stoic's `createFetch`, which sends the tool
 *   call's key as `Idempotency-Key`; `list_orders` is declared idempotent;
 *   model calls `maxRetries: 0` (one layer retries: stoic's).
 * - `defaults`: the tools as they are usually written: the global `fetch`, a
 *   fresh `crypto.randomUUID()` as `Idempotency-Key` on each request, an
 *   `Error` thrown on a failed status, which the SDK hands the model through
 *   its tool-error path. Everything else is `generateText`'s default.
 *
 * The model follows the same rules as `scripted.Clerk` (below, `Clerk`):
 * each turn it reads the last tool result from the prompt the SDK hands it.
 * That prompt is the transcript.
 *
 * Run from the repository (after `make js-build`):
 * `node examples/agents/agent_ai_sdk.mjs URL --variant stoic [--json PATH]`.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { createFetch, Run } from '../../npm/dist/node.js';
import { stoicTools } from '../../npm/dist/ai.js';

// `ai` is the npm package's dev dependency here; in an app, `import { generateText } from 'ai'`.
const npm = createRequire(new URL('../../npm/package.json', import.meta.url));
const load = (name) => import(pathToFileURL(npm.resolve(name)).href);
const { generateText, jsonSchema, stepCountIs, tool } = await load('ai');
const { MockLanguageModelV4 } = await load('ai/test');
const AI_VERSION = npm('ai/package.json').version;

const SCRIPT = JSON.parse(readFileSync(new URL('./script.json', import.meta.url), 'utf8'));
const VARIANTS = ['stoic', 'defaults'];

/** What stoic's observation says of a write whose answer was lost. */
const MAY_HAVE_BEEN_APPLIED = 'may already have been applied';

/** The scripted model's rules: `scripted.Clerk`'s, word for word. */
class Clerk {
  constructor(script = SCRIPT) {
    this.orders = script.orders.map((order) => ({ ...order }));
    this.limit = script.calls_per_order;
    this.index = 0;
    this.calls = 0;
    this.corrected = false;
    this.placed = [];
    this.givenUp = [];
  }

  /**
   * The next tool call, or null when the work is done.
   * @param {{tool: string, ok: boolean, text: string} | null} answer
   * @returns {[string, object] | null}
   */
  nextCall(answer) {
    if (answer === null) return this.create();
    const order = this.orders[this.index];
    if (answer.tool === 'list_orders') {
      if (answer.ok && answer.text.includes(`"${order.order_ref}"`)) return this.advance(true);
      return this.create();
    }
    if (answer.ok) return this.advance(true);
    if (answer.text.includes('422') && 'corrected_quantity' in order && !this.corrected) {
      this.corrected = true;
      return this.create();
    }
    if (answer.text.includes(MAY_HAVE_BEEN_APPLIED)) return ['list_orders', {}];
    if (this.calls < this.limit) return this.create();
    return this.advance(false);
  }

  finalText() {
    const text = `Placed ${this.placed.join(', ') || 'nothing'}.`;
    return this.givenUp.length > 0 ? `${text} Gave up on ${this.givenUp.join(', ')}.` : text;
  }

  create() {
    const order = this.orders[this.index];
    this.calls += 1;
    const quantity = this.corrected ? order.corrected_quantity : order.quantity;
    return ['create_order', { order_ref: order.order_ref, sku: order.sku, quantity }];
  }

  advance(placed) {
    (placed ? this.placed : this.givenUp).push(this.orders[this.index].order_ref);
    this.index += 1;
    this.calls = 0;
    this.corrected = false;
    return this.index < this.orders.length ? this.create() : null;
  }
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A tool result's output as text and whether it is an error (the SDK's `error-text`/`error-json`). */
function readOutput(output) {
  const text = typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
  return { ok: !output.type.startsWith('error'), text };
}

/** The last tool result in the prompt the model is handed, or null. */
function lastAnswer(prompt) {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return null;
  const results = last.content.filter((part) => part.type === 'tool-result');
  if (results.length === 0) return null;
  const part = results.at(-1);
  return { tool: part.toolName, ...readOutput(part.output) };
}

/** The mock model: the clerk's next call from the prompt's last tool result; it keeps every prompt. */
function scriptedModel() {
  const clerk = new Clerk();
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      prompts.push(structuredClone(prompt));
      const call = clerk.nextCall(lastAnswer(prompt));
      if (call === null) {
        const content = [{ type: 'text', text: clerk.finalText() }];
        return { content, finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      }
      const [toolName, input] = call;
      const toolCallId = `call_${prompts.length}`;
      return {
        content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

/** The conversation as the model was handed it on its last turn, then its final words. */
function transcript(prompt, output) {
  const lines = [];
  for (const message of prompt) {
    const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const part of parts) {
      if (part.type === 'text') {
        lines.push({ who: message.role === 'assistant' ? 'model' : 'user', text: part.text });
      } else if (part.type === 'tool-call') {
        const args = typeof part.input === 'string' ? JSON.parse(part.input) : part.input;
        lines.push({ who: 'model', call: part.toolName, args });
      } else if (part.type === 'tool-result') {
        const { ok, text } = readOutput(part.output);
        lines.push({ who: 'tool', tool: part.toolName, ok, outcome: part.output.type, text });
      }
    }
  }
  lines.push({ who: 'model', text: output });
  return lines;
}

/** `create_order` and `list_orders` over `fetch`, written the variant's way. */
function toolsFor(url, fetch, client, variant) {
  const freshKey = variant === 'defaults';
  return {
    create_order: tool({
      description: 'Creates an order; answers with the order as the shop stored it.',
      inputSchema: jsonSchema({
        type: 'object',
        properties: { order_ref: { type: 'string' }, sku: { type: 'string' }, quantity: { type: 'integer' } },
        required: ['order_ref', 'sku', 'quantity'],
      }),
      execute: async ({ order_ref, sku, quantity }) => {
        // With stoic, createFetch sends the tool call's key.
        const headers = { 'content-type': 'application/json' };
        if (freshKey) headers['Idempotency-Key'] = crypto.randomUUID();
        const response = await fetch(new URL('/orders', url), {
          method: 'POST',
          headers,
          body: JSON.stringify({ order_ref, client, sku, quantity }),
        });
        if (!response.ok) throw new Error(`create_order failed: ${response.status} ${response.statusText}`);
        return response.json();
      },
    }),
    list_orders: tool({
      description: 'Lists the orders the shop holds for us.',
      inputSchema: jsonSchema({ type: 'object', properties: {} }),
      execute: async () => {
        const listing = new URL('/orders', url);
        listing.searchParams.set('client', client);
        const response = await fetch(listing);
        if (!response.ok) throw new Error(`list_orders failed: ${response.status} ${response.statusText}`);
        const { orders } = await response.json();
        return orders.map(({ order_ref, sku, quantity }) => ({ order_ref, sku, quantity }));
      },
    }),
  };
}

/** One agent run against the orders server at `url`. */
export async function runAgent(url, variant) {
  if (!VARIANTS.includes(variant)) throw new Error(`variant must be one of ${VARIANTS.join(', ')}, not ${variant}`);
  const { model, prompts } = scriptedModel();
  const client = `js-${variant}`;
  let result;
  let run = null;
  if (variant === 'stoic') {
    run = new Run(`agent-demo-${client}`);
    const tools = stoicTools(run, toolsFor(url, createFetch(), client, variant), { idempotent: ['list_orders'] });
    result = await generateText({ model, maxRetries: 0, tools, stopWhen: stepCountIs(12), prompt: SCRIPT.prompt });
  } else {
    const tools = toolsFor(url, globalThis.fetch, client, variant);
    result = await generateText({ model, tools, stopWhen: stepCountIs(12), prompt: SCRIPT.prompt });
  }
  return {
    framework: `ai ${AI_VERSION}`,
    variant,
    turns: prompts.length,
    transcript: transcript(prompts.at(-1), result.text),
    retries_inside: run === null ? 0 : run.retriesUsed,
  };
}

async function main(argv = process.argv.slice(2)) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { variant: { type: 'string', default: 'stoic' }, json: { type: 'string' } },
  });
  if (positionals.length !== 1) {
    console.error('usage: agent_ai_sdk.mjs URL [--variant stoic|defaults] [--json PATH]');
    return 2;
  }
  const done = await runAgent(positionals[0], values.variant);
  const text = JSON.stringify(done, null, 1);
  if (values.json !== undefined) writeFileSync(values.json, text);
  else console.log(text);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
