// stoic/openai-agents with the real OpenAI Agents SDK (@openai/agents
// 0.20.x): a scripted model (the SDK's Model interface) drives the agent
// loop whose function tools write to a local orders server through
// createFetch; then the SDK's own Chat Completions model over an OpenAI
// client whose retries are stoic's, against a local model API. Asserted:
// what the model received at each turn and what the servers recorded.
// Waits go to an injected sleep: no test waits.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { Agent, OpenAIChatCompletionsModel, Runner, tool, Usage } from '@openai/agents';
import { z } from 'zod';
import { createFetch, idempotencyKey, Policy, Run } from '../dist/node.js';
import { errorFunction, runTool, ToolFailure } from 'stoic/openai-agents';
import { startServer } from '../testlib/server.js';
import { FAST, ordersRoute, sleep } from '../testlib/agents.js';

/** A chat completion in the API's shape: tool calls, or text. */
function completion(message, finish) {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
}

let server;
before(async () => {
  const json = { 'content-type': 'application/json' };
  server = await startServer({
    '/orders': [ordersRoute()],
    '/v1/chat/completions': [
      { status: 503, headers: json, body: '{"error":{"message":"overloaded"}}' },
      {
        status: 200,
        headers: json,
        body: completion(
          { content: null, tool_calls: [{ id: 'call_m1', type: 'function', function: { name: 'create_order', arguments: '{"sku":"mug","quantity":2}' } }] },
          'tool_calls',
        ),
      },
      { status: 200, headers: json, body: completion({ content: 'Placed.' }, 'stop') },
    ],
  });
});
after(() => server.close());

/** A scripted model: each turn answers with the next output; every input it received is kept. */
function scriptedModel(turns) {
  const inputs = [];
  const model = {
    async getResponse(request) {
      inputs.push(structuredClone(request.input));
      return { usage: new Usage(), output: turns[inputs.length - 1] };
    },
    async *getStreamedResponse() {
      throw new Error('not scripted');
    },
  };
  return { model, inputs };
}

const call = (callId, name, args) => ({
  type: 'function_call',
  callId,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
  status: 'completed',
});
const say = (text) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] });

/** The tool outputs a turn's input carries, by call id. */
function toolOutputs(input) {
  const outputs = {};
  for (const item of input) if (item.type === 'function_call_result') outputs[item.callId] = item.output.text ?? item.output;
  return outputs;
}

function orderTool(run, fetch, ran) {
  return tool(
    runTool(run, {
      name: 'create_order',
      description: 'Create an order',
      parameters: z.object({ sku: z.string(), quantity: z.number() }),
      execute: async (input) => {
        ran.count += 1;
        const response = await fetch(server.url('/orders'), { method: 'POST', body: JSON.stringify(input) });
        if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status });
        return JSON.stringify(await response.json());
      },
    }),
  );
}

test("the agent loop: the 422 reaches the model as the observation through the SDK's failure path, the 503 never does", async () => {
  const run = new Run('run-oa-1', { policyOptions: FAST, sleep });
  const fetch = createFetch({ policy: new Policy(FAST), sleep });
  const ran = { count: 0 };
  const { model, inputs } = scriptedModel([
    [call('call_1', 'create_order', { sku: 'tea', quantity: 0 })],
    [call('call_2', 'create_order', { sku: 'tea', quantity: 2 })],
    [say('Order 1 is placed.')],
  ]);
  const agent = new Agent({ name: 'orders', instructions: 'Place orders.', model, tools: [orderTool(run, fetch, ran)] });
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'Order two teas.');

  assert.equal(result.finalOutput, 'Order 1 is placed.');
  assert.equal(inputs.length, 3);
  const observation = toolOutputs(inputs[1]).call_1;
  assert.match(observation, /^HTTP 422 Unprocessable Content .* Change the request/);
  assert.match(observation, /quantity must be positive/);
  assert.doesNotMatch(observation, /An error occurred while running the tool/);
  assert.deepEqual(JSON.parse(toolOutputs(inputs[2]).call_2), { id: 1, sku: 'tea', quantity: 2 });
  assert.doesNotMatch(JSON.stringify(inputs), /503|busy|Service Unavailable/);

  const sent = server.requests.filter((r) => r.path === '/orders');
  assert.deepEqual(
    sent.map((r) => [JSON.parse(r.body).quantity, r.headers['idempotency-key']]),
    [
      [0, idempotencyKey('run-oa-1', 'call_1', { sku: 'tea', quantity: 0 })],
      [2, idempotencyKey('run-oa-1', 'call_2', { sku: 'tea', quantity: 2 })],
      [2, idempotencyKey('run-oa-1', 'call_2', { sku: 'tea', quantity: 2 })],
    ],
  );
  assert.equal(ran.count, 2); // the 503 was createFetch's to retry, inside one run of the tool
});

test("arguments that fail the tool's schema are answered with the engine's words; JSON that does not parse stays the SDK's; the tool does not run", async () => {
  const run = new Run('run-oa-2', { policyOptions: FAST, sleep });
  const ran = { count: 0 };
  const { model, inputs } = scriptedModel([
    [call('call_1', 'create_order', '{"sku": "tea", "quantity": 2'), call('call_2', 'create_order', { sku: 'tea', quantity: 'two' })],
    [say('Sorry.')],
  ]);
  const fetch = createFetch({ policy: new Policy(FAST), sleep });
  const agent = new Agent({ name: 'orders', instructions: 'x', model, tools: [orderTool(run, fetch, ran)] });
  await new Runner({ tracingDisabled: true }).run(agent, 'Order two teas.');
  const outputs = toolOutputs(inputs[1]);
  // The runner answers JSON it cannot parse before any tool runs, in its own words (which ask for valid JSON).
  assert.match(outputs.call_1, /Please try again with valid JSON/);
  assert.match(outputs.call_2, /Invalid JSON input for tool.*Change the arguments/);
  assert.doesNotMatch(outputs.call_2, /An error occurred while running the tool/);
  assert.equal(ran.count, 0);
});

test('errorFunction alone: a ToolFailure is its observation, any other error the engine\'s words for one attempt', async () => {
  const run = new Run('run-oa-3', { sleep });
  const answer = errorFunction(run);
  const failed = await run.call('c1', () => {
    throw Object.assign(new Error('HTTP 404'), { status: 404 });
  });
  assert.equal(await answer({}, new ToolFailure(failed)), failed.observation);
  const busy = await answer({}, Object.assign(new Error('HTTP 503'), { status: 503 }), { toolCall: { callId: 'c2', name: 't', arguments: '{}' } });
  assert.match(busy, /^HTTP 503 Service Unavailable/);
  assert.match(busy, /may succeed later/);
  assert.equal(run.retriesUsed, 0); // the probe is a run of its own
  assert.throws(() => errorFunction({}), /run must be a Run/);
});

test("the SDK's Chat Completions model over an OpenAI client whose retries are stoic's: the 503 retried once by stoic, not by the SDK", async () => {
  const run = new Run('run-oa-4', { policyOptions: FAST, sleep });
  const client = new OpenAI({
    baseURL: server.url('/v1'),
    apiKey: 'test',
    maxRetries: 0,
    fetch: createFetch({ policy: new Policy({ ...FAST, breaker: null }), sleep, returnFailedResponses: true }),
  });
  const ran = { count: 0 };
  const fetch = createFetch({ policy: new Policy(FAST), sleep });
  const agent = new Agent({
    name: 'orders',
    instructions: 'Place orders.',
    model: new OpenAIChatCompletionsModel(client, 'gpt-test'),
    tools: [orderTool(run, fetch, ran)],
  });
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'Order two mugs.');
  assert.equal(result.finalOutput, 'Placed.');
  const modelCalls = server.requests.filter((r) => r.path === '/v1/chat/completions');
  assert.equal(modelCalls.length, 3); // 503, retried by stoic; then the tool call's turn and the answer
  // The SDK never retried (its retry counter stays 0); stoic's one key per model call, kept on its retry.
  assert.deepEqual(
    modelCalls.map((r) => r.headers['x-stainless-retry-count'] ?? '0'),
    ['0', '0', '0'],
  );
  assert.equal(modelCalls[0].headers['idempotency-key'], modelCalls[1].headers['idempotency-key']);
  assert.notEqual(modelCalls[1].headers['idempotency-key'], modelCalls[2].headers['idempotency-key']);
  // The tool's order went through.
  assert.equal(JSON.parse(server.requests.filter((r) => r.path === '/orders').at(-1).body).sku, 'mug');
});
