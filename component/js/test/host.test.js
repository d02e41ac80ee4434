// host.json through the component's `host` interface; and the checks that
// every vector file has a runner here and that the component imports nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMPONENT_JS, engine, load, plain, vectorDocs } from './engine.js';

const RUNNERS = {
  policy: 'policy.test.js',
  config_errors: 'policy.test.js',
  canonical_json: 'keys_hints.test.js',
  es6_number: 'keys_hints.test.js',
  idempotency_key: 'keys_hints.test.js',
  retry_after: 'keys_hints.test.js',
  server_hint: 'keys_hints.test.js',
  backoff: 'parts.test.js',
  breaker: 'parts.test.js',
  budget: 'parts.test.js',
  records: 'parts.test.js',
  server_idempotency: 'parts.test.js',
  host: 'host.test.js',
  fleet_exchange: 'fleet.test.js',
  hedging: 'hedging.test.js',
};

test('every vector file has a component runner', () => {
  const docs = vectorDocs();
  assert.ok(docs.length >= 11);
  for (const { name, doc } of docs) {
    // A file for the bindings alone (text_boundary: text a WIT string cannot hold) says so.
    if (doc.applies_to !== undefined && !doc.applies_to.includes('component')) continue;
    assert.ok(RUNNERS[doc.kind], `${name}: no runner for ${doc.kind}`);
  }
});

test('the transpiled component imports nothing', () => {
  // jco writes an `import` for every host function a component needs
  // (WASI shims, host interfaces); this one needs none.
  const source = readFileSync(COMPONENT_JS, 'utf8');
  assert.deepEqual(source.match(/^import .*$/gm) ?? [], []);
  const wit = readFileSync(path.join(path.dirname(COMPONENT_JS), '..', 'stoic.wit'), 'utf8');
  assert.match(wit, /world engine/);
});

test('component host rules', () => {
  const doc = load('host.json', 'host');
  const facts = plain(engine.host.hostPolicy());
  assert.deepEqual(Object.fromEntries(facts.error_codes), doc.error_codes);
  for (const key of ['unknown_error_class', 'key_header', 'key_form', 'default_operation']) {
    assert.equal(facts[key], doc[key], key);
  }
  for (const [table, rule] of [
    ['excerpt', engine.host.wantsExcerpt],
    ['validate', engine.host.validatesStatus],
  ]) {
    for (const status of doc[table].yes) assert.equal(rule(status), true, `${table} ${status}`);
    for (const status of doc[table].no) assert.equal(rule(status), false, `${table} ${status}`);
  }
  for (const { name, request: r, expect } of doc.http_plans) {
    const got = engine.host.httpPlan({
      method: r.method,
      host: r.host,
      path: r.path,
      callerKey: r.caller_key ?? undefined,
      serverDeduplicates: r.server_deduplicates,
      autoKeys: r.auto_keys,
    });
    assert.deepEqual(plain(got), expect, name);
  }
});

test('component: the statuses whose headers a policy reads', () => {
  const doc = load('host.json', 'host');
  for (const { name, config, yes, no } of doc.reads_hints) {
    const policy = engine.policy.Policy.create(JSON.stringify({ ...config, seed: 1 }));
    for (const status of yes) assert.equal(policy.readsHints(status), true, `${name}: ${status}`);
    for (const status of no) assert.equal(policy.readsHints(status), false, `${name}: ${status}`);
  }
});

test('the Node example runs', () => {
  // component/examples/retry_loop.mjs, as its README section shows it.
  const root = path.resolve(path.dirname(COMPONENT_JS), '../../..');
  const out = execFileSync(process.execPath, [path.join(root, 'component/examples/retry_loop.mjs'), COMPONENT_JS], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const lines = out.trim().split('\n');
  assert.equal(lines.at(-1), 'done after 3 attempts', out);
  assert.equal(lines.filter((l) => l.includes('503, retry in')).length, 2, out);
});
