// retry(): the host runtime around an async function, on virtual time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Policy, RetryError, retry } from '../dist/node.js';
import { virtualTime } from '../testlib/clock.js';

const exponential = { strategy: 'exponential', baseMs: 100, capMs: 1000, multiplier: 2 };

function setup(config = {}) {
  const clock = virtualTime();
  const policy = new Policy({ seed: 7, backoff: exponential, now: clock.now, ...config });
  return { clock, policy, options: { policy, sleep: clock.sleep } };
}

test('retry() with no options returns the value with the documented defaults', async () => {
  assert.equal(await retry(async () => 42), 42);
  assert.equal(await retry(() => 'sync'), 'sync');
});

test('transient errors are retried with the core delays, then the value returns', async () => {
  const { clock, options } = setup();
  const seen = [];
  const value = await retry(
    (attempt) => {
      seen.push(attempt.attempt);
      if (attempt.attempt < 3) throw Object.assign(new Error('flaky'), { status: 503 });
      return 'ok';
    },
    { ...options, onRetry: (info) => assert.equal(info.decision.kind, 'retry') },
  );
  assert.equal(value, 'ok');
  assert.deepEqual(seen, [1, 2, 3]);
  assert.deepEqual(clock.sleeps, [100, 200]);
});

test('a programming error is not retried and the give-up carries the decision', async () => {
  const { options } = setup();
  let calls = 0;
  const error = await retry(() => {
    calls += 1;
    return undefined.x;
  }, options).catch((e) => e);
  assert.equal(calls, 1);
  assert.ok(error instanceof RetryError);
  assert.equal(error.code, 'not_retryable');
  assert.equal(error.attempts, 1);
  assert.equal(error.decision.kind, 'give_up');
  assert.equal(error.decision.class, 'deterministic');
  assert.ok(error.cause instanceof TypeError);
  assert.equal(error.decision.matched, 'raised_deterministic');
  assert.match(error.observation, /a local error was raised: TypeError/);
  assert.match(error.observation, /did not come from a server, and it was not retried/);
});

test('attempts run out: attempts_exhausted after maxAttempts', async () => {
  const { clock, options } = setup({ maxAttempts: 3 });
  const error = await retry(() => Promise.reject(Object.assign(new Error('down'), { status: 503 })), options).catch((e) => e);
  assert.equal(error.code, 'attempts_exhausted');
  assert.equal(error.attempts, 3);
  assert.equal(clock.sleeps.length, 2);
  assert.equal(error.cause.message, 'down');
});

test('classify maps an error to a network outcome; ambiguous failures need idempotency', async () => {
  const { options } = setup();
  const classify = () => ({ kind: 'network', network: 'reset_after_send' });
  const fail = () => Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
  const unsafe = await retry(fail, { ...options, classify, idempotent: false }).catch((e) => e);
  assert.equal(unsafe.code, 'not_idempotent');
  assert.equal(unsafe.attempts, 1);
  let n = 0;
  const keyed = await retry(
    (a) => {
      assert.equal(a.idempotencyKey, 'k-1');
      return ++n < 2 ? fail() : 'ok';
    },
    { ...options, classify, idempotent: false, idempotencyKey: 'k-1' },
  );
  assert.equal(keyed, 'ok');
});

test('validate rejects a returned value; a deterministic rejection stops', async () => {
  const { options } = setup();
  let n = 0;
  const value = await retry(() => ++n, {
    ...options,
    validate: (v) => (v < 3 ? { class: 'transient', detail: `only ${v}` } : undefined),
  });
  assert.equal(value, 3);
  const error = await retry(() => 'bad', {
    ...options,
    validate: async () => ({ class: 'deterministic', detail: 'bad body' }),
  }).catch((e) => e);
  assert.equal(error.code, 'not_retryable');
  assert.match(error.observation, /bad body/);
});

test('a returned Response is judged by its status and its Retry-After hint', async () => {
  const { clock, options } = setup();
  let n = 0;
  const response = await retry(
    () => (++n === 1 ? new Response('busy', { status: 503, headers: { 'retry-after': '2' } }) : new Response('ok')),
    options,
  );
  assert.equal(response.status, 200);
  assert.deepEqual(clock.sleeps, [2000]);
  const error = await retry(() => new Response('missing', { status: 404 }), options).catch((e) => e);
  assert.equal(error.code, 'not_retryable');
  assert.equal(error.response.status, 404);
});

test("the policy's own status table decides whose headers are read: a 200 it retries waits its Retry-After", async () => {
  // The runtime passes a response's headers only when the policy may retry
  // its status (`readsHints`); a table that makes 200 transient must still
  // get the server's hint, and a 503 made deterministic gives up at once.
  const { clock, options } = setup({ classify: { status: { 200: 'transient', 503: 'deterministic' } } });
  let n = 0;
  const response = await retry(
    () => (++n === 1 ? new Response('warming up', { status: 200, headers: { 'retry-after': '3' } }) : new Response('done', { status: 201 })),
    options,
  );
  assert.equal(response.status, 201);
  assert.deepEqual(clock.sleeps, [3000]);
  const error = await retry(() => new Response('busy', { status: 503, headers: { 'retry-after': '1' } }), options).catch((e) => e);
  assert.equal(error.code, 'not_retryable');
  assert.deepEqual(clock.sleeps, [3000]);
});

test('the wall clock is read for a response whose hints count (an HTTP-date Retry-After), not for every response', async () => {
  const clock = virtualTime();
  let walls = 0;
  const wallNow = () => {
    walls += 1;
    return Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
  };
  const policy = new Policy({ seed: 7, backoff: exponential, now: clock.now, wallNow });
  const options = { policy, sleep: clock.sleep };
  const afterConstruction = walls;
  assert.equal((await retry(() => new Response('ok'), options)).status, 200);
  assert.equal(walls, afterConstruction, 'a 200 needs no wall clock');
  let n = 0;
  const busy = { status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:04 GMT' } };
  const response = await retry(() => (++n === 1 ? new Response('busy', busy) : new Response('ok')), options);
  assert.equal(response.status, 200);
  assert.equal(walls, afterConstruction + 1, 'the 503 dates its hint');
  assert.deepEqual(clock.sleeps, [4000]);
});

test('aborting during the wait cancels the call and rejects with the reason', async () => {
  const { policy } = setup();
  const controller = new AbortController();
  const sleep = (ms, signal) => {
    controller.abort(new Error('user gave up'));
    signal.throwIfAborted();
  };
  const error = await retry(() => Promise.reject(Object.assign(new Error('x'), { status: 503 })), { policy, sleep, signal: controller.signal }).catch(
    (e) => e,
  );
  assert.equal(error.message, 'user gave up');
  const before = await retry(() => 1, { policy, signal: AbortSignal.abort(new Error('early')) }).catch((e) => e);
  assert.equal(before.message, 'early');
});

test('attempt.signal fires at the attempt timeout, which is a retryable read timeout', async () => {
  const policy = new Policy({ seed: 1, timeouts: { readMs: 30 }, backoff: exponential });
  const seen = [];
  const value = await retry(
    (attempt) => {
      seen.push(attempt.timeoutMs);
      if (attempt.attempt > 1) return 'second';
      return new Promise((_, reject) => attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason)));
    },
    { policy, sleep: async () => {}, onRetry: (i) => seen.push(i.decision.matched) },
  );
  assert.equal(value, 'second');
  assert.deepEqual(seen, [30, 'network_read_timeout', 30]);
});

test('the breaker opens per scope and fails fast; other scopes are unaffected', async () => {
  const { options } = setup({ maxAttempts: 1, budget: { ratio: null } });
  for (let i = 0; i < 5; i++) {
    await retry(() => Promise.reject(Object.assign(new Error('down'), { status: 503 })), { ...options, scope: 'api' }).catch(() => {});
  }
  let called = false;
  const error = await retry(() => (called = true), { ...options, scope: 'api' }).catch((e) => e);
  assert.equal(error.code, 'circuit_open');
  assert.equal(called, false);
  assert.equal(options.policy.breakerState('api'), 'open');
  assert.equal(await retry(() => 'fine', { ...options, scope: 'other' }), 'fine');
});

test('the low-level Call loop mirrors the Rust run loop', () => {
  const policy = new Policy({ seed: 3, backoff: exponential, breaker: null });
  const call = policy.start({ operation: 'create_order', method: 'POST', idempotencyKey: 'run-7:create:1' }, 0);
  const plan = call.beforeAttempt(0);
  assert.equal(plan.kind, 'proceed');
  assert.equal(plan.idempotencyKey, 'run-7:create:1');
  assert.equal(plan.timeoutMs, 30000);
  const decision = call.onOutcome({ kind: 'network', network: 'read_timeout' }, 10);
  assert.equal(decision.kind, 'retry');
  if (decision.kind === 'retry') assert.equal(decision.delayMs, 100);
  assert.equal(call.beforeAttempt(110).kind, 'proceed');
  assert.deepEqual(call.onOutcome({ kind: 'success' }, 120), { kind: 'done', attempts: 2, totalMs: 120 });
  call.close();
  call.close();
  assert.throws(() => call.beforeAttempt(130), { name: 'InputError', code: 'misuse' });
});
