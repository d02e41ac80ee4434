// server_idempotency (server_idempotency.json) through ServerIdempotency and
// payloadFingerprint.
import assert from 'node:assert/strict';
import { payloadFingerprint, ServerIdempotency } from '../dist/node.js';
import { camel, snake } from './vectors.js';

export function runServerIdempotency(name, doc) {
  for (const c of doc.cases) {
    const server = new ServerIdempotency(camel(c.config ?? {}));
    const stored = c.stored === null ? null : camel(c.stored);
    const decision = server.decide(c.now_unix_ms, c.key, c.fingerprint, stored);
    assert.deepEqual(snake(decision), c.expected, `${name} ${c.name}`);
  }
  for (const c of doc.fingerprint_cases) {
    assert.equal(payloadFingerprint(c.body), c.expected, `${name} fingerprint of ${JSON.stringify(c.body)}`);
  }
  return doc.cases.length + doc.fingerprint_cases.length;
}
