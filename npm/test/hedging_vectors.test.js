// tests/vectors/core_only/hedging.json through the package: the hedged
// calls' scenarios and settings, with the Rust suite's results. Its own
// file, not vectors.test.js: the vector file sits in core_only/ until every
// suite runs it (tests/vectors/core_only/README.md), and then moves up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { VECTORS } from '../testlib/vectors.js';
import { runHedging } from '../testlib/run-hedging.js';

test('vectors: core_only/hedging.json (hedging)', () => {
  const doc = JSON.parse(readFileSync(`${VECTORS}core_only/hedging.json`, 'utf8'));
  assert.equal(doc.kind, 'hedging');
  const count = runHedging('core_only/hedging.json', doc);
  assert.ok(count > 100, `only ${count} checks ran`);
});
