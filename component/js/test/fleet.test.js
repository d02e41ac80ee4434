// fleet_exchange.json through the component's `policy` interface in Node
// (jco): a policy's fleet exports and how it takes views back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { big, engine, load, plain, snake } from './engine.js';

const { Policy, fleetRedisScript } = engine.policy;
const doc = load('fleet_exchange.json', 'fleet_exchange');

/** One call whose attempts get `statuses` in turn: the attempts made. */
function call(policy, now, scope, statuses) {
  const handle = policy.start(big(now), { operation: scope, scope: '', idempotent: true });
  let [t, attempts] = [now, 0];
  for (const status of statuses) {
    if (plain(policy.beforeAttempt(big(t), handle)).kind !== 'proceed') break;
    attempts += 1;
    const outcome = { kind: { tag: 'status', val: status }, headers: [] };
    const decision = plain(policy.onOutcome(big(t + 1), handle, outcome));
    if (decision.kind !== 'retry') break;
    t += 1 + Number(decision.delay_ms);
  }
  return attempts;
}

test('fleet_exchange.json through the component', () => {
  let ran = 0;
  for (const scenario of doc.scenarios) {
    const policy = Policy.create(JSON.stringify(scenario.config));
    scenario.steps.forEach((step, index) => {
      const here = `${scenario.name}[${index}]`;
      const now = big(step.now ?? 0);
      switch (step.op) {
        case 'call':
          assert.equal(call(policy, step.now, step.scope, step.statuses), step.attempts, here);
          break;
        case 'export': {
          const [seq, scopes] = policy.fleetExport(now, big(step.store_now_ms));
          assert.equal(Number(seq), step.seq, here);
          assert.deepEqual(Object.fromEntries(scopes.map(([s, text]) => [s, JSON.parse(text)])), step.scopes, here);
          break;
        }
        case 'apply':
          policy.fleetApply(now, step.replies.map((reply) => JSON.stringify(reply)));
          break;
        case 'budget_status': {
          const { ratio } = JSON.parse(policy.budgetStatusJson(now, step.scope));
          assert.deepEqual([ratio.requests, ratio.retries], [step.requests, step.retries], here);
          break;
        }
        case 'breaker_state':
          assert.equal(snake(policy.breakerState(step.scope)), step.state, here);
          break;
        default:
          assert.fail(`${here}: unknown op ${step.op}`);
      }
      ran += 1;
    });
  }
  assert.ok(ran > 10);
});

test('the Redis script is the engine\'s', () => {
  const script = fleetRedisScript();
  assert.match(script, /HINCRBY/);
  assert.match(script, /cjson\.decode/);
});
