// createFetch(): each request's plan (operation, scope, key) is its own,
// though the runtime keeps the last plan asked without a key (http-plan.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Policy, createFetch } from '../dist/node.js';

function recording() {
  const records = [];
  const sent = [];
  const policy = new Policy({ logRecords: true, onEvent: (e) => e.kind === 'log' && records.push(e) });
  const fetch = async (input, init) => {
    sent.push(new Headers(init?.headers).get('idempotency-key'));
    return new Response('ok', { status: 200, headers: { 'content-type': 'text/plain' } });
  };
  return { records, sent, stoicFetch: createFetch({ policy, fetch }) };
}

test('requests in a row keep their own operation, scope and key', async () => {
  const { records, sent, stoicFetch } = recording();
  await stoicFetch('http://a.test/x');
  await stoicFetch('http://a.test/x');
  await stoicFetch('http://a.test/x', { method: 'POST' });
  await stoicFetch('http://a.test/x', { method: 'POST', idempotencyKey: 'k-1' });
  await stoicFetch('http://a.test/y');
  await stoicFetch('http://b.test/y');
  await stoicFetch('http://a.test/x', { method: 'POST' });
  assert.deepEqual(
    records.map((e) => [e.scope, e.record.operation]),
    [
      ['a.test', 'GET /x'],
      ['a.test', 'GET /x'],
      ['a.test', 'POST /x'],
      ['a.test', 'POST /x'],
      ['a.test', 'GET /y'],
      ['b.test', 'GET /y'],
      ['a.test', 'POST /x'],
    ],
  );
  // A GET gets no automatic key; each POST without one gets a fresh one.
  assert.equal(sent[0], null);
  assert.equal(sent[1], null);
  assert.equal(sent[3], 'k-1');
  assert.ok(sent[2] && sent[6] && sent[2] !== sent[6]);
});

test('an event stream after other content types is still handed over before its body ends', { timeout: 10_000 }, async () => {
  const types = ['application/json', 'text/event-stream', 'application/json'];
  let i = 0;
  let open;
  const fetch = async () => {
    const type = types[i++];
    if (type !== 'text/event-stream') return new Response('{}', { status: 200, headers: { 'content-type': type } });
    // A stream that stays open until the test has the response.
    const body = new ReadableStream({ start: (c) => { open = c; c.enqueue(new TextEncoder().encode('data: 1\n\n')); } });
    return new Response(body, { status: 200, headers: { 'content-type': type } });
  };
  const stoicFetch = createFetch({ policy: new Policy(), fetch });
  assert.equal(await (await stoicFetch('http://a.test/e')).text(), '{}');
  const streamed = await stoicFetch('http://a.test/e');
  open.close();
  assert.equal(await streamed.text(), 'data: 1\n\n');
  assert.equal(await (await stoicFetch('http://a.test/e')).text(), '{}');
});
