// stoic/ai with the real Vercel AI SDK (ai 7.x): its mock language model
// drives a multi-step tool loop (generateText, stopWhen) whose tools write
// to a local orders server through createFetch. Asserted: what the model
// received in its prompt at each step (transient failures invisible, the
// 422's observation as the SDK's tool-error text) and what the server
// recorded. Waits go to an injected sleep: no test waits.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { createFetch, idempotencyKey, Policy, Run } from '../dist/node.js';
import { stoicTools, ToolFailure } from 'stoic/ai';
import { startServer } from '../testlib/server.js';
import { FAST, ordersRoute, sleep } from '../testlib/agents.js';

let server;
before(async () => {
  server = await startServer({
    '/orders': [ordersRoute()],
    '/lost-ack': ['reset', { status: 201, body: '{"id":7}' }],
    '/status': ['reset', { status: 200, body: '{"open":true}' }],
  });
});
after(() => server.close());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A scripted model: each step answers with the next reply; every prompt it received is kept. */
function scriptedModel(replies) {
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(structuredClone(options.prompt));
      const reply = replies[prompts.length - 1];
      if (reply.text !== undefined) {
        return { content: [{ type: 'text', text: reply.text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      }
      return {
        content: reply.calls.map(([toolCallId, toolName, input]) => ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

/** The tool results a prompt carries, by tool call id. */
function toolResults(prompt) {
  const results = {};
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') results[part.toolCallId] = part.output;
  }
  return results;
}

function orderTools(fetch) {
  const post = async (path, body) => {
    const response = await fetch(server.url(path), { method: 'POST', body: JSON.stringify(body) });
    if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status });
    return response.json();
  };
  return {
    create_order: tool({
      description: 'Create an order',
      inputSchema: z.object({ sku: z.string(), quantity: z.number() }),
      execute: async (input) => post('/orders', input),
    }),
    create_order_lost: tool({
      inputSchema: z.object({ sku: z.string() }),
      execute: async (input) => post('/lost-ack', input),
    }),
    open_store: tool({
      inputSchema: z.object({}),
      execute: async () => post('/status', {}),
    }),
  };
}

test('a multi-step tool loop: the 422 reaches the model as the observation, the 503 never does', async () => {
  const run = new Run('run-ai-1', { policyOptions: FAST, sleep });
  const fetch = createFetch({ policy: new Policy(FAST), sleep });
  const { model, prompts } = scriptedModel([
    { calls: [['call_1', 'create_order', { sku: 'tea', quantity: 0 }]] },
    { calls: [['call_2', 'create_order', { sku: 'tea', quantity: 2 }]] },
    { text: 'Order 1 is placed.' },
  ]);
  const toolErrors = [];
  const result = await generateText({
    model,
    maxRetries: 0,
    tools: stoicTools(run, orderTools(fetch)),
    stopWhen: stepCountIs(5),
    prompt: 'Order two teas.',
    onStepFinish: (step) => toolErrors.push(...step.content.filter((part) => part.type === 'tool-error')),
  });

  assert.equal(result.text, 'Order 1 is placed.');
  assert.equal(prompts.length, 3);
  // Step 1: the user's words only.
  assert.deepEqual(toolResults(prompts[0]), {});
  // Step 2: the 422 as the SDK's error text, and that text is the run's observation, word for word.
  const second = toolResults(prompts[1]);
  assert.equal(second.call_1.type, 'error-text');
  const observation = second.call_1.value;
  assert.match(observation, /^HTTP 422 Unprocessable Content/);
  assert.match(observation, /quantity must be positive/);
  assert.match(observation, /Change the request/);
  assert.doesNotMatch(observation, /ToolFailure|^\{\}$/);
  assert.equal(toolErrors.length, 1);
  assert.ok(toolErrors[0].error instanceof ToolFailure);
  assert.equal(toolErrors[0].error.result.observation, observation);
  assert.equal(toolErrors[0].error.reason, 'deterministic');
  assert.equal(toolErrors[0].error.retryable, false);
  // Step 3: the order, and nothing of the 503 before it.
  const third = toolResults(prompts[2]);
  assert.deepEqual(third.call_2, { type: 'json', value: { id: 1, sku: 'tea', quantity: 2 } });
  assert.equal(third.call_1.value, observation);
  assert.doesNotMatch(JSON.stringify(prompts), /503|busy|Service Unavailable/);

  // The server: the bad order once, the good one twice with one key (createFetch retried the 503).
  const sent = server.requests.filter((r) => r.path === '/orders');
  assert.deepEqual(
    sent.map((r) => [JSON.parse(r.body).quantity, r.headers['idempotency-key']]),
    [
      [0, idempotencyKey('run-ai-1', 'call_1', { sku: 'tea', quantity: 0 })],
      [2, idempotencyKey('run-ai-1', 'call_2', { sku: 'tea', quantity: 2 })],
      [2, idempotencyKey('run-ai-1', 'call_2', { sku: 'tea', quantity: 2 })],
    ],
  );
  assert.equal(run.retriesUsed, 1);
});

test('a write whose answer was lost is sent once and the model is told to check; a tool declared idempotent is repeated', async () => {
  const run = new Run('run-ai-2', { policyOptions: FAST, sleep });
  const fetch = createFetch({ policy: new Policy(FAST), sleep });
  const { model, prompts } = scriptedModel([
    {
      calls: [
        ['call_a', 'create_order_lost', { sku: 'tea' }],
        ['call_b', 'open_store', {}],
      ],
    },
    { text: 'Checked.' },
  ]);
  await generateText({
    model,
    maxRetries: 0,
    tools: stoicTools(run, orderTools(fetch), { idempotent: ['open_store'] }),
    stopWhen: stepCountIs(3),
    prompt: 'Order a tea.',
  });
  const results = toolResults(prompts[1]);
  assert.equal(results.call_a.type, 'error-text');
  assert.match(results.call_a.value, /may already have been applied/);
  assert.match(results.call_a.value, /Check whether it took effect/);
  assert.deepEqual(results.call_b, { type: 'json', value: { open: true } });
  assert.equal(server.hits('/lost-ack'), 1);
  assert.equal(server.hits('/status'), 2);
});

test('ToolFailure reads as the observation on every path the SDK may take', async () => {
  const run = new Run('run-ai-3', { sleep });
  const tools = stoicTools(run, {
    broken: tool({
      inputSchema: z.object({ n: z.number() }),
      execute: async () => {
        throw Object.assign(new Error('HTTP 404'), { status: 404 });
      },
    }),
    client_side: tool({ inputSchema: z.object({}) }),
  });
  assert.equal(tools.client_side.execute, undefined); // no execute: left to the caller
  const error = await tools.broken.execute({ n: 1 }, { toolCallId: 'c1', messages: [] }).then(
    () => assert.fail('resolved'),
    (e) => e,
  );
  assert.ok(error instanceof ToolFailure);
  assert.match(error.message, /^HTTP 404 Not Found/);
  assert.equal(String(error), error.message);
  assert.equal(JSON.parse(JSON.stringify(error)), error.message);
  assert.equal(error.key, idempotencyKey('run-ai-3', 'c1', { n: 1 }));
  assert.throws(() => stoicTools(run, tools, { idempotent: ['nope'] }), /"nope", which is not a tool/);
  assert.throws(() => stoicTools({}, tools), /run must be a Run/);
});
