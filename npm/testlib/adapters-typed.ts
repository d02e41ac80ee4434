// Type-checked by test/adapter_types.test.js against the frameworks' own
// types (the pinned ai, @modelcontextprotocol/sdk and @openai/agents): what
// a TypeScript user writes with stoic/ai, stoic/mcp and stoic/openai-agents
// compiles without casts.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { Run } from 'stoic';
import { stoicTools, ToolFailure } from 'stoic/ai';
import { callTool, asCallToolResult, toolHandler, ToolReplays } from 'stoic/mcp';
import { Agent, tool as agentsTool } from '@openai/agents';
import { errorFunction, runTool } from 'stoic/openai-agents';

const run = new Run('run-7');

// Server: a handler with an input schema, and one without input.
const server = new McpServer({ name: 'orders', version: '1.0.0' });
server.registerTool(
  'create_order',
  { inputSchema: { sku: z.string(), quantity: z.number() } },
  toolHandler(
    'create_order',
    async ({ sku, quantity }: { sku: string; quantity: number }, extra, call) => ({
      content: [{ type: 'text' as const, text: `${sku} x${quantity} ${call.key} ${String(extra.requestId)}` }],
    }),
    { run: () => new Run('orders-mcp'), replays: new ToolReplays({ ttlMs: 60_000 }) },
  ),
);
server.registerTool(
  'status',
  { inputSchema: {} },
  toolHandler('status', async (_args, extra, call) => ({ content: [{ type: 'text' as const, text: `${call.key} ${extra.sessionId ?? ''}` }] }), { run }),
);

// Client: the SDK's Client as callTool's client; the answer as the model reads it.
const client = new Client({ name: 'agent', version: '1.0.0' });
export const answer = callTool(client, run, 'call_1', { name: 'create_order', arguments: { sku: 'tea', quantity: 2 } }).then((result) =>
  result.ok ? asCallToolResult(result).content : result.observation,
);

// The AI SDK: a wrapped tool set is still the SDK's tool set.
const tools = stoicTools(
  run,
  {
    getOrder: tool({ inputSchema: z.object({ id: z.number() }), execute: async ({ id }) => ({ id }) }),
    createOrder: tool({ inputSchema: z.object({ sku: z.string() }), execute: async ({ sku }) => ({ sku }) }),
  },
  { idempotent: ['getOrder'] },
);
export const generated = generateText({ model: new MockLanguageModelV4(), maxRetries: 0, tools, stopWhen: stepCountIs(3), prompt: 'hi' }).then((r) =>
  r.steps.flatMap((step) => step.content).map((part) => (part.type === 'tool-error' && part.error instanceof ToolFailure ? part.error.reason : part.type)),
);

// The OpenAI Agents SDK: runTool's options are still tool()'s; errorFunction is one.
const createOrder = agentsTool(
  runTool(run, {
    name: 'create_order',
    description: 'Create an order',
    parameters: z.object({ sku: z.string() }),
    execute: async ({ sku }: { sku: string }) => `ordered ${sku}`,
  }),
);
const getOrder = agentsTool({
  name: 'get_order',
  description: 'Read an order',
  parameters: z.object({ id: z.number() }),
  execute: async ({ id }) => `order ${id}`,
  errorFunction: errorFunction(run),
});
export const agent = new Agent({ name: 'orders', instructions: 'Place orders.', tools: [createOrder, getOrder] });
