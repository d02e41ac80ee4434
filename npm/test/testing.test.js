// The testing switches: setTesting (no waits, an attempts cap) and
// setActive(false) (no retrying, no engine), for retry() and createFetch()
// against a real local server.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createFetch, isActive, isTesting, Policy, retry, RetryError, setActive, setTesting } from '../dist/node.js';
import { startServer } from '../testlib/server.js';

let server;
before(async () => {
  server = await startServer({ '/down/*': [{ status: 503, body: 'down' }], '/flaky/*': [{ status: 503 }, { body: 'up' }] });
});
after(() => server.close());

const refused = () => Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });

test('testing mode: no waits, and an attempts cap for every call', async () => {
  setTesting(true, { attempts: 2 });
  try {
    assert.equal(isTesting(), true);
    let calls = 0;
    const started = performance.now();
    const error = await retry(
      () => {
        calls += 1;
        throw refused();
      },
      { maxAttempts: 5 },
    ).catch((e) => e);
    assert.ok(error instanceof RetryError);
    assert.equal(error.code, 'attempts_exhausted');
    assert.equal(calls, 2, 'capped at 2 attempts');
    assert.ok(performance.now() - started < 500, 'the default backoff (1 s) was not waited');
    const fetch = createFetch({ policy: new Policy() });
    const down = await fetch(server.url('/down/a')).catch((e) => e);
    assert.equal(down.code, 'attempts_exhausted');
    assert.equal(server.hits('/down/a'), 2);
  } finally {
    setTesting(false);
  }
  assert.equal(isTesting(), false);
  assert.throws(() => setTesting(true, { attempts: 0 }), { code: 'out_of_range', field: 'attempts' });
  assert.throws(() => setTesting(true, { attempts: 1.5 }), { code: 'out_of_range' });
  assert.equal(isTesting(), false);
});

test('setActive(false): one attempt, outside the engine, the error as itself', async () => {
  const policy = new Policy({ breaker: { trip: { kind: 'consecutive_failures', threshold: 1 } } });
  setActive(false);
  try {
    assert.equal(isActive(), false);
    let calls = 0;
    const error = await retry(
      () => {
        calls += 1;
        throw refused();
      },
      { policy, scope: 'api' },
    ).catch((e) => e);
    assert.equal(error.message, 'refused', 'not a RetryError');
    assert.equal(calls, 1);
    await assert.rejects(retry('not a function'), { code: 'wrong_type' });
    const fetch = createFetch({ policy });
    const response = await fetch(server.url('/flaky/b'), { idempotencyKey: 'k-1', method: 'POST' });
    assert.equal(response.status, 503, 'returned as it is');
    assert.equal(server.hits('/flaky/b'), 1);
    assert.equal(server.requests.at(-1).headers['idempotency-key'], 'k-1');
    assert.deepEqual(policy.metrics(), {}, 'the engine heard nothing');
  } finally {
    setActive(true);
  }
  assert.equal(isActive(), true);
  policy.free();
});

test('each setTesting call gives the default policy a fresh start', async () => {
  setTesting(true);
  try {
    // A test that opens the shared default breaker (five 503s in a row) ...
    const fetch = createFetch();
    for (let i = 0; i < 2; i++) await fetch(server.url('/down/c')).catch(() => undefined);
    const open = await fetch(server.url('/down/c')).catch((e) => e);
    assert.equal(open.code, 'circuit_open');
    // ... does not fail the next one.
    setTesting(true);
    const fresh = await createFetch()(server.url('/down/c')).catch((e) => e);
    assert.equal(fresh.code, 'attempts_exhausted');
  } finally {
    setTesting(false);
  }
});
