// jcs.json, jcs_numbers.json, idempotency_keys.json, retry_after.json and
// server_hints.json through the component's `keys` and `hints` interfaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { big, engine, failure, load, plain } from './engine.js';

const { keys, hints } = engine;

test('component keys: canonical JSON', () => {
  const doc = load('jcs.json', 'canonical_json');
  for (const c of doc.cases) assert.equal(keys.canonicalJson(c.input), c.expected, c.name);
  for (const c of doc.error_cases) assert.equal(failure(() => keys.canonicalJson(c.input)).code, c.code, c.name);
});

test('component keys: ECMAScript numbers', () => {
  const doc = load('jcs_numbers.json', 'es6_number');
  assert.equal(doc.cases.length, 1000);
  const view = new DataView(new ArrayBuffer(8));
  for (const c of doc.cases) {
    view.setBigUint64(0, BigInt(`0x${c.bits}`));
    assert.equal(keys.es6Number(view.getFloat64(0)), c.expected, c.bits);
  }
});

test('component keys: idempotency keys, random keys, headers', () => {
  const doc = load('idempotency_keys.json', 'idempotency_key');
  for (const c of doc.cases) {
    assert.equal(keys.canonicalJson(c.args_text), c.canonical, c.name);
    assert.equal(keys.idempotencyKey(c.run_id, c.step, c.args_text), c.expected, c.name);
  }
  for (const c of doc.error_cases) {
    assert.equal(failure(() => keys.idempotencyKey(c.run_id, c.step, c.args_text)).code, c.code, c.name);
  }
  for (const c of doc.random_cases) assert.equal(keys.randomKey(Buffer.from(c.bytes_hex, 'hex')), c.expected);
  for (const c of doc.header_cases) assert.equal(keys.keyHeaderValue(c.key, c.form), c.expected);
  for (const c of doc.parse_header_cases) assert.equal(keys.parseKeyHeader(c.value) ?? null, c.expected);
});

test('component hints: Retry-After and HTTP dates', () => {
  const doc = load('retry_after.json', 'retry_after');
  for (const c of doc.cases) {
    const raw = hints.parseRetryAfter(c.input, BigInt(c.now_unix_ms));
    if (c.saturates === true) assert.equal(raw, 2n ** 64n - 1n, c.input);
    const got = plain(raw);
    if (c.saturates !== true) assert.equal(got, c.expected_ms, c.input);
    if (c.policy_max_ms !== undefined && c.policy_max_ms !== null) {
      const clamped = got === null ? null : Math.min(Number(got), c.policy_max_ms);
      assert.equal(clamped, c.expected_clamped_ms ?? null, c.input);
    }
  }
  for (const c of doc.http_date_cases) {
    assert.equal(plain(hints.parseHttpDate(c.input, big(c.now_unix_s))), c.expected_unix_s, c.input);
  }
});

test('component hints: server hints', () => {
  const doc = load('server_hints.json', 'server_hint');
  for (const c of doc.cases) {
    const hint = hints.parseServerHint(c.headers, big(c.wall_now_unix_ms));
    const want = c.expected;
    let effective = c.backoff_ms;
    if (want.kind === 'none') {
      assert.equal(hint, undefined, c.description);
    } else {
      const got = plain(hint);
      assert.deepEqual([got.kind, got.source], [want.kind, want.source], c.description);
      if ('hint_ms' in want) assert.equal(got.hint_ms, want.hint_ms, c.description);
      if (want.kind === 'delay') assert.equal(got.delay_ms, want.delay_ms, c.description);
      effective = plain(hints.hintDelayWithBackoff(hint, BigInt(c.backoff_ms)));
      assert.equal(effective, want.delay_ms ?? null, c.description);
    }
    assert.equal(effective, c.effective_delay_ms, c.description);
  }
});
