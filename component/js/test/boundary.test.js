// Bad input at the component's boundary, from Node: a typed error (jco
// throws it with the error record as `payload`), never a trap, and the
// instance keeps deciding afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, failure } from './engine.js';

const { Policy } = engine.policy;
const spec = { operation: 'op', scope: '', method: 'GET' };
const ok = { kind: { tag: 'success' }, headers: [] };

function stillDecides() {
  const policy = Policy.create('{"seed": 1}');
  const call = policy.start(0n, spec);
  assert.equal(policy.beforeAttempt(0n, call).tag, 'proceed');
  assert.equal(policy.onOutcome(1n, call, ok).tag, 'done');
}

test('bad configs are config errors', () => {
  const texts = ['', '{', '[]', '{"seed": 1, "seed": 2}', '{"seed": 1e400}', '['.repeat(100_000) + ']'.repeat(100_000)];
  for (const text of texts) assert.ok(failure(() => Policy.create(text)).code, text.slice(0, 20));
  stillDecides();
});

test('steps out of order and another policy’s call are misuse', () => {
  const a = Policy.create('{"seed": 1}');
  const b = Policy.create('{"seed": 2}');
  const call = a.start(0n, spec);
  assert.equal(failure(() => a.onOutcome(0n, call, ok)).code, 'misuse');
  assert.equal(failure(() => b.beforeAttempt(0n, call)).code, 'misuse');
  assert.equal(a.beforeAttempt(0n, call).tag, 'proceed');
  assert.equal(failure(() => a.beforeAttempt(0n, call)).code, 'misuse');
  assert.equal(a.onOutcome(1n, call, ok).tag, 'done');
  stillDecides();
});

test('helpers refuse bad arguments', () => {
  assert.equal(failure(() => engine.keys.randomKey(new Uint8Array(3))).code, 'misuse');
  assert.ok(failure(() => engine.keys.keyHeaderValue('k', 'fancy')).code);
  assert.ok(failure(() => engine.parts.mergeMetrics('{}', '[]')).code);
  assert.equal(engine.hints.parseServerHint([['Retry-After', '\u0000'.repeat(10_000)]], undefined), undefined);
  stillDecides();
});
