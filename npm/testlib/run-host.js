// Runs tests/vectors/host.json through the package: the core's host policy
// as the binding exposes it, and the runtime's translation of an error
// carrying each code (core/tests/vectors_host.rs and the Python suite run
// the same file).
import assert from 'node:assert/strict';
import { outcomeOfError, Policy } from '../dist/node.js';
import { hostPolicy, isFailureStatus, validatesStatus, wantsExcerpt } from '../dist/core.js';
import { planOf } from '../dist/http-plan.js';

export function runHost(name, doc) {
  let count = 0;
  const host = hostPolicy();
  assert.deepEqual(host.errorCodes, doc.error_codes, `${name}: error codes`);
  for (const [code, kind] of Object.entries(doc.error_codes)) {
    // As Node reports it directly, and wrapped the way undici's fetch does.
    const direct = outcomeOfError(Object.assign(new Error('x'), { code }));
    const wrapped = outcomeOfError(new TypeError('fetch failed', { cause: { code } }));
    for (const outcome of [direct, wrapped]) {
      assert.deepEqual([outcome.kind, outcome.network], ['network', kind], `${name}: ${code}`);
    }
    count += 1;
  }
  assert.equal(host.unknownErrorClass, doc.unknown_error_class);
  const unknown = outcomeOfError(new Error('a bug'));
  assert.deepEqual([unknown.kind, unknown.class], ['error', doc.unknown_error_class], `${name}: unknown error`);
  assert.equal(host.keyHeader, doc.key_header);
  assert.equal(host.keyForm, doc.key_form);
  assert.equal(host.defaultOperation, doc.default_operation);
  for (const [table, rule] of [
    ['excerpt', wantsExcerpt],
    ['validate', validatesStatus],
  ]) {
    for (const status of doc[table].yes) assert.equal(rule(status), true, `${name}: ${table} ${status}`);
    for (const status of doc[table].no) assert.equal(rule(status), false, `${name}: ${table} ${status}`);
    count += 1;
  }
  for (const { name: plan, request: r, expect } of doc.http_plans) {
    const got = planOf(r.method, r.host, r.path, r.caller_key ?? undefined, r.server_deduplicates, r.auto_keys);
    assert.deepEqual(
      {
        operation: got.operation,
        scope: got.scope,
        safe_to_repeat: got.safeToRepeat,
        auto_key: got.autoKey,
        trust_key: got.trustKey,
      },
      expect,
      `${name}: ${plan}`,
    );
    count += 1;
  }
  assert.deepEqual(host.fetchRefusals, doc.fetch_refusals, `${name}: fetch refusals`);
  for (const cause of doc.fetch_refusals) {
    // As undici reports a request it refuses: fetch failed, with the cause's message.
    const outcome = outcomeOfError(new TypeError('fetch failed', { cause: new Error(cause) }));
    assert.deepEqual([outcome.kind, outcome.network], ['network', 'refused_locally'], `${name}: ${cause}`);
    count += 1;
  }
  for (const status of doc.failure_status.yes) {
    assert.equal(isFailureStatus(status), true, `${name}: failure status ${status}`);
    const outcome = outcomeOfError(Object.assign(new Error('x'), { status, headers: {} }));
    assert.deepEqual([outcome.kind, outcome.status], ['status', status], `${name}: an error carrying ${status}`);
  }
  for (const status of doc.failure_status.no) {
    assert.equal(isFailureStatus(status), false, `${name}: failure status ${status}`);
    const outcome = outcomeOfError(Object.assign(new Error('x'), { status, headers: {} }));
    assert.deepEqual([outcome.kind, outcome.class], ['error', doc.unknown_error_class], `${name}: an error carrying ${status} is the caller's own`);
  }
  count += 1;
  assert.deepEqual(
    { keys: host.httpDefaults.keys, server_deduplicates: host.httpDefaults.serverDeduplicates },
    doc.http_defaults,
    `${name}: http defaults`,
  );
  for (const { name: label, config, yes, no } of doc.reads_hints) {
    const policy = new Policy(config);
    for (const status of yes) assert.equal(policy.readsHints(status), true, `${name}: ${label}: ${status}`);
    for (const status of no) assert.equal(policy.readsHints(status), false, `${name}: ${label}: ${status}`);
    policy.free();
    count += 1;
  }
  return count;
}
