// One decision's cost in JS: the npm package's wasm-bindgen module against
// the component transpiled by jco (not a test). The same loop as
// bench/component/decision.py, on a policy with the defaults: a call
// admitted and succeeding at once ("success"), and one retry decision (a
// 503, its retry decision and the second admission: a call that fails once
// minus a call that succeeds). CPU time, alternating rounds, medians.
// STOIC_DIST is npm/dist; COMPONENT_JS the transpiled component. Prints JSON.
import { join } from 'node:path';
import { measure } from '../js/timing.mjs';

const stoic = await import(join(process.env.STOIC_DIST, 'node.js'));
const component = await import(process.env.COMPONENT_JS);
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const N = Number(process.env.N ?? 10000);

function bindgen() {
  const policy = new stoic.Policy({ seed: 1 });
  const ok = { kind: 'success' };
  const unavailable = { kind: 'status', status: 503, wallNowMs: null };
  let t = 0;
  return {
    success() {
      const call = policy.start({ method: 'GET' }, t);
      call.beforeAttempt(t);
      call.onOutcome(ok, t);
      call.close();
      t += 1;
    },
    retryOnce() {
      const call = policy.start({ method: 'GET' }, t);
      call.beforeAttempt(t);
      const decision = call.onOutcome(unavailable, t);
      if (decision.kind !== 'retry') throw new Error(`expected a retry, got ${decision.kind}`);
      t += decision.delayMs;
      call.beforeAttempt(t);
      call.onOutcome(ok, t);
      call.close();
      t += 1;
    },
  };
}

function jco() {
  const policy = component.policy.Policy.create('{"seed": 1}');
  const spec = { operation: 'get', scope: '', method: 'GET' };
  const ok = { kind: { tag: 'success' }, headers: [] };
  const unavailable = { kind: { tag: 'status', val: 503 }, headers: [] };
  let t = 0n;
  const dispose = (call) => call[Symbol.dispose]?.();
  return {
    success() {
      const call = policy.start(t, spec);
      policy.beforeAttempt(t, call);
      policy.onOutcome(t, call, ok);
      dispose(call);
      t += 1n;
    },
    retryOnce() {
      const call = policy.start(t, spec);
      policy.beforeAttempt(t, call);
      const decision = policy.onOutcome(t, call, unavailable);
      if (decision.tag !== 'retry') throw new Error(`expected a retry, got ${decision.tag}`);
      t += decision.val.delayMs;
      policy.beforeAttempt(t, call);
      policy.onOutcome(t, call, ok);
      dispose(call);
      t += 1n;
    },
  };
}

const result = { bindgen: measure(bindgen(), ROUNDS, N), jco: measure(jco(), ROUNDS, N), rounds: ROUNDS, n: N };
console.log(JSON.stringify(result));
