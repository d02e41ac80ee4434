// breaker_scenarios.json through CircuitBreaker, as
// core/tests/vectors_breaker.rs runs it: once plainly, once restoring the
// breaker from its snapshot before every step.
import assert from 'node:assert/strict';
import { CircuitBreaker } from '../dist/node.js';
import { camel, snake } from './vectors.js';

function run(scenario, restoreEveryStep) {
  let breaker = new CircuitBreaker(camel(scenario.config));
  const permits = new Map();
  scenario.steps.forEach((step, n) => {
    const context = `${scenario.id} step ${n} (restore ${restoreEveryStep})`;
    if (restoreEveryStep) breaker = CircuitBreaker.fromSnapshot(breaker.snapshot());
    const now = step.t_ms;
    const duration = step.duration_ms ?? 0;
    const named = () => {
      const permit = permits.get(step.permit);
      assert.ok(permit, `${context}: no permit`);
      return permit;
    };
    let seen = {};
    for (let r = 0; r < (step.repeat ?? 1); r++) {
      seen = {};
      switch (step.op) {
        case 'acquire':
        case 'call_success':
        case 'call_failure': {
          const admit = breaker.tryAcquire(now);
          seen.admitted = admit.admitted;
          if (admit.admitted) {
            if (step.permit !== undefined) permits.set(step.permit, admit.permit);
            if (step.op === 'call_success') seen.counted = breaker.onSuccess(now, admit.permit, duration);
            if (step.op === 'call_failure') seen.counted = breaker.onFailure(now, admit.permit, duration);
          } else {
            seen.rejection = { reason: admit.reason, retry_at_ms: admit.retryAt };
          }
          break;
        }
        case 'success':
          seen.counted = breaker.onSuccess(now, named(), duration);
          break;
        case 'failure':
          seen.counted = breaker.onFailure(now, named(), duration);
          break;
        case 'release':
          seen.counted = breaker.release(named());
          break;
        case 'observe':
          break;
        default:
          throw new Error(`${context}: unknown op ${step.op}`);
      }
    }
    const drained = [];
    for (let t = breaker.pollTransition(); t !== undefined; t = breaker.pollTransition()) {
      drained.push({ from: t.from, to: t.to, at_ms: t.at, reason: t.reason });
    }
    for (const [key, want] of Object.entries(step.expect ?? {})) {
      const state = snake(breaker.state());
      let got;
      switch (key) {
        case 'admitted':
        case 'counted':
          got = seen[key];
          break;
        case 'reject_reason':
          got = seen.rejection?.reason;
          break;
        case 'retry_at_ms':
          got = seen.rejection?.retry_at_ms;
          break;
        case 'state':
          assert.equal(breaker.stateAt(now), state.kind, `${context}: state_at and state agree`);
          got = breaker.stateAt(now);
          break;
        case 'consecutive_failures':
        case 'probes_in_flight':
        case 'successes':
          got = state[key];
          break;
        case 'window':
          got = breaker.windowCounts(now);
          break;
        case 'next_timeout_ms':
          got = breaker.nextTimeout();
          break;
        case 'transitions':
          got = drained;
          break;
        default:
          throw new Error(`${context}: unknown expect key ${key}`);
      }
      assert.deepEqual(got, want, `${context}: ${key}`);
    }
  });
}

export function runBreaker(name, doc) {
  for (const scenario of doc.scenarios) {
    run(scenario, false);
    run(scenario, true);
  }
  return doc.scenarios.length;
}
