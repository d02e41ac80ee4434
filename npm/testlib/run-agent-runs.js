// agent_runs.json through Run: each tool throws or returns the scripted
// outcome of its attempt, `classify` reads it, and the ToolResult must say
// what the file says (the Rust and Python suites run the same file).
import assert from 'node:assert/strict';
import * as nodeEntry from '../dist/node.js';
import { isEventStream } from '../dist/wasm/stoic_wasm.js';

class Scripted extends Error {
  constructor(outcome) {
    super(outcome.kind);
    this.outcome = outcome;
  }
}

function toolOf(attempts) {
  let n = 0;
  return () => {
    const step = attempts[n++];
    if (step.status !== undefined) throw new Scripted({ kind: 'status', status: step.status, headers: step.headers ?? [] });
    if (step.network !== undefined) throw new Scripted({ kind: 'network', network: step.network });
    return step.value;
  };
}

/** The vector config (snake_case, ms) as the JS Policy takes it (camelCase keys). */
function camel(value) {
  if (Array.isArray(value)) return value.map(camel);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), camel(v)]));
}

/** Runs the file through the Node entry, or through the entry passed as `api` (the client build's). */
export async function runAgentRuns(name, doc, api = nodeEntry) {
  const { createFetch, idempotencyKey, Policy, Run, toolReasonOf } = api;
  assert.ok(doc.applies_to.includes('javascript'), name);
  let count = 0;
  for (const c of doc.tool_reasons) {
    assert.equal(toolReasonOf(c.stop_reason), c.tool_reason ?? undefined, `${name} ${c.stop_reason}`);
    count += 1;
  }
  for (const scenario of doc.scenarios) {
    let t = 0;
    const run = new Run(scenario.run.run_id, {
      maxRetries: scenario.run.max_retries,
      policyOptions: { ...camel(scenario.config), now: () => t },
      classify: (error) => (error instanceof Scripted ? error.outcome : undefined),
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
    });
    for (const call of scenario.calls) {
      const result = await run.call(call.step, toolOf(call.attempts), {
        args: call.args,
        idempotent: call.idempotent,
        serverDeduplicates: call.server_deduplicates,
      });
      const where = `${name} ${scenario.id} ${call.step}`;
      const expect = call.expect;
      assert.equal(result.ok, expect.ok, `${where}: ok (${result.observation})`);
      assert.equal(result.attempts, expect.attempts, `${where}: attempts`);
      assert.equal(result.reason, expect.reason ?? undefined, `${where}: reason`);
      assert.equal(result.key, idempotencyKey(scenario.run.run_id, call.step, call.args), `${where}: key`);
      assert.equal(run.retriesUsed, expect.run_used, `${where}: run_used`);
      for (const text of expect.observation_contains ?? []) {
        assert.ok(result.observation.includes(text), `${where}: ${text} not in ${result.observation}`);
      }
      count += 1;
    }
  }
  for (const c of doc.event_streams) {
    assert.equal(isEventStream(c.content_type), c.expected, `${name} event_streams ${JSON.stringify(c.content_type)}`);
    count += 1;
  }
  for (const c of doc.retries_above) {
    // Through createFetch, as an SDK's request arrives: the event or none.
    const events = [];
    const policy = new Policy({ seed: 1, onEvent: (e) => events.push(e) });
    const fetch = createFetch({ policy, fetch: async () => new Response('ok') });
    await fetch('http://api.example/v1/chat', { headers: { 'x-stainless-retry-count': c.value } });
    const nested = events.filter((e) => e.kind === 'nested_retries');
    const expected = c.expected === null ? [] : [['api.example', 'GET /v1/chat', c.expected]];
    assert.deepEqual(nested.map((e) => [e.scope, e.operation, e.retriesAbove]), expected, `${name} retries_above ${JSON.stringify(c.value)}`);
    policy.free?.();
    count += 1;
  }
  return count;
}
