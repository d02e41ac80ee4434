// The browser's client engine (`stoic_client_bg.wasm`, the browser entry)
// leaves whole behaviours out, as build features of the core: asking it for
// one is a ConfigError `not_in_build` that names the field in the caller's
// spelling and says to import `stoic/full`, which accepts the same config.
//
// Node runs the browser entry here: its `fetch` of the module's file URL is
// answered from the disk (Node's own fetch takes no file URLs), so the
// client module loads as it does in a page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { vectorFiles } from '../testlib/vectors.js';
import { runCanonicalJson, runEs6Numbers, runIdempotencyKeys } from '../testlib/run-keys.js';
import { runAgentRuns } from '../testlib/run-agent-runs.js';

const nodeFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const at = new URL(String(url));
  if (at.protocol !== 'file:') return nodeFetch(url, init);
  return new Response(await readFile(at), { headers: { 'content-type': 'application/wasm' } });
};
const client = await import('../dist/browser.js');
const full = await import('../dist/full.js');
globalThis.fetch = nodeFetch;

// Each left-out behaviour, the config that asks for it, and the field the
// refusal names.
const LEFT_OUT = [
  {
    what: 'the failure-rate breaker (count window)',
    config: { breaker: { trip: { kind: 'failure_rate', window: { kind: 'count', size: 20 }, failureRate: 0.5, minimumThroughput: 10 } } },
    field: 'breaker.trip.kind',
  },
  {
    what: 'the failure-rate breaker (time window, slow calls)',
    config: {
      breaker: {
        trip: {
          kind: 'failure_rate',
          window: { kind: 'time', durationMs: 60_000, buckets: 10 },
          failureRate: 0.5,
          minimumThroughput: 10,
          slowCall: { durationMs: 2_000, rate: 0.8 },
        },
      },
    },
    field: 'breaker.trip.kind',
  },
  { what: 'the AWS token bucket', config: { budget: { tokenBucket: {} } }, field: 'budget.tokenBucket' },
  { what: 'the AWS token bucket (snake_case)', config: { budget: { token_bucket: { profile: 'aws_standard' } } }, field: 'budget.tokenBucket' },
  { what: 'the gRPC throttle', config: { budget: { grpc: { maxTokens: 10, tokenRatio: 0.1 } } }, field: 'budget.grpc' },
  { what: 'alerts', config: { alerts: { retryRateWarning: 0.3 } }, field: 'alerts' },
];

for (const { what, config, field } of LEFT_OUT) {
  test(`the client build refuses ${what} with not_in_build naming stoic/full; stoic/full accepts it`, () => {
    assert.throws(
      () => new client.Policy(config),
      (error) => {
        assert.equal(error.name, 'ConfigError');
        assert.equal(error.code, 'not_in_build');
        assert.equal(error.field, field);
        assert.match(error.message, /is not in this build: import it from stoic\/full/);
        return true;
      },
    );
    assert.doesNotThrow(() => new full.Policy(config));
  });
}

test('the client build refuses hedging with not_in_build naming stoic/full, sending nothing; stoic/full hedges', async () => {
  const hedging = { delay: { kind: 'fixed', afterMs: 5 } };
  const refused = (error) => {
    assert.equal(error.name, 'ConfigError');
    assert.equal(error.code, 'not_in_build');
    assert.equal(error.field, 'hedging');
    assert.match(error.message, /is not in this build: import it from stoic\/full/);
    return true;
  };
  let ran = 0;
  await assert.rejects(client.retry(() => ran++, { hedging }), refused);
  let sent = 0;
  const send = async () => (sent += 1, new Response('ok'));
  await assert.rejects(client.createFetch({ fetch: send, hedging })('https://api.example/x'), refused);
  assert.deepEqual([ran, sent], [0, 0]);
  const copies = [];
  const value = await full.retry(
    (attempt) => {
      copies.push(attempt.attempt);
      return attempt.attempt === 1 ? new Promise((_, reject) => attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason))) : 'hedge';
    },
    { hedging },
  );
  assert.equal(value, 'hedge');
  assert.deepEqual(copies, [1, 2]);
});

test('the client build keeps the consecutive breaker, the ratio budget with its floors and the run cap', async () => {
  const config = {
    breaker: { trip: { kind: 'consecutive_failures', threshold: 3 }, cooldownMs: 1_000 },
    budget: {
      ratio: { ratio: 0.2, minRetriesPerSec: 1, minConcurrentRetries: 2 },
      runCap: { maxRetries: 4 },
      // Turning a left-out budget off is fine.
      tokenBucket: null,
      grpc: null,
    },
  };
  const policy = new client.Policy(config);
  let attempts = 0;
  const result = await client.retry(
    async () => {
      attempts += 1;
      if (attempts < 3) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
      return 'ok';
    },
    { policy, sleep: async () => {} },
  );
  assert.equal(result, 'ok');
  assert.equal(attempts, 3);
  assert.doesNotThrow(() => new full.Policy(config));
});

test('the client build leaves out "did you mean"; the error keeps its code, field and accepted keys', () => {
  const refused = (module) => {
    try {
      new module.Policy({ maxAtempts: 3 });
    } catch (error) {
      return error;
    }
    return assert.fail('accepted an unknown key');
  };
  const small = refused(client);
  assert.equal(small.code, 'unknown_field');
  assert.equal(small.field, 'maxAtempts');
  assert.match(small.message, /unknown field `maxAtempts` \(expected one of .*`maxAttempts`/);
  assert.doesNotMatch(small.message, /did you mean/);
  const whole = refused(full);
  assert.equal(whole.code, 'unknown_field');
  assert.match(whole.message, /did you mean `maxAttempts`\?/);
});

// The client build keeps the keys derived from content and the agent Run:
// an agent's `{runId}:{step}:{hash}` is the same key in a page as in Node and
// Python. The shared vectors that pin them run here through the browser
// entry, as they run through the Node entry in vectors.test.js.
const CLIENT_VECTORS = {
  canonical_json: runCanonicalJson,
  es6_number: runEs6Numbers,
  idempotency_key: runIdempotencyKeys,
  agent_run: runAgentRuns,
};

for (const { name, doc } of vectorFiles().filter(({ doc }) => doc.kind in CLIENT_VECTORS)) {
  test(`the client build passes ${name} (${doc.kind}) as the full module does`, async () => {
    const count = await CLIENT_VECTORS[doc.kind](name, doc, client);
    assert.ok(count > 0, `${name}: nothing ran`);
  });
}

test('the client build covers every key and agent-run vector file', () => {
  const kinds = new Set(vectorFiles().map(({ doc }) => doc.kind));
  for (const kind of Object.keys(CLIENT_VECTORS)) assert.ok(kinds.has(kind), `no ${kind} vector file`);
});
