// Timing shared by the synchronous engine benchmarks (bench/js/engine.mjs,
// bench/component/decision.mjs): CPU time per call, and a layer's success
// and retry-decision costs over alternating rounds.
import { cpuUsage } from 'node:process';

/** CPU nanoseconds per call of `body`, over `n` calls. */
export function nsPerCall(body, n) {
  const start = cpuUsage();
  for (let i = 0; i < n; i += 1) body();
  const used = cpuUsage(start);
  return ((used.user + used.system) * 1000) / n;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * A layer's `success` (a call admitted and succeeding first time) and one
 * retry decision (`retryOnce` minus `success`): medians of `rounds` rounds
 * after two warm-up rounds, the order alternating so drift and GC hit both
 * alike.
 */
export function measure(layer, rounds, n) {
  const successes = [];
  const decisions = [];
  for (let round = -2; round < rounds; round += 1) {
    let s;
    let r;
    if (round % 2 === 0) {
      s = nsPerCall(layer.success, n);
      r = nsPerCall(layer.retryOnce, n);
    } else {
      r = nsPerCall(layer.retryOnce, n);
      s = nsPerCall(layer.success, n);
    }
    if (round >= 0) {
      successes.push(s);
      decisions.push(r - s);
    }
  }
  return { success_ns: Math.round(median(successes)), retry_decision_ns: Math.round(median(decisions)) };
}
