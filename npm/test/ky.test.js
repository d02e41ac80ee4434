// createFetch() as ky's `fetch` option, with the real ky against a real
// local server that does not cooperate: it ignores Idempotency-Key unless a
// test says it deduplicates, resets connections and cuts bodies. ky's own
// retries and timeout are off: the engine retries and keeps the deadlines.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import ky from 'ky';
import { createFetch, Policy, RetryError } from '../dist/node.js';
import { startServer } from '../testlib/server.js';

let server;
const sleeps = [];
const sleep = async (ms) => {
  sleeps.push(ms);
};

/** 200 with a 1000-byte Content-Length, 10 bytes sent, then the socket closed. */
const cut = (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
  res.write('{"items": ');
  setImmediate(() => req.socket.destroy());
};

before(async () => {
  server = await startServer({
    '/orders': ['reset', { status: 429, headers: { 'retry-after': '2' } }, { status: 201, body: '{"id": 7}' }],
    '/charges': [{ status: 500, body: 'boom' }, { status: 201, body: '{"id": 8}' }],
    '/missing': [{ status: 404, body: 'no order 42 here' }],
    '/items': [cut, { headers: { 'content-type': 'application/json' }, body: '{"items": [1, 2]}' }],
  });
});

after(() => server.close());

function api(options = {}) {
  const policy = new Policy({ seed: 3, backoff: { strategy: 'exponential', baseMs: 10, capMs: 100 } });
  const fetch = createFetch({ policy, sleep, ...options });
  return ky.create({ fetch, retry: 0, timeout: false });
}

test('a keyed POST to a server that deduplicates is retried with one key, waiting as told', async () => {
  sleeps.length = 0;
  const order = await api({ serverDeduplicates: true }).post(server.url('/orders'), { json: { item: 'tea' } }).json();
  assert.deepEqual(order, { id: 7 });
  const sent = server.requests.filter((r) => r.path === '/orders');
  assert.equal(sent.length, 3);
  assert.equal(new Set(sent.map((r) => r.headers['idempotency-key'])).size, 1);
  assert.ok(sent[0].headers['idempotency-key']);
  assert.ok(sent.every((r) => r.body === '{"item":"tea"}'), 'ky\'s body is sent whole by every attempt');
  assert.equal(sleeps.at(-1), 2000, "the server's Retry-After");
});

test('an unkeyed POST to a server that ignores keys is sent once, and ky rejects with the observation', async () => {
  const error = await api()
    .post(server.url('/charges'), { json: { amount: 10 } })
    .json()
    .catch((e) => e);
  assert.ok(error instanceof RetryError, String(error));
  assert.equal(error.code, 'not_idempotent');
  assert.equal(error.response.status, 500);
  assert.match(error.observation, /may already have been applied/);
  assert.equal(server.hits('/charges'), 1);
});

test('a 404 is not retried: the observation says why', async () => {
  const error = await api().get(server.url('/missing')).text().catch((e) => e);
  assert.ok(error instanceof RetryError);
  assert.equal(error.code, 'not_retryable');
  assert.match(error.observation, /no order 42 here/);
  assert.equal(server.hits('/missing'), 1);
});

test('a body cut off mid-read is that attempt failing: ky gets the whole body of the retry', async () => {
  const body = await api().get(server.url('/items')).json();
  assert.deepEqual(body, { items: [1, 2] });
  assert.equal(server.hits('/items'), 2);
});

test('the example runs', async () => {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, [new URL('../../examples/js_ky.mjs', import.meta.url).pathname], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.match(out, /-> 503\n.*-> 429\n.*-> 201\nclient got order 7\n$/s);
  assert.equal(new Set(out.match(/key=[0-9a-f-]+/g)).size, 1, 'one key for every attempt');
});
