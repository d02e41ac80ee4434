// `kind: "policy"` scenarios through Policy and Call, step by step, as
// core/tests/vectors_policy.rs runs them through the Rust API.
import assert from 'node:assert/strict';
import { Policy } from '../dist/node.js';
import { camel, checkFields, snake } from './vectors.js';

function check(context, actual, step) {
  checkFields(context, actual, step.expect);
  for (const part of step.observation_contains ?? []) {
    assert.ok(actual.observation.includes(part), `${context}: observation ${actual.observation} lacks ${part}`);
  }
}

function outcomeOf(o) {
  const detail = o.detail ?? undefined;
  if (o.status !== undefined) {
    return {
      kind: 'status',
      status: o.status,
      headers: o.headers ?? [],
      wallNowMs: o.wall_now_unix_ms ?? null,
      detail,
    };
  }
  if (o.network !== undefined) return { kind: 'network', network: o.network, detail };
  if (o.rejected !== undefined) return { kind: 'rejected', class: o.rejected, detail };
  if (o.raised !== undefined) return { kind: 'error', class: o.raised, detail };
  if (o.success === true) return { kind: 'success' };
  throw new Error(`unknown outcome ${JSON.stringify(o)}`);
}

// A log event's record also carries `line` (the core's one-line JSON) and
// `text`; the vectors hold the record itself, which `line` must spell.
function withoutLine(context, event) {
  if (event.kind !== 'log') return event;
  const { line, text, ...record } = event.record;
  assert.deepEqual(JSON.parse(line), snake(record), `${context}: line`);
  assert.equal(typeof text, 'string');
  return { ...event, record };
}

export function runScenario(file, scenario) {
  const config = camel(scenario.config);
  let policy = new Policy(config);
  let calls = new Map();
  scenario.steps.forEach((step, i) => {
    const context = `${file} ${scenario.id} step ${i}`;
    const now = step.t_ms ?? 0;
    const call = calls.get(step.call ?? '');
    switch (step.op) {
      case 'start': {
        const spec = step.spec ?? {};
        calls.set(
          step.call ?? '',
          policy.start(
            {
              operation: spec.operation ?? '',
              scope: spec.scope ?? '',
              method: spec.method,
              idempotent: spec.idempotent ?? (spec.method === undefined ? false : undefined),
              idempotencyKey: spec.idempotency_key,
              maxAttempts: spec.max_attempts,
              backoff: spec.backoff,
            },
            now,
          ),
        );
        break;
      }
      case 'before_attempt':
        check(context, call.beforeAttempt(now), step);
        break;
      case 'outcome':
        if (step.expect_error !== undefined) {
          assert.throws(() => call.onOutcome(outcomeOf(step.outcome), now), { code: step.expect_error }, context);
          break;
        }
        check(context, call.onOutcome(outcomeOf(step.outcome), now), step);
        break;
      case 'cancel':
        check(context, call.cancel(now), step);
        break;
      case 'drain':
        policy.drain();
        break;
      case 'set_measuring':
        policy.measuring = step.on;
        break;
      case 'set_wall_clock':
        policy.setWallClock(now, step.wall_unix_ms);
        break;
      case 'events': {
        const filter = step.filter ?? [];
        const events = [...policy.events()].filter((e) => filter.length === 0 || filter.includes(e.kind));
        assert.equal(events.length, step.expect.length, `${context}: events ${JSON.stringify(events)}`);
        events.forEach((event, n) => checkFields(context, withoutLine(context, event), step.expect[n]));
        break;
      }
      case 'breaker_state':
        check(context, { state: policy.breakerState(step.scope ?? '') }, step);
        break;
      case 'metrics':
        check(context, policy.metrics()[step.scope ?? 'default'], step);
        break;
      case 'budget_status':
        check(context, policy.budgetStatus(step.scope ?? '', now), step);
        break;
      case 'next_timeout':
        check(context, { at: policy.nextTimeout() }, step);
        break;
      case 'snapshot_restore': {
        // A new process: same config, state restored from the snapshot text.
        const text = policy.snapshot();
        for (const c of calls.values()) c.close();
        policy = new Policy(config);
        const report = policy.restore(text);
        assert.deepEqual(report.reset, [], `${context}: ${JSON.stringify(report)}`);
        calls = new Map();
        break;
      }
      default:
        throw new Error(`${context}: unknown op ${step.op}`);
    }
  });
  for (const c of calls.values()) c.close();
}

export function runPolicyFile(name, doc) {
  assert.ok(doc.scenarios.length > 0, `${name}: no scenarios`);
  for (const scenario of doc.scenarios) runScenario(name, scenario);
  return doc.scenarios.length;
}
