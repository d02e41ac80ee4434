// Every `kind: "policy"` vector file, and config_errors.json's Rust-dialect
// cases, through the component's `policy` interface in Node (jco).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { big, engine, failure, jsonText, load, plain, snake, vectorDocs } from './engine.js';

const { Policy } = engine.policy;
const ENUM_FIELDS = ['class', 'from', 'to', 'state'];

function normal(value) {
  const out = { ...value };
  for (const key of ENUM_FIELDS) if (typeof out[key] === 'string') out[key] = snake(out[key]);
  if (out.record && typeof out.record === 'object') {
    const { line, text, ...log } = out.record;
    assert.deepEqual(JSON.parse(line), log);
    assert.ok(text);
    out.record = log;
  }
  if (Array.isArray(out.attributes)) {
    // A measured point's or decision's OpenTelemetry key-values.
    out.attributes = Object.fromEntries(out.attributes.map(([name, value]) => [name, value.value]));
  }
  return out;
}

function check(context, actual, step) {
  const expect = step.expect;
  if (expect && !Array.isArray(expect) && typeof expect === 'object') {
    for (const [key, want] of Object.entries(expect)) {
      assert.ok(key in actual, `${context}: no ${key} in ${JSON.stringify(actual)}`);
      assert.deepEqual(actual[key], want, `${context}: ${key} of ${JSON.stringify(actual)}`);
    }
  }
  for (const part of step.observation_contains ?? []) {
    assert.ok((actual.observation ?? '').includes(part), `${context}: ${JSON.stringify(actual)}`);
  }
}

function outcome(o) {
  let kind;
  if ('status' in o) kind = { tag: 'status', val: o.status };
  else if ('network' in o) kind = { tag: 'network', val: o.network.replaceAll('_', '-') };
  else if ('rejected' in o) kind = { tag: 'rejected', val: o.rejected };
  else if ('raised' in o) kind = { tag: 'raised', val: o.raised };
  else {
    assert.equal(o.success, true);
    kind = { tag: 'success' };
  }
  return { kind, headers: o.headers ?? [], wallNowUnixMs: big(o.wall_now_unix_ms), detail: o.detail ?? undefined };
}

function spec(s) {
  return {
    operation: s.operation ?? '',
    scope: s.scope ?? '',
    idempotent: s.idempotent ?? undefined,
    method: s.method ?? undefined,
    idempotencyKey: s.idempotency_key ?? undefined,
    maxAttempts: s.max_attempts ?? undefined,
    backoffJson: s.backoff === undefined ? undefined : JSON.stringify(s.backoff),
  };
}

function runScenario(scenario) {
  const config = JSON.stringify(scenario.config);
  let policy = Policy.create(config);
  const calls = new Map();
  const events = () => {
    const found = [];
    for (let e = policy.pollEvent(); e !== undefined; e = policy.pollEvent()) found.push(normal(plain(e)));
    return found;
  };
  scenario.steps.forEach((step, i) => {
    const context = `${scenario.id} step ${i}`;
    const now = big(step.t_ms ?? 0);
    const name = step.call ?? '';
    switch (step.op) {
      case 'start':
        calls.set(name, policy.start(now, spec(step.spec)));
        break;
      case 'before_attempt':
        check(context, normal(plain(policy.beforeAttempt(now, calls.get(name)))), step);
        break;
      case 'outcome':
        if (step.expect_error !== undefined) {
          assert.equal(failure(() => policy.onOutcome(now, calls.get(name), outcome(step.outcome))).code, step.expect_error, context);
          break;
        }
        check(context, normal(plain(policy.onOutcome(now, calls.get(name), outcome(step.outcome)))), step);
        break;
      case 'cancel':
        check(context, normal({ kind: 'give_up', ...plain(policy.cancel(now, calls.get(name))) }), step);
        break;
      case 'drain':
        policy.drain();
        break;
      case 'set_measuring':
        policy.setMeasuring(step.on);
        break;
      case 'set_wall_clock':
        policy.setWallClock(now, big(step.wall_unix_ms));
        break;
      case 'events': {
        const wanted = step.filter ?? [];
        const got = events().filter((e) => wanted.length === 0 || wanted.includes(e.kind));
        assert.equal(got.length, step.expect.length, `${context}: ${JSON.stringify(got)}`);
        got.forEach((event, n) => check(context, event, { expect: step.expect[n] }));
        break;
      }
      case 'breaker_state': {
        const state = policy.breakerState(step.scope ?? '');
        check(context, { state: state === undefined ? null : snake(state) }, step);
        break;
      }
      case 'metrics': {
        const metrics = Object.fromEntries(policy.metricsJson().map(([scope, m]) => [scope, JSON.parse(m)]));
        check(context, metrics[step.scope ?? 'default'], step);
        break;
      }
      case 'budget_status':
        check(context, JSON.parse(policy.budgetStatusJson(now, step.scope ?? '')), step);
        break;
      case 'next_timeout':
        check(context, { at: plain(policy.nextTimeout()) }, step);
        break;
      case 'snapshot_restore': {
        for (const call of calls.values()) assert.ok(call.finished(), context);
        const text = policy.snapshot();
        policy = Policy.create(config);
        assert.deepEqual(plain(policy.restore(text)).reset, [], context);
        calls.clear();
        break;
      }
      default:
        assert.fail(`${context}: unknown op ${step.op}`);
    }
  });
}

const scenarios = vectorDocs()
  .filter(({ doc }) => doc.kind === 'policy')
  .flatMap(({ name, doc }) => doc.scenarios.map((s) => ({ name, s })));

test('enough policy scenarios', () => assert.ok(scenarios.length >= 10));

for (const { name, s } of scenarios) {
  test(`component policy: ${name}:${s.id}`, () => runScenario(s));
}

test('component config errors name the field in the core spelling', () => {
  const cases = load('config_errors.json', 'config_errors').cases.filter((c) => 'rust' in c.config);
  assert.ok(cases.length >= 30);
  for (const c of cases) {
    const error = failure(() => Policy.create(jsonText(c.config.rust)));
    assert.deepEqual([error.code, error.field], [c.code, c.field.rust], c.name);
    if (c.problems) assert.deepEqual(error.problems.map((p) => [p.code, p.field]), c.problems.rust, c.name);
  }
});
