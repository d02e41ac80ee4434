// Safe by default, the way users meet it: scopes that isolate, hooks that
// cannot wedge a breaker, bodies read inside the attempt, Request settings
// kept, options checked, and the default budget against a storm and against
// healthy sequential work (virtual time; real servers on 127.0.0.1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFetch, Policy, RetryError, retry } from '../dist/node.js';
import { startServer } from '../testlib/server.js';
import { virtualTime } from '../testlib/clock.js';

const unavailable = () => Object.assign(new Error('unavailable'), { status: 503 });
const noSleep = async () => {};

test('retry() calls with different operations do not share a breaker; anonymous ones have none', async () => {
  const policy = new Policy({ seed: 1, maxAttempts: 1, budget: { ratio: null } });
  for (let i = 0; i < 6; i++) {
    await retry(() => Promise.reject(unavailable()), { policy, operation: 'reports' }).catch(() => {});
  }
  assert.equal(policy.breakerState('reports'), 'open');
  assert.equal(await retry(() => 'fine', { policy, operation: 'orders' }), 'fine');
  for (let i = 0; i < 6; i++) await retry(() => Promise.reject(unavailable()), { policy }).catch(() => {});
  assert.equal(policy.breakerState(), null);
  assert.equal(await retry(() => 'still sent', { policy }), 'still sent');
});

test('a validator that throws during the half-open probe ends the call; the breaker recovers', async () => {
  const clock = virtualTime();
  const policy = new Policy({
    seed: 1,
    maxAttempts: 1,
    now: clock.now,
    budget: { ratio: null },
    breaker: { trip: { kind: 'consecutive_failures', threshold: 1 }, cooldownMs: 1000, halfOpen: { maxProbes: 1, successThreshold: 1 } },
  });
  const options = { policy, scope: 'svc', sleep: clock.sleep };
  await retry(() => Promise.reject(unavailable()), options).catch(() => {});
  assert.equal(policy.breakerState('svc'), 'open');
  clock.advance(1500);
  const validate = () => {
    throw new RangeError('validator bug');
  };
  const error = await retry(() => 'probe', { ...options, validate }).catch((e) => e);
  assert.ok(error instanceof RangeError, 'the hook error reaches the caller as itself');
  assert.equal(await retry(() => 'next', options), 'next');
  assert.equal(policy.breakerState('svc'), 'closed');
});

test('unknown retry() and createFetch() options are rejected at runtime', async () => {
  await assert.rejects(retry(() => 1, { retries: 3 }), /unknown option "retries"/);
  assert.throws(() => createFetch({ retries: 2 }), /unknown option "retries"/);
  await assert.rejects(retry(() => 1, { idempotant: false }), { code: 'unknown_field', message: /did you mean "idempotent"/ });
});

test('a body cut off mid-read is a failure of that attempt: a GET is retried and the full body returned', async () => {
  let n = 0;
  const cut = (req, res) => {
    n += 1;
    if (n === 1) {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('0123456789');
      setTimeout(() => res.socket.destroy(), 10);
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('the whole body');
    }
  };
  const local = await startServer({ '/data': [cut] });
  try {
    const fetch = createFetch({ policy: new Policy({ seed: 3 }), sleep: noSleep });
    const response = await fetch(local.url('/data'));
    assert.equal(await response.text(), 'the whole body');
    assert.equal(local.hits('/data'), 2);
  } finally {
    await local.close();
  }
});

test("aborting during the body read stops it: the caller's signal covers the body", async () => {
  let written = 0;
  const slow = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(1024, 97);
    const timer = setInterval(() => {
      if (res.destroyed || written >= 200 * 1024) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(chunk);
      written += chunk.length;
    }, 20);
    res.on('close', () => clearInterval(timer));
  };
  const local = await startServer({ '/slow': [slow] });
  try {
    const controller = new AbortController();
    const fetch = createFetch({ policy: new Policy({ seed: 3 }), sleep: noSleep });
    setTimeout(() => controller.abort(new Error('caller gave up')), 150);
    const error = await fetch(local.url('/slow'), { signal: controller.signal }).catch((e) => e);
    assert.equal(error.message, 'caller gave up');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = written;
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The server stopped being read: far from the 200 KB it would have sent.
    assert.ok(after < 100 * 1024, `bytes written ${after}`);
    assert.equal(written, after, 'nothing more was sent after the abort');
    assert.equal(local.hits('/slow'), 1);
  } finally {
    await local.close();
  }
});

test("a Request keeps its settings: redirect 'manual' returns the 302", async () => {
  const local = await startServer({ '/moved': [{ status: 302, headers: { location: '/elsewhere' }, body: '' }] });
  try {
    const fetch = createFetch({ policy: new Policy({ seed: 3 }), sleep: noSleep });
    const response = await fetch(new Request(local.url('/moved'), { redirect: 'manual' }));
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('location'), '/elsewhere');
    assert.equal(local.hits('/elsewhere'), 0);
  } finally {
    await local.close();
  }
});

test('a POST answered 500, 502 or 504 is not repeated without a key; 503 is', async () => {
  const local = await startServer({
    '/500': [{ status: 500 }],
    '/502': [{ status: 502 }],
    '/504': [{ status: 504 }],
    '/503': [{ status: 503 }, { status: 201, body: 'created' }],
  });
  try {
    const fetch = createFetch({ policy: new Policy({ seed: 3 }), sleep: noSleep });
    for (const status of [500, 502, 504]) {
      const error = await fetch(local.url(`/${status}`), { method: 'POST', body: 'x' }).catch((e) => e);
      assert.ok(error instanceof RetryError);
      assert.equal(error.code, 'not_idempotent');
      assert.equal(local.hits(`/${status}`), 1, `${status} sent once`);
    }
    const created = await fetch(local.url('/503'), { method: 'POST', body: 'x' });
    assert.equal(created.status, 201);
    assert.equal(local.hits('/503'), 2);
  } finally {
    await local.close();
  }
});

test('the default budget: 40 sequential jobs that each fail twice all succeed', async () => {
  const clock = virtualTime();
  const policy = new Policy({ seed: 7, now: clock.now });
  let ok = 0;
  for (let job = 0; job < 40; job++) {
    let failures = 2;
    await retry(
      () => {
        clock.advance(20);
        if (failures-- > 0) throw unavailable();
        return 'done';
      },
      { policy, operation: 'job', sleep: clock.sleep },
    );
    ok += 1;
  }
  assert.equal(ok, 40);
});

test('the default budget: 50 concurrent callers against an always-503 service send at most 1.2 attempts per call', () => {
  for (const breaker of [undefined, null]) {
    let now = 0;
    const policy = new Policy({ seed: 3, now: () => now, ...(breaker === null ? { breaker: null } : {}) });
    const start = () => policy.start({ operation: 'get', scope: 'api', method: 'GET' }, now);
    // Each caller's next admission time, in virtual ms; a simple event loop.
    const callers = Array.from({ length: 50 }, () => ({ at: 0, call: start() }));
    let attempts = 0;
    let first = 0;
    for (;;) {
      const caller = callers.reduce((a, b) => (b.at < a.at ? b : a));
      if (caller.at > 60_000) break;
      now = caller.at;
      const admission = caller.call.beforeAttempt(now);
      if (admission.kind === 'proceed') {
        attempts += 1;
        if (admission.attempt === 1) first += 1;
        now += 20;
        const decision = caller.call.onOutcome({ kind: 'status', status: 503 }, now);
        if (decision.kind === 'retry') {
          caller.at = now + decision.delayMs;
          continue;
        }
        now += 100;
      } else {
        now += 100;
      }
      caller.call.close();
      caller.call = start();
      caller.at = now;
    }
    const amplification = attempts / first;
    assert.ok(amplification <= 1.2, `breaker ${breaker === null ? 'off' : 'on'}: ${amplification}`);
  }
});

test('classify may answer { class } for an error of your own; a body that breaks off is cut, and the error keeps its response', async () => {
  class Busy extends Error {}
  let n = 0;
  const value = await retry(
    () => {
      n += 1;
      if (n < 2) throw new Busy('try later');
      return 'ok';
    },
    { policy: new Policy({ seed: 1 }), sleep: noSleep, classify: (e) => (e instanceof Busy ? { class: 'transient' } : undefined) },
  );
  assert.equal(value, 'ok');
  let hits = 0;
  const local = await startServer({
    '/cut': [
      (req, res) => {
        hits += 1;
        res.writeHead(200, { 'content-length': '1000' });
        res.write('0123456789');
        setTimeout(() => res.socket.destroy(), 10);
      },
    ],
  });
  try {
    const fetch = createFetch({ policy: new Policy({ seed: 3, maxAttempts: 2 }), sleep: noSleep });
    const error = await fetch(local.url('/cut')).catch((e) => e);
    assert.ok(error instanceof RetryError);
    assert.equal(error.decision.matched, 'network_body_cut');
    assert.equal(error.decision.class, 'ambiguous');
    assert.match(error.decision.observation, /body was cut off before it was complete/);
    assert.equal(error.response?.status, 200, 'the response whose body was cut');
    assert.equal(hits, 2, 'a GET is repeated');
  } finally {
    await local.close();
  }
});

test('an error that carries a status is not quoted as the server\'s words', async () => {
  const policy = new Policy({ seed: 1, maxAttempts: 1 });
  const error = await retry(() => Promise.reject(unavailable()), { policy }).catch((e) => e);
  assert.ok(error instanceof RetryError);
  assert.doesNotMatch(error.observation, /Server said/);
  assert.match(error.observation, /HTTP 503/);
});

test('a shared policy takes per-call maxAttempts and backoff; its breaker stays shared', async () => {
  const clock = virtualTime();
  const policy = new Policy({ seed: 1, now: clock.now, budget: { ratio: null } });
  let calls = 0;
  const options = {
    policy,
    scope: 'svc',
    sleep: clock.sleep,
    maxAttempts: 2,
    backoff: { strategy: 'constant', baseMs: 500, capMs: 500 },
  };
  const fail = () => {
    calls += 1;
    throw unavailable();
  };
  const error = await retry(fail, options).catch((e) => e);
  assert.equal(error.code, 'attempts_exhausted');
  assert.equal(calls, 2);
  assert.deepEqual(clock.sleeps, [500]);
  for (let i = 0; i < 2; i++) await retry(fail, options).catch(() => {});
  assert.equal(policy.breakerState('svc'), 'open');
  await assert.rejects(retry(() => 1, { policy, maxAttempts: 0 }), (e) => e.code === 'out_of_range' && e.field === 'maxAttempts');
});

test("redirect: 'error' meeting a redirect is not retried and does not open the host's breaker", async () => {
  const local = await startServer({ '/redir': [{ status: 302, headers: { location: '/x' }, body: '' }], '/ok': [{ body: 'fine' }] });
  try {
    const fetch = createFetch({ policy: new Policy({ seed: 3 }), sleep: noSleep });
    const error = await fetch(local.url('/redir'), { redirect: 'error' }).catch((e) => e);
    assert.ok(error instanceof RetryError);
    assert.equal(error.code, 'not_retryable');
    assert.equal(local.hits('/redir'), 1);
    assert.equal(await (await fetch(local.url('/ok'))).text(), 'fine');
  } finally {
    await local.close();
  }
});

test('retry() and createFetch() run one loop: the same hook sees the same retried response', async () => {
  const policy = new Policy({ seed: 1, backoff: { strategy: 'constant', baseMs: 1 } });
  const seen = [];
  const onRetry = ({ decision, error, response }) => seen.push([decision.kind, error, response?.status]);
  let n = 0;
  const fromRetry = await retry(() => new Response(null, { status: n++ === 0 ? 503 : 200 }), {
    policy,
    onRetry,
    sleep: noSleep,
  });
  assert.equal(fromRetry.status, 200);
  let m = 0;
  // An unbound fetch stand-in: a real fetch throws "Illegal invocation" when called as a method.
  const send = async function () {
    assert.equal(this, undefined);
    return new Response('x', { status: m++ === 0 ? 503 : 200 });
  };
  const fetchWithRetries = createFetch({ policy, fetch: send, sleep: noSleep, onRetry });
  assert.equal((await fetchWithRetries('http://127.0.0.1:9/x')).status, 200);
  assert.deepEqual(seen, [
    ['retry', undefined, 503],
    ['retry', undefined, 503],
  ]);
});

test('a POST with an empty idempotency key is not repeated after the server reads it and drops the connection', async () => {
  // The server reads the whole body (it may have applied the charge), then resets.
  const local = await startServer({ '/charge': ['reset'] });
  try {
    const fetch = createFetch({ policy: new Policy({ seed: 1, maxAttempts: 3 }), sleep: noSleep });
    const error = await fetch(local.url('/charge'), { method: 'POST', body: '{}', idempotencyKey: '' }).catch((e) => e);
    assert.ok(error instanceof RetryError, String(error));
    assert.equal(error.decision.reason, 'not_idempotent');
    assert.equal(local.hits('/charge'), 1, 'an empty key is no key: the charge was sent once');
  } finally {
    await local.close();
  }
});
