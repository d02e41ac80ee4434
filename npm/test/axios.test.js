// createFetch() as axios' fetch (`adapter: 'fetch'`, `env: { fetch }`), with
// the real axios against a local server that ignores keys unless told:
// axios judges the statuses (returnFailedResponses), the engine retries.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import axios from 'axios';
import { createFetch, Policy, RetryError } from '../dist/node.js';
import { startServer } from '../testlib/server.js';

let server;
const sleep = async () => {};

before(async () => {
  server = await startServer({
    '/orders': ['reset', { status: 503 }, { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id": 7}' }],
    '/charges': [{ status: 500, body: 'boom' }, { status: 201 }],
    '/missing': [{ status: 404, body: 'no order 42 here' }],
  });
});
after(() => server.close());

function api(options = {}) {
  const giveUps = [];
  const fetch = createFetch({
    policy: new Policy({ seed: 5 }),
    sleep,
    returnFailedResponses: true,
    onGiveUp: (info) => giveUps.push(info.decision),
    ...options,
  });
  return { client: axios.create({ baseURL: server.url(''), adapter: 'fetch', env: { fetch } }), giveUps };
}

test('a keyed POST to a server that deduplicates is retried with one key', async () => {
  const { client } = api({ serverDeduplicates: true });
  const response = await client.post('/orders', { item: 'tea' });
  assert.equal(response.status, 201);
  assert.deepEqual(response.data, { id: 7 });
  const sent = server.requests.filter((r) => r.path === '/orders');
  assert.equal(sent.length, 3);
  assert.equal(new Set(sent.map((r) => r.headers['idempotency-key'])).size, 1);
  assert.ok(sent.every((r) => r.body === '{"item":"tea"}'));
});

test('failed responses reach axios, which judges them; the decision goes to onGiveUp', async () => {
  const { client, giveUps } = api();
  const missing = await client.get('/missing').catch((e) => e);
  assert.equal(missing.name, 'AxiosError');
  assert.equal(missing.response.status, 404);
  assert.equal(server.hits('/missing'), 1);
  // An unkeyed POST to a server that ignores keys: sent once.
  const charge = await client.post('/charges', { amount: 10 }).catch((e) => e);
  assert.equal(charge.response.status, 500);
  assert.equal(server.hits('/charges'), 1);
  assert.deepEqual(giveUps.map((d) => d.reason), ['not_retryable', 'not_idempotent']);
});

test("a call that ends without a response rejects with axios' error, the RetryError as its cause", async () => {
  const fetch = createFetch({ policy: new Policy({ maxAttempts: 2 }), sleep, returnFailedResponses: true });
  const client = axios.create({ adapter: 'fetch', env: { fetch } });
  // A port nothing listens on (port 9 would be one fetch refuses outright).
  const closed = await startServer({});
  const url = closed.url('/');
  await closed.close();
  const error = await client.get(url).catch((e) => e);
  assert.ok(error instanceof axios.AxiosError, String(error));
  assert.equal(error.code, 'attempts_exhausted', "axios keeps the engine's code");
  assert.ok(error.cause instanceof RetryError);
  assert.equal(error.cause.decision.attempts, 2);
});

test('the example runs', async () => {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, [new URL('../../examples/js_axios.mjs', import.meta.url).pathname], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.match(out, /-> 503\n.*-> 429\n.*-> 201\nclient got order 7\n$/s);
  assert.equal(new Set(out.match(/key=[0-9a-f-]+/g)).size, 1, 'one key for every attempt');
});
