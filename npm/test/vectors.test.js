// Every file in tests/vectors/ runs through the package, with the same
// results as the Rust suite. A file of an unknown kind fails the suite, so a
// new vector file cannot be skipped silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vectorFiles } from '../testlib/vectors.js';
import { runPolicyFile } from '../testlib/run-policy.js';
import { runCanonicalJson, runEs6Numbers, runIdempotencyKeys } from '../testlib/run-keys.js';
import { runRetryAfter, runServerHints } from '../testlib/run-hints.js';
import { runBackoff } from '../testlib/run-backoff.js';
import { runBreaker } from '../testlib/run-breaker.js';
import { runBudget } from '../testlib/run-budget.js';
import { runRecords } from '../testlib/run-records.js';
import { runServerIdempotency } from '../testlib/run-server.js';
import { runConfigErrors } from '../testlib/run-config-errors.js';
import { runHost } from '../testlib/run-host.js';
import { runFleet } from '../testlib/run-fleet.js';
import { runTextBoundary } from '../testlib/run-text-boundary.js';
import { runAgentRuns } from '../testlib/run-agent-runs.js';
import { runHedging } from '../testlib/run-hedging.js';

const RUNNERS = {
  policy: runPolicyFile,
  canonical_json: runCanonicalJson,
  es6_number: runEs6Numbers,
  idempotency_key: runIdempotencyKeys,
  retry_after: runRetryAfter,
  server_hint: runServerHints,
  backoff: runBackoff,
  breaker: runBreaker,
  budget: runBudget,
  records: runRecords,
  server_idempotency: runServerIdempotency,
  config_errors: runConfigErrors,
  host: runHost,
  fleet_exchange: runFleet,
  text_boundary: runTextBoundary,
  agent_run: runAgentRuns,
  hedging: runHedging,
};

const files = vectorFiles();

test('the vector folder has files', () => {
  assert.ok(files.length >= 11, `only ${files.length} vector files`);
});

for (const { name, doc } of files) {
  test(`vectors: ${name} (${doc.kind})`, async () => {
    for (const field of ['description', 'source', 'license']) {
      assert.equal(typeof doc[field], 'string', `${name} lacks ${field}`);
    }
    const runner = RUNNERS[doc.kind];
    assert.ok(runner, `${name}: no runner for kind ${doc.kind}`);
    const count = await runner(name, doc);
    assert.ok(count > 0, `${name}: nothing ran`);
  });
}
