// Retries that multiply are seen: a request that reaches createFetch already
// retried by the layer above (the OpenAI SDK's own retries, marked
// x-stainless-retry-count) queues a nested_retries event; the recipe (the
// SDK's retries off) queues none. The real SDK against a local 503 storm.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createFetch, Policy } from '../dist/node.js';
import { startServer } from '../testlib/server.js';

let server;
const sleep = async () => {};

before(async () => {
  server = await startServer({
    '/v1/chat/completions': [{ status: 503, headers: { 'retry-after-ms': '1' }, body: '{"error":{"message":"busy"}}' }],
  });
});

after(() => server.close());

async function ask(maxRetries) {
  const events = [];
  const policy = new Policy({ seed: 1, breaker: null, maxAttempts: 2, onEvent: (e) => events.push(e) });
  const client = new OpenAI({ baseURL: server.url('/v1'), apiKey: 'test', maxRetries, fetch: createFetch({ policy, sleep }) });
  const before = server.hits('/v1/chat/completions');
  await assert.rejects(client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }));
  policy.flush?.();
  return { nested: events.filter((e) => e.kind === 'nested_retries'), sent: server.hits('/v1/chat/completions') - before };
}

test("the SDK's own retries under createFetch are reported, once per retried request", async () => {
  const { nested, sent } = await ask(2);
  // The SDK's first attempt is not a retry; its two retries each arrive marked.
  assert.deepEqual(nested.map((e) => e.retriesAbove), [1, 2]);
  assert.match(nested[0].message, /turn that layer's retries off/);
  assert.equal(nested[0].scope, new URL(server.url('/')).host);
  assert.equal(sent, 6); // 3 SDK attempts x 2 of stoic's
});

test('the recipe (maxRetries: 0) reports nothing', async () => {
  const { nested, sent } = await ask(0);
  assert.deepEqual(nested, []);
  assert.equal(sent, 2);
});
