// Policy construction, errors, shared state across instances, events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import {
  canonicalizeJsonText,
  canonicalJson,
  ConfigError,
  idempotencyKey,
  idempotencyKeyFromText,
  InputError,
  keyHeaderValue,
  outcomeOfError,
  payloadFingerprint,
  Policy,
  retry,
  ServerIdempotency,
} from '../dist/node.js';

function thrown(body) {
  try {
    body();
  } catch (e) {
    return e;
  }
  assert.fail('expected a throw');
}

test('a rejected value is a ConfigError naming the field as the caller spelled it', () => {
  const camel = thrown(() => new Policy({ maxAttempts: 0 }));
  assert.ok(camel instanceof Error && camel instanceof ConfigError);
  assert.equal(camel.name, 'ConfigError');
  assert.deepEqual([camel.code, camel.field], ['out_of_range', 'maxAttempts']);
  const snake = thrown(() => new Policy({ max_attempts: 0 }));
  assert.deepEqual([snake.code, snake.field], ['out_of_range', 'maxAttempts'], 'the core spelling is accepted, named the JS way');
  const nested = thrown(() => new Policy({ backoff: { baseMs: 5000, capMs: 10 } }));
  assert.deepEqual([nested.code, nested.field], ['inconsistent', 'backoff.capMs']);
  const typo = thrown(() => new Policy({ timeouts: { raedMs: 5 } }));
  assert.deepEqual([typo.code, typo.field], ['unknown_field', 'timeouts.raedMs']);
  assert.match(typo.message, /readMs/);
  assert.doesNotMatch(typo.message, /line \d+ column/);
});

test('a config of the wrong shape is a ConfigError too, with code and field (as in Python)', () => {
  const wrong = thrown(() => new Policy({ timeouts: { readMs: '30s' } }));
  assert.ok(wrong instanceof ConfigError);
  assert.deepEqual([wrong.code, wrong.field], ['wrong_type', 'timeouts.readMs']);
  assert.equal(wrong.message, 'timeouts.readMs: expected a whole number, got text');
  const nan = thrown(() => new Policy({ maxAttempts: NaN }));
  assert.deepEqual([nan.code, nan.field], ['out_of_range', 'maxAttempts'], 'as Python reports a NaN');
  const fraction = thrown(() => new Policy({ maxAttempts: 1.5 }));
  const negative = thrown(() => new Policy({ maxAttempts: -1 }));
  assert.deepEqual([fraction.name, fraction.code, negative.name, negative.code], ['ConfigError', 'wrong_type', 'ConfigError', 'out_of_range']);
  const twice = thrown(() => new Policy({ maxAttempts: 2, max_attempts: 3 }));
  assert.ok(twice instanceof ConfigError);
  assert.match(twice.message, /given twice/);
  const fn = thrown(() => new Policy({ seed: () => 1 }));
  assert.deepEqual([fn.name, fn.code, fn.field], ['ConfigError', 'wrong_type', 'seed']);
  const all = thrown(() => new Policy({ maxAttempts: 0, backoff: { baseMs: 'x' }, budget: { rattio: {} } }));
  assert.deepEqual(
    all.problems.map((p) => [p.code, p.field]),
    [['wrong_type', 'backoff.baseMs'], ['unknown_field', 'budget.rattio']],
    'every shape problem (values are checked once the shape is right)',
  );
  const suggestion = thrown(() => new Policy({ breaker: { trip: { kind: 'consecutiveFailures' } } }));
  assert.match(suggestion.message, /"consecutive_failures"/, 'codes are suggested as they are accepted');
});

test('the errors the module throws are instances of the exported classes, and print as such', () => {
  const config = thrown(() => new Policy({ maxAttempts: -1 }));
  assert.equal(config.constructor, ConfigError);
  assert.match(inspect(config), /^ConfigError: maxAttempts: must not be negative/);
  const input = thrown(() => canonicalJson(NaN));
  assert.equal(input.constructor, InputError);
  assert.match(inspect(input), /^InputError: /);
  const misuse = thrown(() => {
    const call = new Policy({ seed: 1 }).start({}, 0);
    call.close();
    call.beforeAttempt(0);
  });
  assert.deepEqual([misuse.constructor, misuse.code], [InputError, 'misuse']);
});

test("a call's option given to a Policy says where it goes", () => {
  for (const field of ['onRetry', 'onGiveUp', 'sleep', 'validate', 'classify', 'fetch']) {
    const error = thrown(() => new Policy({ [field]: () => undefined }));
    assert.ok(error instanceof ConfigError, field);
    const code = field === 'classify' ? 'wrong_type' : 'unknown_field';
    assert.deepEqual([error.code, error.field, error.problems.length], [code, field, 1], field);
    assert.match(error.message, field === 'fetch' ? /createFetch\(\{ fetch \}\)/ : /retry\(fn, \{/, field);
  }
  const signal = thrown(() => new Policy({ signal: new AbortController().signal }));
  assert.deepEqual([signal.code, signal.field], ['unknown_field', 'signal']);
  for (const [field, value] of [['operation', 'charge'], ['scope', 'api'], ['idempotencyKey', 'k'], ['keys', false], ['returnFailedResponses', true]]) {
    const error = thrown(() => new Policy({ [field]: value }));
    assert.deepEqual([error.code, error.field], ['unknown_field', field], field);
    assert.match(error.message, new RegExp(`pass ${field} to `), field);
  }
  // Data under those names is the core's to judge: a Policy's classify is its status table.
  assert.equal(new Policy({ classify: { status: { 418: 'transient' } } }).config().classify.status['418'], 'transient');
});

test('text whose identity matters refuses a lone surrogate, as in Python; free text keeps a replacement', async () => {
  // Crossing into wasm would make '\ud800' and '\ufffd' one text: one breaker, one key.
  const policy = new Policy({ seed: 1 });
  const refused = {
    scope: () => policy.start({ scope: 'api\ud800' }, 0),
    operation: () => policy.start({ operation: '\udc00charge' }, 0),
    idempotencyKey: () => policy.start({ idempotencyKey: 'k\ud800' }, 0),
    breakerState: () => policy.breakerState('\ud800'),
    budgetStatus: () => policy.budgetStatus('\ud800'),
    text: () => canonicalizeJsonText('"\ud800"'),
    runId: () => idempotencyKey('run\ud800', 'step', {}),
    argsJson: () => idempotencyKeyFromText('run', 'step', '"\ud800"'),
    key: () => keyHeaderValue('\ud800'),
    bodyJson: () => payloadFingerprint('"\ud800"'),
    fingerprint: () => new ServerIdempotency().decide(0, 'k', '\ud800', null),
  };
  for (const [name, body] of Object.entries(refused)) {
    const error = thrown(body);
    assert.ok(error instanceof InputError, name);
    assert.equal(error.code, 'lone_surrogate', name);
  }
  assert.equal(thrown(refused.scope).field, 'scope');
  await assert.rejects(retry(() => 1, { policy, scope: '\ud800' }), { code: 'lone_surrogate', field: 'scope' });
  // A surrogate pair is well-formed text, and free text is kept with a replacement.
  assert.equal(policy.breakerState('api\ud83d\ude00'), null);
  const error = await retry(() => {
    throw new Error('broke \ud800 here');
  }, { policy }).catch((e) => e);
  assert.match(error.observation, /broke \ufffd here/);
});

test('undefined members mean absent; the seed is random unless given, and exact beyond 2^53 as a BigInt', () => {
  const a = new Policy({ seed: undefined, maxAttempts: undefined });
  assert.equal(a.config().maxAttempts, 5);
  assert.equal(typeof a.config().seed, 'number', 'a drawn seed is a plain number');
  assert.notEqual(a.config().seed, new Policy().config().seed);
  assert.doesNotThrow(() => JSON.stringify(a.config()));
  const big = 18446744073709551615n;
  assert.equal(new Policy({ seed: big }).config().seed, big);
  assert.equal(new Policy({ seed: 7n }).config().seed, 7);
  const network = new Policy({ classify: { network: { reset_after_send: 'transient' } } }).config().classify.network;
  assert.deepEqual(network, { reset_after_send: 'transient' }, 'data keys keep their codes');
  assert.equal(new Policy({ backoff: { baseMs: 250 } }).config().backoff.baseMs, 250);
});

test('snapshot() and restore() carry breakers and budgets into a new instance', async () => {
  const config = { seed: 1, maxAttempts: 1, budget: { ratio: null } };
  let t = 1_000;
  const first = new Policy({ ...config, now: () => t });
  for (let i = 0; i < 5; i++) {
    await retry(() => Promise.reject(Object.assign(new Error('down'), { status: 503 })), { policy: first, scope: 'api' }).catch(() => {});
  }
  assert.equal(first.breakerState('api'), 'open');
  const text = first.snapshot();
  assert.equal(typeof JSON.parse(text).version, 'number');
  t += 10;
  const second = new Policy({ ...config, now: () => t });
  assert.equal(second.breakerState('api'), null);
  assert.deepEqual(second.restore(text), { restored: 1, reset: [] });
  const error = await retry(() => 'never', { policy: second, scope: 'api' }).catch((e) => e);
  assert.equal(error.code, 'circuit_open');
  assert.ok(error.decision.retryAt > t);
  assert.ok(second.nextTimeout() > t);
  const bad = thrown(() => second.restore('{"version": 99, "latest": 0, "scopes": {}}'));
  assert.deepEqual([bad.name, bad.code], ['InputError', 'invalid_snapshot']);
});

test('log records reach onEvent as objects with a one-line JSON form', async () => {
  const events = [];
  const policy = new Policy({
    seed: 1,
    logRecords: true,
    backoff: { strategy: 'constant', baseMs: 5, capMs: 5 },
    onEvent: (e) => events.push(e),
    wallNow: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6),
  });
  let n = 0;
  await retry(() => (++n < 2 ? Promise.reject(Object.assign(new Error('x'), { status: 503 })) : 'ok'), { policy, operation: 'sync', sleep: async () => {} });
  const logs = events.filter((e) => e.kind === 'log');
  assert.deepEqual(
    logs.map((e) => e.record.outcome),
    ['retry', 'success'],
  );
  const record = logs[0].record;
  assert.equal(record.operation, 'sync');
  assert.equal(record.delayMs, 5);
  assert.equal(record.timestamp.slice(0, 11), '2026-01-02T');
  assert.deepEqual(Object.keys(JSON.parse(record.line)), [
    'timestamp',
    'operation',
    'attempt',
    'delay_ms',
    'error',
    'strategy',
    'outcome',
    'total_duration_ms',
  ]);
  assert.match(record.text, /outcome=retry/);
  assert.equal(policy.metrics().sync.callsTotal, 1); // scoped by its operation
});

test('thrown errors translate to the outcomes the core classifies', () => {
  const cases = [
    [Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'network', 'connect_refused'],
    [new TypeError('fetch failed', { cause: Object.assign(new Error('r'), { code: 'ECONNRESET' }) }), 'network', 'unknown'],
    [new TypeError('fetch failed', { cause: { code: 'UND_ERR_HEADERS_TIMEOUT' } }), 'network', 'read_timeout'],
    [new TypeError('Failed to fetch'), 'network', 'unknown'],
    // What Node's fetch will never send: a blocked port, an unknown scheme, a redirect under redirect: 'error'.
    [new TypeError('fetch failed', { cause: new Error('bad port') }), 'network', 'refused_locally'],
    [new TypeError('fetch failed', { cause: new Error('unknown scheme') }), 'network', 'refused_locally'],
    [new TypeError('fetch failed', { cause: new Error('unexpected redirect') }), 'network', 'refused_locally'],
    [new DOMException('slow', 'TimeoutError'), 'network', 'read_timeout'],
    [Object.assign(new Error('dns'), { code: 'ENOTFOUND' }), 'network', 'dns_failure'],
    [new DOMException('stop', 'AbortError'), 'error', 'deterministic'],
    [new TypeError('x is not a function'), 'error', 'deterministic'],
    [new Error('anything else'), 'error', 'deterministic'],
    ['a string', 'error', 'deterministic'],
    [Object.assign(new Error('odd'), { code: 'toString' }), 'error', 'deterministic'],
    // Errors that carry their HTTP status, the way ky, axios, got and SDKs do.
    [Object.assign(new Error('ky'), { response: { status: 503, headers: new Headers() } }), 'status', 503],
    [Object.assign(new Error('sdk'), { status: 404 }), 'status', 404],
    [Object.assign(new Error('got'), { statusCode: 429 }), 'status', 429],
    [Object.assign(new Error('wrapped'), { status: 99999 }), 'error', 'deterministic'],
  ];
  for (const [error, kind, detail] of cases) {
    const outcome = outcomeOfError(error);
    assert.equal(outcome.kind, kind, String(error));
    const got = outcome.kind === 'network' ? outcome.network : outcome.kind === 'status' ? outcome.status : outcome.class;
    assert.equal(got, detail, String(error));
  }
});

test('odd numbers on the hot path never trap: NaN, negative and huge times are refused with a code', () => {
  const policy = new Policy({ seed: 1 });
  assert.throws(() => policy.start({}, NaN), { code: 'out_of_range' });
  const call = policy.start({}, 0);
  assert.throws(() => call.beforeAttempt(-5), { code: 'out_of_range' });
  assert.equal(call.beforeAttempt(0).kind, 'proceed');
  assert.throws(() => call.onOutcome({ kind: 'status', status: 503 }, 1e300), { code: 'out_of_range' });
  assert.throws(() => call.onOutcome({ kind: 'network', network: 'no_such_kind' }), { code: 'invalid_value' });
  assert.equal(call.onOutcome({ kind: 'status', status: 503, headers: { 'retry-after': '1' } }, 1).kind, 'retry');
  call.close();
});

test('helpers reject what JSON cannot say', () => {
  assert.throws(() => canonicalJson(NaN), { name: 'InputError', code: 'number_out_of_range' });
  assert.throws(() => canonicalJson(undefined), { name: 'InputError', code: 'invalid_json' });
  assert.equal(canonicalJson({ b: [1e21, -0], a: 'é' }), '{"a":"é","b":[1e+21,0]}');
});

test('long and non-ASCII text crosses whole (the text area grows)', () => {
  const policy = new Policy({ seed: 1, breaker: null });
  const call = policy.start({ operation: 'créer_commande', scope: 'api', method: 'GET' }, 0);
  call.beforeAttempt(0);
  const headers = { 'x-padding': 'é'.repeat(6000), 'retry-after': '7' };
  const retry = call.onOutcome({ kind: 'status', status: 503, headers, detail: 'ü'.repeat(9000) }, 1);
  assert.equal(retry.kind, 'retry');
  assert.equal(retry.delayMs, 7000);
  call.beforeAttempt(7001);
  const giveUp = call.onOutcome({ kind: 'status', status: 400, detail: `bad ${'ß'.repeat(5000)}` }, 7002);
  assert.equal(giveUp.kind, 'give_up');
  assert.match(giveUp.observation, /bad ßßß/);
  call.close();
  assert.deepEqual(Object.keys(policy.metrics()), ['api']);
});

test('a throwing listener never fails a call: reported once, every event still handed out, in order', async () => {
  // A measured call queues several events, handed out in one crossing; a
  // listener that throws is reported and the handing out goes on.
  const label = (event) => (event.kind === 'metric' ? `${event.metric}` : event.kind === 'decision' ? event.name : event.kind);
  const calm = new Policy({ seed: 1, logRecords: true });
  calm.measuring = true;
  const expected = [];
  calm.onEvent = (event) => expected.push(label(event));
  await retry(() => 1, { policy: calm });
  await retry(() => 2, { policy: calm });
  assert.ok(expected.length >= 4, expected.join());

  const policy = new Policy({ seed: 1, logRecords: true });
  policy.measuring = true;
  const seen = [];
  let broken = true;
  policy.onEvent = (event) => {
    seen.push(label(event));
    if (broken) {
      broken = false;
      throw new Error('listener broke');
    }
  };
  const warned = [];
  const original = console.warn;
  console.warn = (...args) => warned.push(args);
  try {
    assert.equal(await retry(() => 1, { policy }), 1, 'the call succeeded, whatever the listener did');
    broken = true;
    assert.equal(await retry(() => 2, { policy }), 2);
  } finally {
    console.warn = original;
  }
  assert.deepEqual(seen, expected, 'no event lost');
  assert.equal(warned.length, 1, 'reported once');
  assert.equal(warned[0][1].message, 'listener broke');
  calm.free();
  policy.free();
});

test('an events() loop that stops early leaves the rest queued, in order', async () => {
  const all = new Policy({ seed: 1, logRecords: true });
  all.measuring = true;
  await retry(() => 1, { policy: all });
  const expected = [...all.events()].map((e) => e.kind);
  assert.ok(expected.length >= 3, expected.join());
  assert.deepEqual([...all.events()], []);

  const policy = new Policy({ seed: 1, logRecords: true });
  policy.measuring = true;
  await retry(() => 1, { policy });
  const taken = [];
  for (const event of policy.events()) {
    taken.push(event.kind);
    break;
  }
  for (const event of policy.events()) taken.push(event.kind);
  assert.deepEqual(taken, expected);
  all.free();
  policy.free();
});
