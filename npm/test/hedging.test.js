// Hedged calls with real parts: a Node HTTP server on 127.0.0.1 whose slow
// requests never answer by themselves (a latency tail, a brownout), and
// retry() / createFetch() with `hedging`. Nothing here asserts how fast
// anything was: the slow copies hang until they are aborted, so a call that
// returns at all returned with the fast copy; the assertions are about what
// the server recorded (requests, keys, aborted connections, orders) and what
// the caller got.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { ConfigError, createFetch, Policy, retry, RetryError } from '../dist/node.js';

const FIXED = (afterMs) => ({ maxHedges: 1, delay: { kind: 'fixed', afterMs } });

/**
 * The server. Requests are recorded in arrival order; `hold` keeps a
 * response open until released (or the client aborts it), and `aborted`
 * lists each request whose connection closed before its response ended.
 */
function startServer() {
  const requests = [];
  const aborted = [];
  const held = [];
  const orders = new Map();
  let waiters = [];
  const changed = () => {
    for (const check of waiters) check();
  };
  /** Resolves once `predicate()` holds (checked at each request and abort). */
  const until = (predicate) =>
    new Promise((resolve) => {
      const check = () => {
        if (!predicate()) return;
        waiters = waiters.filter((w) => w !== check);
        resolve();
      };
      waiters.push(check);
      check();
    });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const entry = { method: req.method, path: url.pathname, call: url.searchParams.get('call'), key: req.headers['idempotency-key'] };
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push(entry);
      res.on('close', () => {
        if (!res.writableFinished) {
          aborted.push(entry);
          changed();
        }
      });
      const copies = requests.filter((r) => r.path === entry.path && r.call === entry.call && r.method === entry.method);
      const first = copies.length === 1;
      const send = (status, text) => res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
      if (url.pathname === '/tail') {
        // The latency tail: a call's first copy is stuck, its second answers.
        if (first) held.push({ res, entry });
        else send(200, `fast copy of call ${entry.call}`);
      } else if (url.pathname === '/brownout') {
        // Every request is slow: held until the test lets the first copies go.
        held.push({ res, entry });
      } else if (url.pathname === '/orders' && req.method === 'POST') {
        // Deduplicates on Idempotency-Key: the first request creates the
        // order (and is slow to say so); a repeat returns the same order.
        const known = orders.get(entry.key);
        if (known !== undefined && entry.key !== undefined) {
          send(200, known);
        } else {
          const id = `order-${orders.size + 1}`;
          orders.set(entry.key ?? `anonymous-${orders.size}`, id);
          held.push({ res, entry });
        }
      } else if (url.pathname === '/slow-post' && req.method === 'POST') {
        // Slower than the hedge delay, then created.
        setTimeout(() => send(201, 'created'), 150);
      } else if (url.pathname === '/missing') {
        send(404, `no order ${entry.call}`);
      } else {
        send(404, 'no such route');
      }
      changed();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: (path) => `http://127.0.0.1:${port}${path}`,
        requests,
        aborted,
        held,
        orders,
        until,
        of: (path) => requests.filter((r) => r.path === path),
        close: () =>
          new Promise((done) => {
            for (const { res } of held) res.destroy();
            server.closeAllConnections?.();
            server.close(done);
          }),
      });
    }),
  );
}

let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test('hedged GETs return the fast copy and the server sees the slow copy aborted', { timeout: 30_000 }, async () => {
  const policy = new Policy({ seed: 3 });
  const hedges = [];
  const fetch = createFetch({ policy, hedging: FIXED(20), onHedge: (info) => hedges.push(info.copy) });
  const calls = ['a', 'b', 'c'];
  const bodies = await Promise.all(calls.map(async (call) => (await fetch(server.url(`/tail?call=${call}`))).text()));
  assert.deepEqual(bodies, calls.map((c) => `fast copy of call ${c}`));
  assert.deepEqual(hedges, [2, 2, 2]);
  // Each call: two copies on the wire, and its stuck first copy's
  // connection closed by the client (not answered, not left open).
  await server.until(() => server.aborted.filter((r) => r.path === '/tail').length === calls.length);
  for (const call of calls) {
    assert.equal(server.of('/tail').filter((r) => r.call === call).length, 2, `call ${call}: copies received`);
  }
  assert.deepEqual(server.aborted.filter((r) => r.path === '/tail').map((r) => r.call).sort(), calls);
  // The losers are cancelled, not failed: three calls, three successes.
  const metrics = policy.metrics()['127.0.0.1:' + new URL(server.url('/')).port];
  assert.equal(metrics.callsTotal, 3);
  assert.equal(metrics.attemptsTotal, 6);
  assert.equal(metrics.gaveUpTotal, 0);
});

test('a POST without a key is never hedged', { timeout: 30_000 }, async () => {
  const policy = new Policy({ seed: 4 });
  const hedges = [];
  const fetch = createFetch({ policy, hedging: FIXED(10), onHedge: (info) => hedges.push(info) });
  const response = await fetch(server.url('/slow-post?call=keyless'), { method: 'POST', body: '{"sku":1}' });
  assert.equal(response.status, 201);
  assert.equal(server.of('/slow-post').length, 1, 'one copy, though it outlived the hedge delay');
  assert.deepEqual(hedges, []);

  // Asked for on the request itself, it is refused before anything is sent.
  await assert.rejects(
    fetch(server.url('/slow-post?call=asked'), { method: 'POST', body: '{}', hedging: FIXED(10) }),
    (error) => error instanceof ConfigError && error.code === 'not_idempotent' && error.field === 'idempotent',
  );
  assert.equal(server.of('/slow-post').length, 1);

  // And retry() refuses a function marked unsafe to repeat.
  let ran = 0;
  await assert.rejects(
    retry(() => ran++, { policy, idempotent: false, hedging: FIXED(10) }),
    (error) => error instanceof ConfigError && error.code === 'not_idempotent' && error.field === 'idempotent',
  );
  assert.equal(ran, 0);
});

test("a keyed POST's copies carry one key and the deduplicating server creates one order", { timeout: 30_000 }, async () => {
  const policy = new Policy({ seed: 5 });
  const fetch = createFetch({ policy, hedging: FIXED(20) });
  const response = await fetch(server.url('/orders?call=k'), { method: 'POST', body: '{"sku":7}', idempotencyKey: 'order-key-42' });
  assert.equal(response.status, 200);
  assert.equal(await response.text(), 'order-1');
  const posts = server.of('/orders').filter((r) => r.call === 'k');
  assert.equal(posts.length, 2, 'the POST was hedged');
  assert.deepEqual(posts.map((r) => r.key), ['order-key-42', 'order-key-42']);
  assert.equal(server.orders.size, 1, 'one order created');
  await server.until(() => server.aborted.some((r) => r.path === '/orders' && r.call === 'k'));
});

test('in a brownout the retry budget stops the hedges, and no copy in flight is cancelled for it', { timeout: 30_000 }, async () => {
  const budget = { ratio: { ratio: 0.1, minRetriesPerSec: 0, minConcurrentRetries: 0 } };
  const events = [];
  const policy = new Policy({ seed: 6, breaker: null, budget, onEvent: (e) => events.push(e.kind) });
  const fetch = createFetch({ policy, hedging: FIXED(10) });
  const n = 40;
  const results = Array.from({ length: n }, (_, i) => fetch(server.url(`/brownout?call=${i}`)).then((r) => r.status));
  await server.until(() => server.of('/brownout').length >= n);
  // Every first copy outlives the hedge delay: each call wants a hedge.
  // Let the timers run, then answer the first copy of every call.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const slow = server.held.filter(({ entry }) => entry.path === '/brownout');
  const firsts = slow.filter(({ entry }, i) => slow.findIndex((h) => h.entry.call === entry.call) === i);
  assert.equal(firsts.length, n);
  for (const { res } of firsts) res.writeHead(200).end('slow but here');
  assert.deepEqual(await Promise.all(results), Array(n).fill(200), 'every call answered by its first copy');
  const hedges = server.of('/brownout').length - n;
  // 10 % of 40 requests: at most 4 hedges, not 40.
  assert.ok(hedges >= 1 && hedges <= n / 10, `${hedges} hedges`);
  assert.ok(events.includes('budget_exhausted'), 'the refusals were reported');
  // Each hedge lost to its call's first copy and was aborted; no first copy was.
  await server.until(() => server.aborted.filter((r) => r.path === '/brownout').length === hedges);
  const firstCopies = new Set(firsts.map(({ entry }) => entry));
  assert.ok(server.aborted.every((r) => !firstCopies.has(r)));
});

test("retry(): each copy gets its number, the call's one key and its own signal; the loser's aborts", async () => {
  const policy = new Policy({ seed: 7 });
  const seen = [];
  const value = await retry(
    (attempt) => {
      seen.push({ copy: attempt.attempt, key: attempt.idempotencyKey });
      if (attempt.attempt === 2) return 'second';
      return new Promise((_, reject) => {
        attempt.signal.addEventListener('abort', () => {
          seen.push({ aborted: attempt.attempt, reason: attempt.signal.reason.name });
          reject(attempt.signal.reason);
        });
      });
    },
    { policy, idempotencyKey: 'pay-1', hedging: FIXED(5) },
  );
  assert.equal(value, 'second');
  assert.deepEqual(seen, [
    { copy: 1, key: 'pay-1' },
    { copy: 2, key: 'pay-1' },
    { aborted: 1, reason: 'AbortError' },
  ]);
  assert.equal(policy.metrics().default.gaveUpTotal, 0);
});

test("retry(): the caller's abort ends the call and aborts every copy", async () => {
  const policy = new Policy({ seed: 8 });
  const controller = new AbortController();
  const aborted = [];
  let bothStarted;
  const started = new Promise((resolve) => (bothStarted = resolve));
  const call = retry(
    (attempt) =>
      new Promise((_, reject) => {
        attempt.signal.addEventListener('abort', () => {
          aborted.push(attempt.attempt);
          reject(attempt.signal.reason);
        });
        if (attempt.attempt === 2) bothStarted();
      }),
    { policy, hedging: FIXED(5), signal: controller.signal },
  );
  await started;
  controller.abort(new Error('the user left'));
  await assert.rejects(call, /the user left/);
  assert.deepEqual(aborted.sort(), [1, 2]);
  assert.equal(policy.metrics().default.gaveUpTotal, 1);
});

test('every copy failing gives up with a RetryError naming the copies sent', async () => {
  const policy = new Policy({ seed: 9 });
  let copies = 0;
  await assert.rejects(
    retry(
      async () => {
        copies += 1;
        throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      },
      { policy, hedging: { maxHedges: 2, delay: { kind: 'fixed', afterMs: 1000 } } },
    ),
    (error) => error instanceof RetryError && error.attempts === 3 && error.reason === 'attempts_exhausted',
  );
  // A failure sends the next copy at once (no wait for the delay): three copies.
  assert.equal(copies, 3);
});

test('a fatal answer ends the call: a RetryError with the response, or the response itself when asked', { timeout: 30_000 }, async () => {
  const policy = new Policy({ seed: 10 });
  const fetch = createFetch({ policy, hedging: FIXED(1000) });
  const error = await fetch(server.url('/missing?call=1')).then(
    () => assert.fail('resolved'),
    (e) => e,
  );
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, 'not_retryable');
  assert.equal(error.response.status, 404);
  assert.equal(await error.response.text(), 'no order 1');
  const returning = createFetch({ policy, hedging: FIXED(1000), returnFailedResponses: true });
  const response = await returning(server.url('/missing?call=2'));
  assert.equal(response.status, 404);
  assert.equal(await response.text(), 'no order 2');
  // A 404 is not worth another copy: one request each.
  assert.equal(server.of('/missing').length, 2);
});

test('hedging settings are checked by the core, their errors naming the field from the option down; null or false turns hedging off', async () => {
  const policy = new Policy({ seed: 11 });
  const cases = [
    [{ maxHedges: 9 }, 'out_of_range', 'hedging.maxHedges'],
    [{ delay: { kind: 'fixed' } }, 'required', 'hedging.delay.afterMs'],
    [{ delay: { kind: 'sometimes' } }, 'invalid_value', 'hedging.delay.kind'],
    [5, 'wrong_type', 'hedging'],
  ];
  for (const [hedging, code, field] of cases) {
    let ran = 0;
    await assert.rejects(
      retry(() => ran++, { policy, hedging }),
      (error) => error instanceof ConfigError && error.code === code && error.field === field,
      JSON.stringify(hedging),
    );
    assert.equal(ran, 0);
  }
  const seen = [];
  assert.equal(await retry((attempt) => (seen.push(attempt.attempt), 'plain'), { policy, hedging: null }), 'plain');
  assert.equal(await retry((attempt) => (seen.push(attempt.attempt), 'plain'), { policy, hedging: false }), 'plain');
  assert.deepEqual(seen, [1, 1]);
});

test('a policy reads one hedging object once: the same object again is not read again, a new one is', async () => {
  const policy = new Policy({ seed: 11 });
  const hedging = { delay: { kind: 'fixed', afterMs: 10_000 } };
  assert.equal(await retry(() => 'first', { policy, hedging }), 'first');
  // Changed in place after its first use: the policy keeps what it read.
  hedging.maxHedges = 9;
  assert.equal(await retry(() => 'again', { policy, hedging }), 'again');
  // A new object is read, and checked.
  await assert.rejects(retry(() => 'never', { policy, hedging: { ...hedging } }), (error) => error instanceof ConfigError && error.code === 'out_of_range' && error.field === 'hedging.maxHedges');
});
