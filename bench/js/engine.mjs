// The engine's own cost in JS, without promises or timers, timed
// synchronously in CPU time: steady enough to compare builds of the module
// (opt-levels, size work) on one machine, which the async retry() rounds of
// bench.mjs are not. Run by scripts/js-engine-bench.sh against STOIC_DIST
// (npm/dist after `make js-build`); ROUNDS and N size it. Two layers:
//
// - "hot path": the numeric crossings retry() makes (`begin`, `succeed`,
//   `onStatus`, `beforeAttempt`, `close` on the policy's core, reading the
//   plan area), i.e. the engine under retry() and createFetch();
// - "hot path, fleet attached": the same on a policy attached to a fleet
//   (`stoic/redis`), without a store: what a call pays for the counting;
// - "Call API": the public low-level loop (Policy.start, Call.beforeAttempt,
//   Call.onOutcome, Call.close), which hands back objects.
//
// Each layer: success (a call admitted and succeeding first time) and one
// retry decision (a 503, its retry decision and the second admission: a
// call that fails once minus a call that succeeds).
//
// STOIC_DIST_B, when set, is a second build's dist (say, the full module at
// another opt-level: `STOIC_FULL_OPT_LEVEL=s make js-build`, then copy
// npm/dist): both are loaded into this process and their hot paths timed
// in alternating order round by round, and the median of the per-round
// ratios B / A is printed. This machine's speed drifts from minute to
// minute, so builds are only comparable measured this way.
import { join } from 'node:path';
import { measure as measureLayer, median, nsPerCall as timed } from './timing.mjs';

const stoic = await import(join(process.env.STOIC_DIST, 'node.js'));
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const N = Number(process.env.N ?? 20000);
const nsPerCall = (body) => timed(body, N);
const measure = (layer) => measureLayer(layer, ROUNDS, N);

// Defaults, as retry() has them (breaker, ratio budget, metrics on).
const policy = new stoic.Policy({ seed: 1 });

/** The crossings retry() makes, on `target`'s core. */
function hotPath(target) {
  const engine = target.core;
  let at = 0;
  return {
    success() {
      const handle = engine.begin(at, true);
      engine.succeed(handle, at);
      at += 1;
    },
    retryOnce() {
      const handle = engine.begin(at, true);
      if (engine.onStatus(handle, at, 503, -1, 0, 0) !== 1) throw new Error('expected a retry');
      at += target.plan.delayMs;
      engine.beforeAttempt(handle, at);
      engine.succeed(handle, at);
      at += 1;
    },
  };
}
const hot = hotPath(policy);

// The Call API on a policy of its own: each layer keeps its own clock.
const apiPolicy = new stoic.Policy({ seed: 1 });
let t = 0;

const success = { kind: 'success' };
const unavailable = { kind: 'status', status: 503, wallNowMs: null };
const api = {
  success() {
    const call = apiPolicy.start({ method: 'GET' }, t);
    call.beforeAttempt(t);
    call.onOutcome(success, t);
    call.close();
    t += 1;
  },
  retryOnce() {
    const call = apiPolicy.start({ method: 'GET' }, t);
    call.beforeAttempt(t);
    const decision = call.onOutcome(unavailable, t);
    if (decision.kind !== 'retry') throw new Error(`expected a retry, got ${decision.kind}`);
    t += decision.delayMs;
    call.beforeAttempt(t);
    call.onOutcome(success, t);
    call.close();
    t += 1;
  },
};

if (process.env.STOIC_DIST_B) {
  const other = await import(join(process.env.STOIC_DIST_B, 'node.js'));
  const b = hotPath(new other.Policy({ seed: 1 }));
  const a = hotPath(policy);
  const ratios = { success: [], retry_decision: [] };
  for (let round = -2; round < ROUNDS; round += 1) {
    const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
    const runs = new Map();
    for (const layer of [first, second]) {
      const s = nsPerCall(layer.success);
      runs.set(layer, { s, d: nsPerCall(layer.retryOnce) - s });
    }
    if (round >= 0) {
      ratios.success.push(runs.get(b).s / runs.get(a).s);
      ratios.retry_decision.push(runs.get(b).d / runs.get(a).d);
    }
  }
  console.log(JSON.stringify({ b_over_a: { success: median(ratios.success), retry_decision: median(ratios.retry_decision) } }));
} else {
  // The same hot path on a policy attached to a fleet (one export, no
  // store: what a call pays for the counting), in the same rounds.
  const fleetPolicy = new stoic.Policy({ seed: 1 });
  fleetPolicy.core.fleetExport(0, 0);
  const fleet = hotPath(fleetPolicy);
  console.log(
    JSON.stringify({ hot_path: measure(hot), hot_path_fleet: measure(fleet), call_api: measure(api), rounds: ROUNDS, n: N }),
  );
}
