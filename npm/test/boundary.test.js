// Values that used to trap the wasm module or come back as silent wrong
// answers: a non-string at a text parameter, a status outside HTTP's range,
// integers a double cannot hold. Each is now a typed error with a code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Backoff,
  CircuitBreaker,
  Metrics,
  RetryBudget,
  createFetch,
  canonicalJson,
  canonicalizeJsonText,
  idempotencyKey,
  keyHeaderValue,
  mergeMetrics,
  parseHttpDate,
  parseKeyHeader,
  parseRetryAfter,
  payloadFingerprint,
  Policy,
  retry,
  ServerIdempotency,
} from '../dist/node.js';

function typed(fn, code) {
  let thrown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof Error, `expected an error, got ${thrown}`);
  assert.ok(!(thrown instanceof WebAssembly.RuntimeError), `a wasm trap: ${thrown}`);
  assert.equal(thrown.code, code, String(thrown));
  return thrown;
}

test('a non-string at a text parameter is a TypeError with a code, never a trap', () => {
  const cases = [
    () => new Policy({ seed: 1 }).restore(42),
    () => new Policy({ seed: 1 }).restore([1, 2]),
    () => CircuitBreaker.fromSnapshot(42),
    () => parseRetryAfter(2),
    () => payloadFingerprint({}),
    () => canonicalizeJsonText(5),
    () => parseKeyHeader(null),
    () => keyHeaderValue(1),
    () => parseHttpDate({}),
    () => new ServerIdempotency().decide(0, 5, 'f', null),
    () => new ServerIdempotency().decide(0, 'k', {}, null),
    () => idempotencyKey(7, 'step', {}),
  ];
  for (const fn of cases) {
    const error = typed(fn, 'wrong_type');
    assert.ok(error instanceof TypeError);
  }
  // The policy still works after every refusal.
  const policy = new Policy({ seed: 1 });
  const call = policy.start({ operation: 'x' });
  assert.equal(call.beforeAttempt().kind, 'proceed');
});

test('restore() takes the parsed object a KV store hands back', () => {
  const first = new Policy({ seed: 1 });
  const parsed = JSON.parse(first.snapshot());
  const report = new Policy({ seed: 1 }).restore(parsed);
  assert.equal(typeof report.restored, 'number');
  const error = typed(() => new Policy({ seed: 1 }).restore({}), 'invalid_snapshot');
  assert.ok(error.message.length > 0);
});

test('a status outside 100-999 is an error, not a wrapped status', () => {
  const policy = new Policy({ seed: 1 });
  for (const status of [99999, -1, 99, 1000, 200.5, Number.NaN]) {
    const call = policy.start({ operation: 'x' });
    call.beforeAttempt();
    const error = typed(() => call.onOutcome({ kind: 'status', status }), 'out_of_range');
    assert.ok(error instanceof RangeError);
    call.close();
  }
});

test('integers a double cannot hold are refused by canonical JSON and keys; pass them as strings', () => {
  for (const value of [{ order_id: 1234567890123456789 }, { order_id: 2n ** 70n }]) {
    typed(() => canonicalJson(value), 'number_out_of_range');
    const error = typed(() => idempotencyKey('run', 'step', value), 'number_out_of_range');
    assert.match(error.message, /pass it as a string/);
  }
  assert.notEqual(
    idempotencyKey('run', 'step', { order_id: '1234567890123456789' }),
    idempotencyKey('run', 'step', { order_id: '1234567890123456790' }),
  );
  // RFC 8785 text stays RFC 8785: every number is a double there.
  assert.equal(canonicalizeJsonText('1234567890123456789'), '1234567890123456800');
});

test("an onEvent handler that decides another call cannot change this call's answer", () => {
  let other;
  const policy = new Policy({
    seed: 1,
    logRecords: true,
    onEvent: () => {
      if (other !== undefined) {
        const call = other;
        other = undefined;
        call.beforeAttempt();
        call.onOutcome({ kind: 'status', status: 404 });
      }
    },
  });
  const mine = policy.start({ operation: 'mine', method: 'GET' });
  other = policy.start({ operation: 'other', method: 'GET' });
  assert.equal(mine.beforeAttempt().kind, 'proceed');
  other = policy.start({ operation: 'other2', method: 'GET' });
  const decision = mine.onOutcome({ kind: 'status', status: 503 });
  assert.equal(decision.kind, 'retry');
  assert.equal(decision.matched, 'status_503');
});

test('the low-level Call refuses steps out of order with InputError misuse, never a made-up decision', () => {
  const policy = new Policy({ seed: 1 });
  const call = policy.start({ operation: 'x', method: 'GET' });
  const misuse = { name: 'InputError', code: 'misuse' };
  assert.throws(() => call.onOutcome({ kind: 'success' }), misuse);
  assert.throws(() => call.onOutcome({ kind: 'status', status: 503 }), misuse);
  assert.equal(call.beforeAttempt().kind, 'proceed');
  assert.throws(() => call.beforeAttempt(), misuse);
  assert.equal(call.onOutcome({ kind: 'status', status: 503 }).kind, 'retry', 'the attempt in flight still reports');
  assert.equal(call.beforeAttempt().attempt, 2);
  assert.equal(call.onOutcome({ kind: 'success' }).kind, 'done');
  assert.throws(() => call.onOutcome({ kind: 'success' }), misuse, 'a finished call has no attempt to report');
  assert.equal(call.beforeAttempt().kind, 'reject', 'asking again repeats how it ended');
  call.close();
});

test('the standalone components free their wasm memory on free() or at the end of a using block', () => {
  const made = [
    new CircuitBreaker(),
    new RetryBudget(),
    new Metrics(),
    new ServerIdempotency(),
    new Backoff({ seed: 1 }),
  ];
  for (const part of made) {
    assert.equal(part[Symbol.dispose], part.free, part.constructor.name);
    part.free();
    part.free();
  }
  assert.throws(() => made[0].tryAcquire(0), { name: 'InputError', code: 'misuse' });
  assert.throws(() => made[4].delayMs(1), { name: 'InputError', code: 'misuse' });
  const policy = new Policy({ seed: 1 });
  const call = policy.start();
  assert.equal(call[Symbol.dispose], call.close);
  call[Symbol.dispose]();
  policy[Symbol.dispose]();
  assert.throws(() => policy.start(), { code: 'misuse' });
});

test('times, counts and specs are checked at the edge: a bad reading cannot freeze a policy', async () => {
  const policy = new Policy({ seed: 1 });
  for (const bad of [NaN, Infinity, -1, 1e300]) {
    assert.throws(() => policy.start({}, bad), { code: 'out_of_range' }, String(bad));
  }
  assert.throws(() => policy.start({}, 1n), { code: 'wrong_type' });
  assert.throws(() => new Policy({ now: () => Infinity }).start(), { code: 'out_of_range' });
  assert.equal(await retry(() => 42, { policy }), 42, 'the policy still works');
  assert.throws(() => policy.start({ operaton: 'x' }), { code: 'unknown_field', field: 'operaton' });
  for (const options of [[], new Map([['maxAttempts', 1]]), new Date()]) {
    assert.throws(() => new Policy(options), { code: 'wrong_type' });
  }
  const backoff = new Backoff({ strategy: 'linear', baseMs: 1, capMs: 1e8, seed: 1 });
  for (const bad of [2 ** 32 + 1, -1, 1.9, NaN]) {
    assert.throws(() => backoff.delayMs(bad), { code: 'out_of_range' }, String(bad));
  }
  assert.throws(() => parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', NaN), { code: 'out_of_range' });
});

test('free() releases a policy at once; using it afterwards throws, freeing twice does not', () => {
  const policy = new Policy({ seed: 1 });
  const call = policy.start({ operation: 'x' });
  call.beforeAttempt();
  policy.free();
  policy.free();
  assert.throws(() => policy.start({ operation: 'y' }), { code: 'misuse' });
  assert.equal(typeof Policy.prototype[Symbol.dispose], 'function');
});

test('canonicalJson and idempotencyKey refuse deep, cyclic and lossy values with an InputError', async () => {
  const { InputError } = await import('../dist/node.js');
  let deep = [];
  for (let i = 0; i < 20_000; i++) deep = [deep];
  const cyclic = [1];
  cyclic.push(cyclic);
  const cases = [
    [deep, 'too_deep'],
    [cyclic, 'cyclic'],
    [{ m: new Map([[1, 2]]) }, 'invalid_json'],
    [{ s: new Set([1]) }, 'invalid_json'],
    [{ f: () => 1 }, 'invalid_json'],
    [{ id: 10n }, 'number_out_of_range'],
    [{ id: Number.NaN }, 'number_out_of_range'],
  ];
  for (const [value, code] of cases) {
    for (const fn of [() => canonicalJson(value), () => idempotencyKey('r', 's', value)]) {
      const error = typed(fn, code);
      assert.ok(error instanceof InputError, String(error));
    }
  }
  const shared = { a: 1 };
  assert.equal(canonicalJson({ x: shared, y: shared }), '{"x":{"a":1},"y":{"a":1}}');
});

test('free() while a retry() runs waits for it: the result is not lost', async () => {
  const policy = new Policy({ seed: 1 });
  const running = retry(async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return 'ok';
  }, { policy, operation: 'y' });
  policy.free();
  assert.equal(await running, 'ok');
  const error = typed(() => policy.start({ operation: 'z' }), 'misuse');
  assert.equal(error.name, 'InputError');
});

test('createFetch: per-request names that would do nothing are refused; other RequestInit members pass', async () => {
  const fetchWithRetries = createFetch({ fetch: async () => new Response('ok') });
  const refused = async (init, pattern) => {
    await assert.rejects(fetchWithRetries('http://127.0.0.1:9/', init), (e) => {
      assert.equal(e.code, 'unknown_field');
      assert.match(e.message, pattern);
      return true;
    });
  };
  await refused({ idempotencyKy: 'k' }, /did you mean "idempotencyKey"/);
  await refused({ onRetry() {} }, /createFetch\(\) option/);
  await refused({ idempotent: true }, /does not exist/);
  for (const init of [{ next: { revalidate: 1 } }, { cf: { cacheTtl: 5 } }, { priority: 'high' }, { x: 1 }]) {
    assert.equal((await fetchWithRetries('http://127.0.0.1:9/', init)).status, 200);
  }
});

test('retry(): operation, scope and idempotencyKey that are not strings are TypeErrors with a code', async () => {
  for (const options of [{ operation: 7 }, { scope: {} }, { idempotencyKey: new Map() }]) {
    await assert.rejects(retry(() => 1, options), (e) => e instanceof TypeError && e.code === 'wrong_type');
  }
});

test('a permit handed back twice, or forged, counts once; a malformed one is an InputError naming the field', () => {
  const breaker = new CircuitBreaker({
    trip: { kind: 'consecutive_failures', threshold: 2 },
    cooldownMs: 1000,
  });
  const { permit } = breaker.tryAcquire(0);
  assert.equal(breaker.onFailure(1, permit), true);
  assert.equal(breaker.onFailure(2, permit), false);
  assert.equal(breaker.onFailure(2, { ...permit, id: permit.id + 7 }), false);
  assert.equal(breaker.state().kind, 'closed');
  const error = typed(() => breaker.onFailure(3, { ...permit, generation: 'x' }), 'wrong_type');
  assert.equal(error.name, 'InputError');
  assert.equal(error.field, 'generation');
  assert.equal(typed(() => breaker.onFailure(3, {}), 'required').field, 'generation');
});

test('a classify hook may answer with a class code; any other non-object is a typed error', async () => {
  let calls = 0;
  const result = await retry(
    () => {
      calls += 1;
      if (calls < 2) throw new Error('busy');
      return 'ok';
    },
    { operation: 'op', classify: () => 'transient', backoff: { strategy: 'none' } },
  );
  assert.equal(result, 'ok');
  await assert.rejects(
    retry(() => { throw new Error('x'); }, { operation: 'op', classify: () => 42 }),
    (error) => error.code === 'invalid_value' && error.field === 'classify',
  );
});

test('a whole number beyond 2^53 in a config is refused (pass a BigInt), so config() always stringifies', () => {
  const error = typed(() => new Policy({ seed: 2 ** 60 }), 'out_of_range');
  assert.equal(error.name, 'ConfigError');
  assert.equal(error.field, 'seed');
  assert.doesNotThrow(() => JSON.stringify(new Policy().config()));
});

test('a metrics snapshot handed back must be whole: a partial one is an InputError, not zeros', () => {
  const whole = new Metrics().snapshot();
  assert.doesNotThrow(() => mergeMetrics(whole, whole));
  const error = typed(() => mergeMetrics({}, whole), 'required');
  assert.equal(error.name, 'InputError');
});

test("an unknown code argument names its field and the core's codes", () => {
  const budget = new RetryBudget();
  const error = typed(() => budget.tryRetry(0, 'slow'), 'invalid_value');
  assert.equal(error.field, 'cost');
  assert.match(error.message, /"normal", "timeout", "throttling"/);
  const metrics = new Metrics();
  const outcome = { retries: 0, outcome: 'ok', durationMs: 1 };
  assert.equal(typed(() => metrics.onCallFinished(0, outcome), 'invalid_value').field, 'summary.outcome');
});
