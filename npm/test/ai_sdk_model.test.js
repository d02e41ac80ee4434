// The AI SDK's model calls with stoic owning their retries: the real OpenAI
// provider (@ai-sdk/openai) given createFetch({ returnFailedResponses: true })
// as its fetch, and generateText with maxRetries: 0, against a local Chat
// Completions API that answers 503 twice, then a completion. Asserted: the
// text comes back, the API saw three requests (one layer retried: stoic's,
// not the SDK's three tries times stoic's five), and a 400 is sent once and
// reaches the caller as the SDK's own error.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import { createFetch, Policy } from '../dist/node.js';
import { startServer } from '../testlib/server.js';

const completion = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-test',
  choices: [{ index: 0, message: { role: 'assistant', content: 'order placed' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
});
const json = { 'content-type': 'application/json' };

let server;
before(async () => {
  server = await startServer({
    '/flaky/chat/completions': [
      { status: 503, headers: json, body: '{"error":{"message":"overloaded"}}' },
      { status: 503, headers: json, body: '{"error":{"message":"overloaded"}}' },
      { status: 200, headers: json, body: completion },
    ],
    '/bad/chat/completions': [{ status: 400, headers: json, body: '{"error":{"message":"unknown model","type":"invalid_request_error"}}' }],
  });
});
after(() => server.close());

function provider(path) {
  const policy = new Policy({ seed: 1, backoff: { strategy: 'constant', baseMs: 5, capMs: 5 } });
  const fetch = createFetch({ policy, returnFailedResponses: true });
  return { openai: createOpenAI({ baseURL: server.url(path), apiKey: 'test-key', fetch }), policy };
}

test('a model call through createFetch: stoic retries the 503s, the SDK does not', async () => {
  const { openai, policy } = provider('/flaky');
  const { text } = await generateText({ model: openai.chat('gpt-test'), prompt: 'place the order', maxRetries: 0 });
  assert.equal(text, 'order placed');
  assert.equal(server.hits('/flaky/chat/completions'), 3, 'two 503s retried by stoic, then the completion');
  policy.free();
});

test('a 400 from the model API is sent once and reaches the caller as the SDK\'s error', async () => {
  const { openai, policy } = provider('/bad');
  await assert.rejects(generateText({ model: openai.chat('gpt-test'), prompt: 'x', maxRetries: 0 }), (error) => {
    assert.equal(error.statusCode, 400);
    assert.match(error.message, /unknown model/);
    return true;
  });
  assert.equal(server.hits('/bad/chat/completions'), 1);
  policy.free();
});
