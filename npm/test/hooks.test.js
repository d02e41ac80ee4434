// onRetry and onGiveUp: what retry() and createFetch() tell them, and when.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createFetch, Policy, retry, RetryError } from '../dist/node.js';
import { startServer } from '../testlib/server.js';
import { captureWarnings } from '../testlib/agents.js';

let server;
before(async () => {
  server = await startServer({ '/flaky': [{ status: 503 }, { body: 'up' }], '/missing': [{ status: 404, body: 'no order 7' }] });
});
after(() => server.close());

const sleep = async () => {};

const refused = (n) => Object.assign(new Error(`refused ${n}`), { code: 'ECONNREFUSED' });

test('retry() tells each retry and the give-up, before it rejects', async () => {
  const retries = [];
  const giveUps = [];
  let calls = 0;
  const error = await retry(
    () => {
      calls += 1;
      throw refused(calls);
    },
    { maxAttempts: 3, sleep, onRetry: (info) => retries.push(info), onGiveUp: (info) => giveUps.push(info) },
  ).catch((e) => e);
  assert.ok(error instanceof RetryError);
  assert.deepEqual(retries.map((r) => r.error.message), ['refused 1', 'refused 2']);
  assert.equal(giveUps.length, 1);
  assert.equal(giveUps[0].decision.reason, 'attempts_exhausted');
  assert.equal(giveUps[0].error.message, 'refused 3');
  assert.deepEqual(giveUps[0].decision, error.decision);
});

test('a success tells no give-up; a refused next attempt does', async () => {
  const giveUps = [];
  let failures = 1;
  const ok = await retry(
    () => {
      if (failures-- > 0) throw refused(0);
      return 'ok';
    },
    { sleep, onGiveUp: (info) => giveUps.push(info) },
  );
  assert.equal(ok, 'ok');
  assert.equal(giveUps.length, 0);
  const policy = new Policy();
  const error = await retry(
    () => {
      throw refused(1);
    },
    { policy, sleep, onRetry: () => policy.drain(), onGiveUp: (info) => giveUps.push(info) },
  ).catch((e) => e);
  assert.equal(error.code, 'shutting_down');
  assert.deepEqual(giveUps.map((g) => g.decision.reason), ['shutting_down']);
  policy.free();
});

test('createFetch() tells the responses', async () => {
  const retries = [];
  const giveUps = [];
  const fetch = createFetch({ policy: new Policy(), sleep, onRetry: (i) => retries.push(i), onGiveUp: (i) => giveUps.push(i) });
  assert.equal((await fetch(server.url('/flaky'))).status, 200);
  await assert.rejects(fetch(server.url('/missing')), RetryError);
  assert.deepEqual(retries.map((r) => r.response.status), [503]);
  assert.deepEqual(giveUps.map((g) => [g.response.status, g.decision.reason]), [[404, 'not_retryable']]);
});

test('a hook that throws never changes the result: reported once, the call ends as the engine decided; hooks must be functions', async () => {
  const warned = captureWarnings();
  try {
    let calls = 0;
    const onGiveUp = () => {
      throw new Error('hook failed');
    };
    for (let i = 0; i < 2; i++) {
      const error = await retry(
        () => {
          calls += 1;
          throw refused(calls);
        },
        { sleep, onGiveUp, maxAttempts: 1 },
      ).catch((e) => e);
      assert.ok(error instanceof RetryError, 'the engine\'s give-up, not the hook\'s error');
      assert.equal(error.decision.reason, 'attempts_exhausted');
    }
    assert.equal(calls, 2);
    const value = await retry(
      () => {
        calls += 1;
        if (calls === 3) throw refused(calls);
        return 'ok';
      },
      {
        sleep,
        onRetry: () => {
          throw new Error('retry hook failed');
        },
      },
    );
    assert.equal(value, 'ok', 'the retry went ahead');
    assert.deepEqual(
      warned.map((w) => w[0]),
      ['stoic: onGiveUp threw; the call went on without it (each hook is reported once):', 'stoic: onRetry threw; the call went on without it (each hook is reported once):'],
      'each hook reported once, with its error',
    );
    assert.equal(warned[0][1].message, 'hook failed');
  } finally {
    warned.restore();
  }
  await assert.rejects(retry(() => 1, { onGiveUp: 5 }), { code: 'wrong_type', field: 'onGiveUp' });
  assert.throws(() => createFetch({ onGiveUp: 'log' }), { code: 'wrong_type' });
});

test('returnFailedResponses resolves with the last response the engine stopped on', async () => {
  const giveUps = [];
  const fetch = createFetch({ policy: new Policy(), sleep, returnFailedResponses: true, onGiveUp: (i) => giveUps.push(i.decision.reason) });
  const missing = await fetch(server.url('/missing'));
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), 'no order 7', 'its body, read inside the attempt, is still there');
  await assert.rejects(fetch('http://127.0.0.1:9/'), RetryError, 'no response: it still rejects');
  assert.equal(giveUps[0], 'not_retryable');
  assert.throws(() => createFetch({ returnFailedResponses: 'yes' }), { code: 'wrong_type' });
});

test('hooks may be async: awaited, and a rejection is reported, never the result (never unhandled)', async () => {
  const order = [];
  let failures = 1;
  const value = await retry(
    () => {
      if (failures-- > 0) throw refused(0);
      order.push('attempt 2');
      return 'ok';
    },
    {
      sleep,
      onRetry: async (info) => {
        await new Promise((r) => setTimeout(r, 20));
        order.push(`hook after attempt ${info.attempt}`);
      },
    },
  );
  assert.equal(value, 'ok');
  assert.deepEqual(order, ['hook after attempt 1', 'attempt 2'], 'the hook finished before the next attempt');
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const warned = captureWarnings();
  try {
    const error = await retry(
      () => {
        throw refused(1);
      },
      { sleep, onRetry: async () => Promise.reject(new Error('hook rejected')) },
    ).catch((e) => e);
    assert.ok(error instanceof RetryError);
    assert.equal(error.decision.reason, 'attempts_exhausted', 'every retry still went ahead');
    const fetch = createFetch({ policy: new Policy(), sleep, onGiveUp: async () => { throw new Error('give-up hook rejected'); } });
    const missing = await fetch(server.url('/missing')).catch((e) => e);
    assert.ok(missing instanceof RetryError);
    assert.equal(missing.decision.reason, 'not_retryable');
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(warned.map((w) => w[1].message), ['hook rejected', 'give-up hook rejected']);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    warned.restore();
  }
  assert.deepEqual(unhandled, []);
});

test('hooks are told the attempts made', async () => {
  const seen = [];
  await retry(
    () => {
      throw refused(2);
    },
    { maxAttempts: 3, sleep, onRetry: (i) => seen.push(['retry', i.attempt]), onGiveUp: (i) => seen.push(['give up', i.attempt]) },
  ).catch(() => undefined);
  assert.deepEqual(seen, [['retry', 1], ['retry', 2], ['give up', 3]]);
});

test('several listeners hear every event, beside onEvent, each until removed', async () => {
  const first = [];
  const second = [];
  const fromOption = [];
  const policy = new Policy({ breaker: { trip: { kind: 'consecutive_failures', threshold: 1 } }, onEvent: (e) => fromOption.push(e.kind) });
  const stop = policy.listen((e) => first.push(e));
  policy.listen((e) => second.push(JSON.stringify(e)));
  await retry(
    () => {
      throw refused(3);
    },
    { policy, scope: 'api', sleep, maxAttempts: 1 },
  ).catch(() => undefined);
  const opened = first.find((e) => e.kind === 'breaker_transition');
  assert.equal(opened.to, 'open');
  assert.ok(second.some((line) => JSON.parse(line).kind === 'breaker_transition'), 'one-line JSON, as pino or console.log take it');
  assert.ok(fromOption.includes('breaker_transition'));
  stop();
  const before = [first.length, second.length];
  // Another breaker opens: the listener still there hears it, the removed one does not.
  await retry(
    () => {
      throw refused(4);
    },
    { policy, scope: 'other', sleep, maxAttempts: 1 },
  ).catch(() => undefined);
  assert.equal(first.length, before[0], 'removed: hears no more');
  assert.ok(second.length > before[1]);
  assert.throws(() => policy.listen('log'), { code: 'wrong_type' });
  policy.free();
});

test('a wait taken from an SDK error through classify (its retry-after as a 429)', async () => {
  class RateLimitError extends Error {
    constructor(retryAfter) {
      super('rate limited');
      this.retryAfter = retryAfter;
    }
  }
  const waits = [];
  let left = 1;
  const out = await retry(
    () => {
      if (left-- > 0) throw new RateLimitError(3);
      return 'done';
    },
    {
      classify: (e) =>
        e instanceof RateLimitError
          ? { kind: 'status', status: 429, headers: { 'retry-after': String(e.retryAfter) } }
          : undefined,
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
  );
  assert.equal(out, 'done');
  assert.deepEqual(waits, [3000]);
});
