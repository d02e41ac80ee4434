// createFetch() against a real local HTTP server: 429 with Retry-After,
// 503, connection resets, a hang past the attempt timeout, and 200 with an
// error body. Waits are recorded by an injected sleep, so no test waits.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createFetch, Policy, RetryError } from '../dist/node.js';
import { startServer } from '../testlib/server.js';

let server;
const sleeps = [];
const sleep = async (ms) => {
  sleeps.push(ms);
};

before(async () => {
  server = await startServer({
    '/rate-limited': [{ status: 429, headers: { 'retry-after': '3' }, body: 'slow down' }, { body: 'ok' }],
    '/rate-limited-twice': [{ status: 429, headers: { 'retry-after': ['1', '100'] }, body: 'slow down' }, { body: 'ok' }],
    '/unavailable': [{ status: 503 }, { status: 503 }, { body: 'back' }],
    '/reset': ['reset', { body: 'after reset' }],
    '/orders': ['reset', 'reset', { status: 201, body: 'created' }],
    '/hang': ['hang', { body: 'fast now' }],
    '/error-body': [{ body: '{"error":"stale"}' }, { body: '{"ok":true}' }],
    '/missing': [{ status: 404, body: 'no order 42 here' }],
    '/always-503': [{ status: 503, body: 'still down' }],
  });
});

after(() => server.close());

function client(config = {}, options = {}) {
  const policy = new Policy({
    seed: 11,
    backoff: { strategy: 'exponential', baseMs: 10, capMs: 100, multiplier: 2 },
    ...config,
  });
  return { policy, fetch: createFetch({ policy, sleep, ...options }) };
}

test('429 with Retry-After waits what the server asked, then returns the response', async () => {
  sleeps.length = 0;
  const { fetch } = client();
  const response = await fetch(server.url('/rate-limited'));
  assert.equal(response.status, 200);
  assert.equal(await response.text(), 'ok');
  assert.deepEqual(sleeps, [3000]);
});

test('two Retry-After headers, which fetch joins as "1, 100": the first is the wait', async () => {
  sleeps.length = 0;
  const { fetch } = client();
  const response = await fetch(server.url('/rate-limited-twice'));
  assert.equal(await response.text(), 'ok');
  assert.deepEqual(sleeps, [1000]);
});

test('503 twice: backoff delays from the core, then success', async () => {
  sleeps.length = 0;
  const { fetch, policy } = client();
  const response = await fetch(server.url('/unavailable'));
  assert.equal(await response.text(), 'back');
  assert.deepEqual(sleeps, [10, 20]);
  assert.equal(policy.metrics()[`127.0.0.1:${server.port}`].retrySuccess, 1);
});

test('a connection reset on a GET is retried (idempotent), without an Idempotency-Key', async () => {
  const { fetch } = client();
  const response = await fetch(server.url('/reset'));
  assert.equal(await response.text(), 'after reset');
  const sent = server.requests.filter((r) => r.path === '/reset');
  assert.equal(sent.length, 2);
  assert.ok(sent.every((r) => r.headers['idempotency-key'] === undefined));
});

test('an automatic key alone never repeats a POST: a reset after sending ends the call', async () => {
  const local = await startServer({ '/orders': ['reset', { status: 201, body: 'created' }] });
  try {
    const { fetch } = client();
    const error = await fetch(local.url('/orders'), { method: 'POST', body: '{"sku":1}' }).catch((e) => e);
    assert.ok(error instanceof RetryError, String(error));
    assert.equal(error.code, 'not_idempotent');
    assert.match(error.observation, /server is known to honour/);
    assert.equal(local.requests.length, 1);
    assert.ok(local.requests[0].headers['idempotency-key'], 'the key is still sent');
  } finally {
    await local.close();
  }
});

test('with keys: false no key is sent at all', async () => {
  const local = await startServer({ '/orders': [{ status: 201, body: 'created' }] });
  try {
    const { fetch } = client({}, { keys: false });
    await (await fetch(local.url('/orders'), { method: 'POST', body: 'x' })).text();
    assert.equal(local.requests[0].headers['idempotency-key'], undefined);
  } finally {
    await local.close();
  }
});

test('a POST gets one Idempotency-Key, the same on every retry, when the server deduplicates', async () => {
  const { fetch } = client({}, { serverDeduplicates: true });
  const response = await fetch(server.url('/orders'), { method: 'POST', body: '{"sku":1}' });
  assert.equal(response.status, 201);
  const sent = server.requests.filter((r) => r.path === '/orders');
  assert.equal(sent.length, 3);
  const keys = new Set(sent.map((r) => r.headers['idempotency-key']));
  assert.equal(keys.size, 1);
  assert.match([...keys][0], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.ok(sent.every((r) => r.body === '{"sku":1}'));
});

test('a caller-chosen key is sent as given; idempotent methods get none', async () => {
  const local = await startServer({ '/pay': ['reset', { body: 'paid' }], '/put': [{ body: 'put' }] });
  try {
    const { fetch } = client();
    const paid = await fetch(local.url('/pay'), { method: 'POST', idempotencyKey: 'order-42' });
    assert.equal(await paid.text(), 'paid');
    assert.deepEqual(
      local.requests.map((r) => r.headers['idempotency-key']),
      ['order-42', 'order-42'],
    );
    await (await fetch(local.url('/put'), { method: 'PUT', body: 'x' })).text();
    assert.equal(local.requests.at(-1).headers['idempotency-key'], undefined);
  } finally {
    await local.close();
  }
});

test('an attempt that hangs past its timeout is aborted and retried', async () => {
  const { fetch } = client({ timeouts: { readMs: 100 } });
  const response = await fetch(server.url('/hang'));
  assert.equal(await response.text(), 'fast now');
  assert.equal(server.hits('/hang'), 2);
});

test('a 200 with an error body, rejected by validate, is retried', async () => {
  const { fetch } = client();
  const validate = async (res) => {
    const body = await res.clone().json();
    return body.error ? { class: 'transient', detail: body.error } : undefined;
  };
  const response = await fetch(server.url('/error-body'), { validate });
  assert.deepEqual(await response.json(), { ok: true });
});

test('a 404 gives up at once with the observation and the response', async () => {
  const { fetch } = client();
  const error = await fetch(server.url('/missing')).catch((e) => e);
  assert.ok(error instanceof RetryError);
  assert.equal(error.code, 'not_retryable');
  assert.equal(error.attempts, 1);
  assert.equal(error.decision.matched, 'status_404');
  assert.match(error.observation, /no order 42 here/);
  assert.equal(error.response.status, 404);
  assert.equal(await error.response.text(), 'no order 42 here');
});

test('a request fetch will never send (a blocked port) is not retried, and says why', async () => {
  // Port 1 is on the fetch standard's list of bad ports: Node's fetch refuses
  // it before connecting, every time.
  const { fetch } = client();
  const error = await fetch('http://127.0.0.1:1/x').catch((e) => e);
  assert.ok(error instanceof RetryError);
  assert.equal(error.attempts, 1);
  assert.equal(error.decision.class, 'deterministic');
  assert.equal(error.decision.matched, 'network_refused_locally');
  assert.match(error.observation, /refused the request before sending it/);
  assert.match(error.observation, /fetch refused the request \(bad port\)/);
  assert.doesNotMatch(error.observation, /classify it/, 'no advice about an option createFetch does not have');
  const unknownScheme = await fetch('gopher://127.0.0.1/x').catch((e) => e);
  assert.equal(unknownScheme.decision?.matched, 'network_refused_locally', String(unknownScheme));
});

test('persistent 503s exhaust the attempts; the breaker then fails fast', async () => {
  const { fetch, policy } = client({ maxAttempts: 2, budget: { ratio: null } });
  for (let i = 0; i < 2; i++) {
    const error = await fetch(server.url('/always-503')).catch((e) => e);
    assert.equal(error.code, 'attempts_exhausted');
    assert.equal(error.response.status, 503);
    assert.match(error.observation, /still down/);
  }
  // The fifth consecutive failure opens the breaker: no point waiting to retry.
  const opened = await fetch(server.url('/always-503')).catch((e) => e);
  assert.equal(opened.code, 'circuit_open');
  assert.equal(opened.attempts, 1);
  const hits = server.hits('/always-503');
  const error = await fetch(server.url('/always-503')).catch((e) => e);
  assert.equal(error.code, 'circuit_open');
  assert.equal(server.hits('/always-503'), hits);
  assert.equal(policy.breakerState(`127.0.0.1:${server.port}`), 'open');
});

test('a refused connection is retried, and aborting stops the call', async () => {
  const closed = await startServer({});
  const url = closed.url('/x');
  await closed.close();
  const controller = new AbortController();
  const { fetch } = client({}, {
    sleep: async () => {
      controller.abort(new Error('caller stopped'));
    },
  });
  const error = await fetch(url, { signal: controller.signal }).catch((e) => e);
  assert.equal(error.message, 'caller stopped');
});
