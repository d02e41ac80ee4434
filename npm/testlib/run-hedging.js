// hedging.json through the package's module, as core/tests/vectors_hedging.rs
// runs it: hedged calls in virtual time through CorePolicy's hedge methods
// (the ones the hedged loop of retry() and createFetch() drives), and the
// hedging settings' config errors as a JavaScript caller sees them.
import assert from 'node:assert/strict';
import { ConfigError, Policy } from '../dist/node.js';
import { hedgingConfig, networkKinds } from '../dist/wasm/stoic_wasm.js';
import { camel, checkFields, snake } from './vectors.js';

// The module's numbers (npm/src/abi.generated.ts, a const enum tsc inlines).
const COPY = { success: 0, status: 1, network: 2 };
const ABSENT = -1;
const STEP_KINDS = ['send', 'wait', 'done', 'give_up'];

/** A step's code, never one of the misuse codes at the top of the range. */
function checked(code) {
  assert.ok(code < 0xffff_fffb, `the module answered misuse code ${code}`);
  return code;
}

/** The step the core answered last, in the vectors' field names. */
function wire(policy, handle) {
  const step = snake(policy.core.hedgeStep(handle));
  // Instants are written as the JavaScript types write them (`retryAt`,
  // ms on the policy's clock); the vectors suffix them with _ms.
  for (const name of ['until', 'next_timeout', 'retry_at']) {
    if (name in step) step[`${name}_ms`] = step[name];
  }
  if (step.kind === 'send') {
    // A copy's plan is an attempt plan: its attempt is the copy's number.
    step.copy = step.attempt;
    step.max_copies = step.max_attempts;
  }
  return step;
}

function startCall(state, step, here) {
  const { policy } = state;
  const spec = step.spec ?? {};
  const hedging = step.hedging ?? state.hedging;
  const text = policy.text.write(spec.operation ?? 'op', spec.scope ?? '', spec.idempotency_key);
  let handle;
  try {
    handle = policy.core.startHedged(step.t_ms, text.a, text.b, spec.idempotent, text.c, spec.method, camel(hedging));
  } catch (error) {
    assert.ok(step.expect_error, `${here}: refused: ${error}`);
    assert.ok(error instanceof ConfigError, `${here}: ${error} is a ConfigError`);
    assert.deepEqual({ code: error.code, field: error.field }, step.expect_error, `${here}: ${error}`);
    return;
  }
  assert.equal(step.expect_error, undefined, `${here}: started`);
  state.calls.set(step.name, handle);
}

function outcomeStep(state, step, handle) {
  const { policy } = state;
  const core = policy.core;
  const o = step.outcome;
  if (o.status !== undefined) {
    const headers = Object.entries(o.headers ?? {}).flat().join('\n');
    const text = policy.text.write(headers);
    return core.hedgeOutcome(handle, step.copy, step.t_ms, COPY.status, o.status, -1, text.a, ABSENT);
  }
  if (o.network !== undefined) {
    const index = networkKinds().indexOf(o.network);
    assert.ok(index >= 0, `unknown network kind ${o.network}`);
    return core.hedgeOutcome(handle, step.copy, step.t_ms, COPY.network, index, -1, ABSENT, ABSENT);
  }
  assert.equal(o.success, true, `unknown outcome ${JSON.stringify(o)}`);
  return core.hedgeOutcome(handle, step.copy, step.t_ms, COPY.success, 0, -1, ABSENT, ABSENT);
}

function checkStep(here, actual, expect) {
  const { observation_contains: contains, ...fields } = expect ?? {};
  checkFields(here, actual, fields);
  if (contains !== undefined) {
    assert.ok(String(actual.observation).includes(contains), `${here}: ${actual.observation} lacks ${contains}`);
  }
}

/** One step; returns the kind of the core's answer, if it answered. */
function runStep(state, step, here) {
  state.steps += 1;
  const { policy } = state;
  const core = policy.core;
  let kind;
  if (step.op === 'start') {
    startCall(state, step, here);
  } else if (['poll', 'outcome', 'cancel'].includes(step.op)) {
    const handle = state.calls.get(step.name);
    assert.notEqual(handle, undefined, `${here}: no call ${step.name}`);
    let code;
    if (step.op === 'poll') code = core.hedgePoll(handle, step.t_ms);
    else if (step.op === 'cancel') code = core.hedgeCancel(handle, step.t_ms);
    else code = outcomeStep(state, step, handle);
    const actual = wire(policy, handle);
    assert.equal(STEP_KINDS[checked(code)], actual.kind, `${here}: the step's code and object agree`);
    checkStep(here, actual, step.expect);
    kind = actual.kind;
  } else if (step.op === 'drain') {
    policy.drain();
  } else if (step.op === 'scope') {
    const scope = step.scope ?? '';
    const delay = core.hedgeDelayMs(scope, camel(state.hedging));
    const ratio = policy.budgetStatus(scope, step.t_ms)?.ratio;
    const actual = {
      latencySamples: core.latencySamples(scope),
      hedgeDelayMs: delay < 0 ? null : delay,
      ratio: ratio == null ? null : { requests: ratio.requests, retries: ratio.retries },
      breaker: policy.breakerState(scope),
    };
    checkFields(here, actual, step.expect);
  } else {
    assert.fail(`${here}: unknown op ${step.op}`);
  }
  // Every step drains the events; a step that lists the breaker's and the
  // budget's checks them.
  const events = [...policy.events()].map((e) => e.kind).filter((k) => k === 'breaker_transition' || k === 'budget_exhausted');
  if (step.events !== undefined) assert.deepEqual(events, step.events, `${here}: events`);
  return kind;
}

function runSteps(state, steps, at, round) {
  const kinds = [];
  steps.forEach((step, index) => {
    const here = `${at}[${index}]`;
    if (step.repeat !== undefined) {
      const all = [];
      for (let i = 0; i < step.repeat; i++) all.push(...runSteps(state, step.steps, `${here}#${i}`, i));
      if (step.expect_kinds !== undefined) {
        const tally = {};
        for (const kind of all) tally[kind] = (tally[kind] ?? 0) + 1;
        assert.deepEqual(tally, step.expect_kinds, `${here}: kinds of the repeated steps`);
      }
      kinds.push(...all);
      return;
    }
    const name = (step.call ?? '').replaceAll('{i}', round === undefined ? '' : String(round));
    const kind = runStep(state, { ...step, name }, here);
    if (kind !== undefined) kinds.push(kind);
  });
  return kinds;
}

export function runHedging(name, doc) {
  let total = 0;
  for (const scenario of doc.scenarios) {
    const policy = new Policy(camel(scenario.config));
    const state = { policy, hedging: scenario.hedging ?? {}, calls: new Map(), steps: 0 };
    try {
      runSteps(state, scenario.steps, `${name}: ${scenario.id}`);
    } finally {
      for (const handle of state.calls.values()) policy.core.hedgeClose(handle);
      policy.free();
    }
    total += state.steps;
  }
  assert.ok(total >= 100, `only ${total} steps ran`);

  // The settings' errors as a JavaScript caller gets them: the same code,
  // the field in the JavaScript spelling.
  assert.ok(doc.config_errors.length >= 8);
  for (const item of doc.config_errors) {
    let error;
    try {
      hedgingConfig(item.hedging);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof ConfigError, `${JSON.stringify(item.hedging)}: refused, got ${error}`);
    assert.deepEqual(
      { code: error.code, field: error.field },
      { code: item.code, field: item.field_js ?? item.field },
      `${JSON.stringify(item.hedging)}: ${error}`,
    );
    total += 1;
  }
  // What the file writes as valid reads back as written, every default filled in.
  for (const item of doc.valid) {
    assert.deepEqual(snake(hedgingConfig(camel(item.hedging))), item.resolved, JSON.stringify(item.hedging));
    total += 1;
  }
  return total;
}
