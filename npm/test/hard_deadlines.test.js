// The call settles at its deadline or the caller's abort, whatever the
// function or a hook does (a promise that never settles, a signal it
// ignores); hooks and listeners never change a call's result; the caller's
// own classifier cannot turn an error into a success. Each test has a
// test-level timeout: a call that does not settle fails it instead of
// hanging the suite.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createFetch, Policy, retry, RetryError } from '../dist/node.js';
import { startServer } from '../testlib/server.js';
import { captureWarnings } from '../testlib/agents.js';

const bounded = { timeout: 15_000 };
const never = () => new Promise(() => {});

let server;
before(async () => {
  server = await startServer({
    // Headers at once, then a byte every 100 ms for 4 s.
    '/trickle': [
      (req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '40' });
        let sent = 0;
        const tick = setInterval(() => {
          if (res.destroyed || sent === 40) {
            clearInterval(tick);
            if (!res.destroyed) res.end();
            return;
          }
          res.write('x');
          sent += 1;
        }, 100);
        res.on('close', () => clearInterval(tick));
      },
    ],
  });
});
after(() => server.close());

test('a function that never settles ends at its attempts\' timeouts and the call\'s deadline', bounded, async () => {
  const policy = new Policy({ seed: 1, timeouts: { readMs: 200, totalMs: 1000 }, backoff: { baseMs: 10, capMs: 20 } });
  let attempts = 0;
  const error = await retry(
    () => {
      attempts += 1;
      return never();
    },
    { policy },
  ).catch((e) => e);
  assert.ok(error instanceof RetryError, String(error));
  assert.equal(error.decision.matched, 'network_read_timeout');
  assert.ok(['deadline_exceeded', 'attempts_exhausted'].includes(error.decision.reason), error.decision.reason);
  assert.ok(attempts >= 2, 'each attempt was bounded, so the next one went out');
  policy.free();
});

test('the caller\'s AbortSignal ends a call whose function ignores it', bounded, async () => {
  const policy = new Policy({ seed: 1 });
  const signal = AbortSignal.timeout(300);
  await assert.rejects(retry(never, { policy, signal }), { name: 'TimeoutError' });
  assert.equal(await retry(() => 'next', { policy }), 'next', 'the cancelled call was closed');
  policy.free();
});

test('an onRetry hook that never settles still yields to the abort', bounded, async () => {
  const policy = new Policy({ seed: 1 });
  const controller = new AbortController();
  const failing = () => Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
  const call = retry(failing, {
    policy,
    signal: controller.signal,
    onRetry: () => {
      setTimeout(() => controller.abort(new Error('caller stopped')), 50);
      return never();
    },
  });
  await assert.rejects(call, /caller stopped/);
  policy.free();
});

test('a cooperative function sees its attempt aborted; a late result is dropped, a late rejection is not unhandled', bounded, async () => {
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const policy = new Policy({ seed: 1, maxAttempts: 2, timeouts: { readMs: 100 }, backoff: { baseMs: 1, capMs: 1 } });
    const aborted = [];
    const late = [];
    const error = await retry(
      (attempt) =>
        new Promise((resolve, reject) => {
          attempt.signal.addEventListener('abort', () => aborted.push(attempt.signal.reason.name));
          // Settles long after its bound: the first late with a value, the second with an error.
          setTimeout(() => {
            late.push(attempt.attempt);
            if (attempt.attempt === 1) resolve('too late');
            else reject(new Error('too late'));
          }, 300);
        }),
      { policy },
    ).catch((e) => e);
    assert.ok(error instanceof RetryError);
    assert.equal(error.decision.matched, 'network_read_timeout');
    assert.deepEqual(aborted, ['TimeoutError', 'TimeoutError']);
    await new Promise((r) => setTimeout(r, 400));
    assert.deepEqual(late, [1, 2], 'both late results arrived, and changed nothing');
    policy.free();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(unhandled, []);
});

test('a listener that throws never fails a call that succeeded', bounded, async () => {
  const warned = captureWarnings();
  try {
    const policy = new Policy({
      logRecords: true,
      onEvent: () => {
        throw new Error('sink down');
      },
    });
    assert.equal(await retry(async () => 'v', { policy }), 'v');
    assert.equal(await retry(async () => 'w', { policy }), 'w');
    assert.equal(warned.length, 1, 'reported once');
    assert.match(warned[0][0], /onEvent threw/);
    policy.free();
  } finally {
    warned.restore();
  }
});

test('classify answering success for a thrown error is refused, naming classify', bounded, async () => {
  const policy = new Policy({ seed: 1 });
  await assert.rejects(
    retry(
      () => {
        throw new Error('boom');
      },
      { policy, classify: () => 'success' },
    ),
    { name: 'InputError', code: 'not_a_failure', field: 'classify' },
  );
  await assert.rejects(retry(() => 5, { policy, validate: () => ({ class: 'success' }) }), {
    code: 'not_a_failure',
    field: 'validate',
  });
  assert.equal(await retry(() => 'still works', { policy }), 'still works', 'the refused calls were closed');
  policy.free();
});

test('a 200 whose body trickles past the attempt\'s time is a cut body, and the error keeps the response', bounded, async () => {
  const policy = new Policy({ seed: 1, maxAttempts: 2, timeouts: { readMs: 300, totalMs: 2000 }, backoff: { baseMs: 1, capMs: 1 } });
  const before = server.hits('/trickle');
  const error = await createFetch({ policy })(server.url('/trickle')).catch((e) => e);
  assert.ok(error instanceof RetryError, String(error));
  assert.equal(error.decision.matched, 'network_body_cut');
  assert.match(error.decision.observation, /status and headers arrived but its body was cut off/);
  assert.doesNotMatch(error.decision.observation, /no response arrived/);
  assert.equal(error.response?.status, 200);
  assert.equal(server.hits('/trickle') - before, 2, 'a GET is repeated');
  policy.free();
});

test('an error carrying a 2xx or 3xx is the caller\'s own error, and classify cannot answer one for a thrown error', bounded, async () => {
  const policy = new Policy({ seed: 1 });
  const notModified = Object.assign(new Error('Not Modified'), { status: 304 });
  const error = await retry(() => Promise.reject(notModified), { policy }).catch((e) => e);
  assert.ok(error instanceof RetryError, String(error));
  assert.equal(error.decision.matched, 'raised_deterministic', 'not a success with no value');
  await assert.rejects(
    retry(() => Promise.reject(new Error('boom')), { policy, classify: () => ({ kind: 'status', status: 200 }) }),
    { code: 'not_a_failure', field: 'classify' },
  );
  policy.free();
});
