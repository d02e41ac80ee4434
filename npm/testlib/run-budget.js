// budget.json through RetryBudget, as core/tests/vectors_budget.rs runs it.
import assert from 'node:assert/strict';
import { ConfigError, Policy, RetryBudget } from '../dist/node.js';
import { camel, expectError, snake } from './vectors.js';

const COSTS = { retry: 'normal', retry_timeout: 'timeout', retry_throttling: 'throttling' };

function runSteps(state, steps, at) {
  steps.forEach((step, index) => {
    const here = `${at}[${index}]`;
    if (step.repeat !== undefined) {
      for (let round = 0; round < step.repeat; round++) runSteps(state, step.steps, `${here}#${round}`);
      return;
    }
    state.steps += 1;
    const { budget, tickets, ended } = state;
    const now = step.t_ms;
    const call = step.call ?? '';
    let answer;
    const cost = COSTS[step.op];
    if (cost !== undefined) {
      answer = budget.tryRetry(now, cost);
      if (answer.allowed) tickets.set(call, answer.ticket);
    } else if (step.op === 'first_attempt') {
      tickets.delete(call);
      budget.onFirstAttempt(now);
    } else if (step.op === 'failure') {
      budget.onAttemptFailure(now);
    } else if (step.op === 'success') {
      budget.onAttemptSuccess(now, null);
    } else if (step.op === 'success_after_retry') {
      const ticket = tickets.get(call);
      assert.ok(ticket, `${here}: success_after_retry without a ticket`);
      tickets.delete(call);
      budget.onAttemptSuccess(now, ticket);
      ended.set(call, ticket);
    } else if (step.op === 'success_after_retry_again') {
      const ticket = ended.get(call);
      assert.ok(ticket, `${here}: nothing ended to hand back again`);
      budget.onAttemptSuccess(now, ticket);
    } else if (step.op === 'reconfigure') {
      budget.reconfigure(camel(step.config));
    } else {
      throw new Error(`${here}: unknown op ${step.op}`);
    }
    const events = [];
    for (let e = budget.pollEvent(); e !== undefined; e = budget.pollEvent()) events.push(snake(e));
    if (step.expect === undefined) return;
    const status = snake(budget.status(now));
    for (const [key, want] of Object.entries(step.expect)) {
      const got = {
        allowed: () => answer.allowed,
        refused_by: () => (answer.allowed ? null : answer.refusedBy),
        cost: () => (answer.allowed ? answer.ticket.tokenCost : null),
        tokens: () => status.token_bucket?.tokens ?? null,
        grpc_milli_tokens: () => status.grpc?.milli_tokens ?? null,
        run_cap_used: () => status.run_cap?.used ?? null,
        ratio: () => status.ratio,
        events: () => events,
      }[key];
      assert.ok(got, `${here}: unknown expect key ${key}`);
      assert.deepEqual(got(), want, `${here}: ${key}`);
    }
  });
}

export function runBudget(name, doc) {
  let steps = 0;
  for (const scenario of doc.scenarios) {
    const state = { budget: new RetryBudget(camel(scenario.config)), tickets: new Map(), ended: new Map(), steps: 0 };
    runSteps(state, scenario.steps, scenario.id);
    assert.ok(state.steps > 0, `${scenario.id}: no steps`);
    steps += state.steps;
  }
  assert.ok(steps > 1000, `only ${steps} steps ran`);
  for (const c of doc.config_errors) {
    // Checked as a policy's config would be: fields start at `budget`.
    const context = `${name} ${JSON.stringify(c)}`;
    const error = expectError(context, () => new Policy({ seed: 1, budget: camel(c.config) }), c.code, c.field);
    const alone = expectError(context, () => new RetryBudget(camel(c.config)), c.code);
    assert.equal(`budget.${alone.field}`, error.field, `${context}: the standalone budget's field`);
    assert.ok(error instanceof ConfigError, error.name);
  }
  return doc.scenarios.length + doc.config_errors.length;
}
