// retry()'s first attempt without a caller's signal settles the call from
// the attempt's own promise (loop.ts, firstAttempt); everything but a plain
// success goes on in the loop. These pin that the two paths end calls alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Policy, RetryError, retry } from '../dist/node.js';

const fast = { backoff: { baseMs: 1, capMs: 1 } };
const noSleep = () => Promise.resolve();

test('a plain value from a promise ends the call: counted once, the policy free to release', async () => {
  const policy = new Policy({ seed: 1, ...fast });
  assert.equal(await retry(async () => 'ok', { policy }), 'ok');
  const total = policy.metricsTotal();
  assert.equal(total.callsTotal, 1);
  assert.equal(total.attemptsTotal, 1);
  policy.free();
  assert.throws(() => policy.core, { code: 'misuse' });
});

test('a rejected first attempt goes on in the loop and is retried', async () => {
  const policy = new Policy({ seed: 1, ...fast });
  let n = 0;
  const value = await retry(
    async () => {
      n += 1;
      if (n === 1) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
      return n;
    },
    { policy, sleep: noSleep },
  );
  assert.equal(value, 2);
  assert.equal(policy.metricsTotal().attemptsTotal, 2);
});

test('a first attempt that never settles ends at its timeout, and its late result is dropped', { timeout: 10_000 }, async () => {
  const policy = new Policy({ seed: 1, maxAttempts: 2, timeouts: { readMs: 50 }, ...fast });
  let late;
  const signals = [];
  const error = await retry(
    (attempt) => {
      signals.push(attempt.signal);
      return new Promise((resolve) => {
        late = resolve;
      });
    },
    { policy, sleep: noSleep },
  ).catch((e) => e);
  assert.ok(error instanceof RetryError);
  assert.equal(error.decision.matched, 'network_read_timeout');
  assert.equal(signals.length, 2);
  assert.ok(signals.every((s) => s.aborted && s.reason.name === 'TimeoutError'));
  late('too late');
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(policy.metricsTotal().callsTotal, 1);
});

test('a value with a validator is judged once per attempt, in the loop', async () => {
  const policy = new Policy({ seed: 1, ...fast });
  const seen = [];
  const value = await retry(async (attempt) => attempt.attempt, {
    policy,
    sleep: noSleep,
    validate: (v) => {
      seen.push(v);
      return v < 2 ? { class: 'transient', detail: 'not yet' } : undefined;
    },
  });
  assert.equal(value, 2);
  assert.deepEqual(seen, [1, 2]);
});

test('a Response from the first attempt is judged by its status', async () => {
  const policy = new Policy({ seed: 1, ...fast });
  let n = 0;
  const response = await retry(async () => new Response('x', { status: ++n === 1 ? 503 : 200 }), { policy, sleep: noSleep });
  assert.equal(response.status, 200);
  assert.equal(n, 2);
});

test('a validator that throws on the first attempt reaches the caller as itself, and the call is ended', async () => {
  const policy = new Policy({ seed: 1, ...fast });
  const boom = new Error('validator broke');
  await assert.rejects(
    retry(async () => 1, {
      policy,
      validate: () => {
        throw boom;
      },
    }),
    (e) => e === boom,
  );
  policy.free();
  assert.throws(() => policy.core, { code: 'misuse' });
});

test('calls running side by side each settle with their own value', async () => {
  const policy = new Policy({ seed: 1, ...fast });
  const values = await Promise.all(
    Array.from({ length: 20 }, (_, i) => retry(() => new Promise((r) => setTimeout(() => r(i), 20 - i)), { policy })),
  );
  assert.deepEqual(values, Array.from({ length: 20 }, (_, i) => i));
  assert.equal(policy.metricsTotal().callsTotal, 20);
});
