// Concurrent calls on one Policy: each call's retry delay is its own. The
// module keeps the latest decision in shared slots, so a runtime that read
// them after an await could pick up another call's delay. Each call here is
// answered 503 with its own Retry-After; the injected sleep records who
// waited how long. Responses are real (undici's); only the network is
// skipped, so the interleaving of the calls' awaits is the same every run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFetch, Policy, retry } from '../dist/node.js';

const HINTS = [1, 2, 3, 4, 5, 6];
const busy = (seconds, body = 'busy') => new Response(body, { status: 503, headers: { 'retry-after': String(seconds) } });

function recorder() {
  const waits = new Map();
  const sleepFor = (name) => async (ms) => {
    waits.set(name, [...(waits.get(name) ?? []), ms]);
  };
  return { waits, sleepFor };
}

test('createFetch: concurrent calls each wait their own Retry-After', async () => {
  const policy = new Policy({ seed: 5, breaker: null });
  const { waits, sleepFor } = recorder();
  const calls = HINTS.map((hint) => {
    let sent = 0;
    const fetch = createFetch({
      policy,
      sleep: sleepFor(hint),
      fetch: async () => (sent++ === 0 ? busy(hint) : new Response('ok')),
    });
    return fetch(`http://127.0.0.1:9/orders/${hint}`, { method: 'POST', body: '{}' });
  });
  const responses = await Promise.all(calls);
  assert.deepEqual(responses.map((r) => r.status), HINTS.map(() => 200));
  assert.deepEqual(Object.fromEntries(waits), Object.fromEntries(HINTS.map((h) => [h, [h * 1000]])));
});

test('retry(): concurrent calls with an async validator each wait their own Retry-After', async () => {
  const policy = new Policy({ seed: 5, breaker: null });
  const { waits, sleepFor } = recorder();
  const calls = HINTS.map((hint) => {
    let sent = 0;
    return retry(async () => (sent++ === 0 ? busy(hint) : new Response('ok')), {
      policy,
      sleep: sleepFor(hint),
      // An await inside the judgement lets the other calls decide meanwhile.
      validate: async () => {
        await new Promise((resolve) => setTimeout(resolve, 0));
        return undefined;
      },
    });
  });
  const responses = await Promise.all(calls);
  assert.deepEqual(responses.map((r) => r.status), HINTS.map(() => 200));
  assert.deepEqual(Object.fromEntries(waits), Object.fromEntries(HINTS.map((h) => [h, [h * 1000]])));
});
