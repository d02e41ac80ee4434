// Runs tests/vectors/fleet_exchange.json through the package: a policy's
// fleet exports and how it takes views back (core/tests/vectors_fleet.rs and
// the Python suite run the same file). The binding hands the core's text
// through; this compares it parsed.
import assert from 'node:assert/strict';
import { Policy } from '../dist/node.js';

/** One call whose attempts get `statuses` in turn: the attempts made. */
function call(policy, now, scope, statuses) {
  const c = policy.start({ operation: scope, idempotent: true }, now);
  let [t, attempts] = [now, 0];
  for (const status of statuses) {
    if (c.beforeAttempt(t).kind !== 'proceed') break;
    attempts += 1;
    const decision = c.onOutcome({ kind: 'status', status }, t + 1);
    if (decision.kind !== 'retry') break;
    t += 1 + decision.delayMs;
  }
  c.close();
  return attempts;
}

export function runFleet(name, doc) {
  let count = 0;
  for (const scenario of doc.scenarios) {
    const policy = new Policy(scenario.config);
    const core = policy.core;
    scenario.steps.forEach((step, index) => {
      const here = `${name}: ${scenario.name}[${index}]`;
      switch (step.op) {
        case 'call':
          assert.equal(call(policy, step.now, step.scope, step.statuses), step.attempts, here);
          break;
        case 'export': {
          const [seq, scopes] = core.fleetExport(step.now, step.store_now_ms);
          assert.equal(seq, step.seq, `${here}: seq`);
          assert.deepEqual(Object.fromEntries(scopes.map(([scope, text]) => [scope, JSON.parse(text)])), step.scopes, here);
          break;
        }
        case 'apply':
          core.fleetApply(step.now, step.replies.map((reply) => JSON.stringify(reply)));
          break;
        case 'budget_status': {
          const { ratio } = policy.budgetStatus(step.scope, step.now);
          assert.deepEqual([ratio.requests, ratio.retries], [step.requests, step.retries], here);
          break;
        }
        case 'breaker_state':
          assert.equal(policy.breakerState(step.scope), step.state, here);
          break;
        default:
          assert.fail(`${here}: unknown op ${step.op}`);
      }
      count += 1;
    });
  }
  return count;
}
