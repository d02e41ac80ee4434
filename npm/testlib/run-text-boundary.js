// text_boundary (text_boundary.json): text holding an unpaired surrogate at
// each binding call, refused where its identity matters and read lossily
// where it is free text.
import assert from 'node:assert/strict';
import {
  canonicalizeJsonText,
  idempotencyKeyFromText,
  InputError,
  keyHeaderValue,
  parseKeyHeader,
  parseRetryAfter,
  payloadFingerprint,
  Policy,
} from '../dist/node.js';

/** Each call the file names, as a JavaScript caller makes it. */
const CALLS = {
  start: (a) => new Policy({ seed: 1 }).start({ operation: a.operation, scope: a.scope, idempotencyKey: a.key }, 0),
  breaker_state: (a) => new Policy({ seed: 1 }).breakerState(a.scope),
  canonical_json_text: (a) => canonicalizeJsonText(a.text),
  idempotency_key_text: (a) => idempotencyKeyFromText(a.run_id, a.step, a.args_text),
  key_header_value: (a) => keyHeaderValue(a.key),
  request_fingerprint: (a) => payloadFingerprint(a.body),
  parse_key_header: (a) => parseKeyHeader(a.value),
  parse_retry_after: (a) => parseRetryAfter(a.value, a.now_ms),
};

export function runTextBoundary(name, doc) {
  assert.ok(doc.applies_to.includes('javascript'), name);
  for (const c of doc.refused) {
    const call = CALLS[c.call];
    assert.ok(call, `${name}: no call ${c.call}`);
    assert.throws(
      () => call(c.args),
      (error) => error instanceof InputError && error.code === 'lone_surrogate',
      `${name} ${c.name}`,
    );
  }
  for (const c of doc.read_lossily) {
    assert.deepEqual(CALLS[c.call](c.args), c.expected, `${name} ${c.name}`);
  }
  return doc.refused.length + doc.read_lossily.length;
}
