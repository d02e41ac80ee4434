// hedging.json through the component's hedged calls in Node (jco):
// `policy.startHedged`, `hedgePoll`, `hedgeOutcome`, `hedgeCancel`, the
// `hedged-call` resource, and `hedgingSettings` for the settings' errors
// and defaults, as core/tests/vectors_hedging.rs runs the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { big, engine, failure, load, plain, snake } from './engine.js';

const { Policy, hedgingSettings } = engine.policy;
const DOC = load('hedging.json', 'hedging');

/** A `copies` bit set as the vectors write it: the copies, lowest first. */
function copies(bits) {
  assert.ok(bits >= 0 && bits < 1 << 5, `copies beyond the fifth: ${bits}`);
  return [1, 2, 3, 4, 5].filter((n) => bits & (1 << (n - 1)));
}

/** A plain `hedge-step` in the vectors' spelling: the done or give-up
 * record's fields beside the step's, `cancel` as a list. */
function wire(step) {
  const { done, give_up: giveUp, ...out } = step;
  Object.assign(out, done ?? {}, giveUp ?? {});
  if ('cancel' in out) out.cancel = copies(out.cancel);
  if ('retry_at' in out) {
    out.retry_at_ms = out.retry_at;
    delete out.retry_at;
  }
  if (typeof out.class === 'string') out.class = snake(out.class);
  return out;
}

function check(here, actual, expect) {
  for (const [key, want] of Object.entries(expect ?? {})) {
    if (key === 'observation_contains') {
      assert.ok((actual.observation ?? '').includes(want), `${here}: ${JSON.stringify(actual)}`);
    } else {
      assert.ok(key in actual, `${here}: no ${key} in ${JSON.stringify(actual)}`);
      assert.deepEqual(actual[key], want, `${here}: ${key} of ${JSON.stringify(actual)}`);
    }
  }
}

function hedgedSpec(s) {
  return {
    operation: s.operation ?? 'op',
    scope: s.scope ?? '',
    idempotent: s.idempotent ?? undefined,
    method: s.method ?? undefined,
    idempotencyKey: s.idempotency_key ?? undefined,
  };
}

/** A vector's outcome (`success`, `status` with headers as an object, or
 * `network`) as WIT's `outcome`. */
function outcome(o) {
  let kind;
  if ('status' in o) kind = { tag: 'status', val: o.status };
  else if ('network' in o) kind = { tag: 'network', val: o.network.replaceAll('_', '-') };
  else {
    assert.equal(o.success, true, `unknown outcome ${JSON.stringify(o)}`);
    kind = { tag: 'success' };
  }
  return { kind, headers: Object.entries(o.headers ?? {}), wallNowUnixMs: undefined, detail: undefined };
}

class Runner {
  constructor(scenario) {
    this.policy = Policy.create(JSON.stringify(scenario.config));
    this.hedging = JSON.stringify(scenario.hedging ?? {});
    this.calls = new Map();
    this.stepsRun = 0;
  }

  /** Runs `steps`; the kind of each answer, for a repeat block's tally. */
  run(steps, at, round) {
    const kinds = [];
    steps.forEach((step, index) => {
      const here = `${at}[${index}]`;
      if (step.repeat !== undefined) {
        const inner = [];
        for (let i = 0; i < step.repeat; i++) inner.push(...this.run(step.steps, `${here}#${i}`, i));
        if (step.expect_kinds !== undefined) {
          const tally = {};
          for (const kind of inner) tally[kind] = (tally[kind] ?? 0) + 1;
          assert.deepEqual(tally, step.expect_kinds, `${here}: kinds`);
        }
        kinds.push(...inner);
      } else {
        const kind = this.step(step, here, round);
        if (kind !== undefined) kinds.push(kind);
      }
    });
    return kinds;
  }

  step(step, here, round) {
    this.stepsRun += 1;
    const { policy } = this;
    const now = big(step.t_ms ?? 0);
    const name = String(step.call ?? '').replace('{i}', round === undefined ? '' : String(round));
    let kind;
    switch (step.op) {
      case 'start': {
        const spec = hedgedSpec(step.spec);
        const hedging = step.hedging === undefined ? this.hedging : JSON.stringify(step.hedging);
        if (step.expect_error !== undefined) {
          const error = failure(() => policy.startHedged(now, spec, hedging));
          assert.deepEqual({ code: error.code, field: error.field }, step.expect_error, here);
        } else {
          this.calls.set(name, policy.startHedged(now, spec, hedging));
        }
        break;
      }
      case 'poll':
      case 'outcome':
      case 'cancel': {
        const call = this.calls.get(name);
        assert.ok(call, `${here}: no call ${name}`);
        let got;
        if (step.op === 'poll') got = policy.hedgePoll(now, call);
        else if (step.op === 'cancel') got = policy.hedgeCancel(now, call);
        else got = policy.hedgeOutcome(now, call, step.copy, outcome(step.outcome));
        const answer = wire(plain(got));
        answer.next_timeout_ms = plain(call.nextTimeout());
        answer.in_flight = copies(call.inFlight());
        assert.equal(call.finished(), ['done', 'give_up'].includes(answer.kind), here);
        check(here, answer, step.expect);
        kind = answer.kind;
        break;
      }
      case 'drain':
        policy.drain();
        break;
      case 'scope': {
        const scope = step.scope ?? '';
        const status = policy.budgetStatusJson(now, scope);
        const ratio = status === undefined ? undefined : JSON.parse(status).ratio;
        const state = policy.breakerState(scope);
        const actual = {
          latency_samples: policy.latencySamples(scope),
          hedge_delay_ms: plain(policy.hedgeDelayMs(scope, this.hedging)),
          ratio: ratio === undefined ? null : { requests: ratio.requests, retries: ratio.retries },
          breaker: state === undefined ? null : snake(state),
        };
        check(here, actual, step.expect);
        break;
      }
      default:
        assert.fail(`${here}: unknown op ${step.op}`);
    }
    // Every step drains the events; a step listing them checks the
    // breaker's and the budget's.
    const codes = [];
    for (let e = policy.pollEvent(); e !== undefined; e = policy.pollEvent()) {
      const { kind: eventKind } = plain(e);
      if (eventKind === 'breaker_transition' || eventKind === 'budget_exhausted') codes.push(eventKind);
    }
    if (step.events !== undefined) assert.deepEqual(codes, step.events, `${here}: events`);
    return kind;
  }
}

for (const scenario of DOC.scenarios) {
  test(`component hedging: ${scenario.id}`, () => {
    const runner = new Runner(scenario);
    runner.run(scenario.steps, scenario.id);
    assert.ok(runner.stepsRun > 0);
  });
}

test('component hedging: the scenarios run enough steps', () => {
  let total = 0;
  for (const scenario of DOC.scenarios) {
    const runner = new Runner(scenario);
    runner.run(scenario.steps, scenario.id);
    total += runner.stepsRun;
  }
  assert.ok(total >= 100, `${total} steps`);
});

test('component hedging settings: refused ones name the field in the core spelling', () => {
  assert.ok(DOC.config_errors.length > 0);
  const policy = Policy.create(JSON.stringify({ seed: 1 }));
  for (const c of DOC.config_errors) {
    const text = JSON.stringify(c.hedging);
    const settings = failure(() => hedgingSettings(text));
    assert.deepEqual([settings.code, settings.field], [c.code, c.field], text);
    const started = failure(() => policy.startHedged(0n, hedgedSpec({ method: 'GET' }), text));
    assert.deepEqual([started.code, started.field], [c.code, c.field], text);
  }
});

test('component hedging settings: valid ones read back with their defaults', () => {
  assert.ok(DOC.valid.length > 0);
  for (const c of DOC.valid) {
    assert.deepEqual(JSON.parse(hedgingSettings(JSON.stringify(c.hedging))), c.resolved, JSON.stringify(c.hedging));
  }
});

test("component hedging: another policy's hedged call is refused", () => {
  const one = Policy.create(JSON.stringify({ seed: 1 }));
  const two = Policy.create(JSON.stringify({ seed: 2 }));
  const call = one.startHedged(0n, hedgedSpec({ method: 'GET' }), '{}');
  assert.equal(failure(() => two.hedgePoll(0n, call)).code, 'misuse');
});
