// backoff.json through the Backoff class.
import assert from 'node:assert/strict';
import { Backoff, ConfigError } from '../dist/node.js';
import { camel, expectError } from './vectors.js';

export function runBackoff(name, doc) {
  for (const c of doc.cases) {
    const backoff = new Backoff({ ...camel(c.spec), seed: c.seed });
    const got = c.retries.map((k) => backoff.delayMs(k));
    assert.deepEqual(got, c.expected_ms, `${name} ${c.name}`);
  }
  for (const c of doc.invalid_cases) {
    const error = expectError(`${name} ${c.name}`, () => new Backoff({ ...camel(c.spec), seed: 0 }), c.code, c.field);
    assert.ok(error instanceof ConfigError, `${c.name}: ${error.name}`);
  }
  return doc.cases.length + doc.invalid_cases.length;
}
