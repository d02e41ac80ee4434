// JS benchmarks for stoic (figures go to bench/README.md, section "JavaScript").
// Run by scripts/js-bench.sh from a scratch folder holding the peers
// (cockatiel, p-retry) and this file; STOIC_DIST is the package's dist.
//
// Method: every contender runs N calls per round; rounds alternate the
// contenders' order (paired, so drift and GC hit all alike); we report the
// median over rounds of ns per call, minus the baseline (the same awaits
// without any retry library), and the ratio to cockatiel.
import { readFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { join } from 'node:path';

const dist = process.env.STOIC_DIST;
const stoic = await import(join(dist, 'node.js'));
const { retry: cockatielRetry, handleAll, ConstantBackoff } = await import('cockatiel');
const { default: pRetry } = await import('p-retry');

const ROUNDS = Number(process.env.ROUNDS ?? 31);
const N = Number(process.env.N ?? 20000);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

async function measure(contenders) {
  const names = Object.keys(contenders);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) for (let i = 0; i < N; i++) await contenders[name](); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const run = contenders[name];
      const start = process.hrtime.bigint();
      for (let i = 0; i < N; i++) await run();
      samples[name].push(Number(process.hrtime.bigint() - start) / N);
    }
  }
  const result = Object.fromEntries(names.map((n) => [n, median(samples[n])]));
  // The fastest round too: on a shared machine it is the least disturbed.
  best = Object.fromEntries(names.map((n) => [n, Math.min(...samples[n])]));
  return result;
}

let best = {};
function printBest(base) {
  const line = Object.entries(best)
    .map(([n, ns]) => `${n} ${ns.toFixed(0)}${base && n !== base ? ` (+${(ns - best[base]).toFixed(0)})` : ''}`)
    .join('; ');
  console.log(`fastest rounds (ns): ${line}`);
}

// ---------------------------------------------------------------- size
const wasm = readFileSync(join(dist, 'wasm/stoic_wasm_bg.wasm'));
const glue = readFileSync(join(dist, 'wasm/stoic_wasm.js'));
const runtime = ['index', 'policy', 'retry', 'fetch', 'attempt', 'classify', 'clock', 'codes', 'core', 'errors', 'headers', 'helpers', 'components', 'node']
  .map((f) => readFileSync(join(dist, `${f}.js`)))
  .reduce((a, b) => Buffer.concat([a, b]));
const gz = (b) => gzipSync(b, { level: 9 }).length;
const br = (b) => brotliCompressSync(b).length;
console.log('## size (bytes)');
console.log(`wasm raw ${wasm.length}, gzip ${gz(wasm)}, brotli ${br(wasm)}`);
console.log(`glue raw ${glue.length}, gzip ${gz(glue)}`);
console.log(`wasm + glue gzip ${gz(wasm) + gz(glue)} (${((gz(wasm) + gz(glue)) / 1024).toFixed(1)} KiB)`);
console.log(`TS runtime (js) raw ${runtime.length}, gzip ${gz(runtime)}`);

// ---------------------------------------------------------------- success overhead
const noop = async () => 1;
const policy = new stoic.Policy();
const cockatiel = cockatielRetry(handleAll, { maxAttempts: 4, backoff: new ConstantBackoff(0) });
const success = await measure({
  baseline: () => noop(),
  stoic: () => stoic.retry(noop, { policy }),
  'stoic (no options)': () => stoic.retry(noop),
  cockatiel: () => cockatiel.execute(noop),
  'p-retry': () => pRetry(noop, { retries: 4 }),
});
const successBest = best;
console.log('\n## retry() around an async no-op that succeeds (median ns per call)');
for (const [name, ns] of Object.entries(success)) {
  const over = ns - success.baseline;
  const ratio = name === 'baseline' ? '' : ` overhead ${over.toFixed(0)} ns, x${(over / (success.cockatiel - success.baseline)).toFixed(2)} cockatiel`;
  console.log(`${name}: ${ns.toFixed(0)} ns${ratio}`);
}
best = successBest;
printBest('baseline');

// ---------------------------------------------------------------- retry decision cost
// k failures then a success, sleeping nothing (injected sleep). Breaker and
// budget off so k consecutive failures stay retryable; backoff constant 0.
const K = 4;
const decisionPolicy = new stoic.Policy({
  maxAttempts: K + 1,
  breaker: null,
  budget: { ratio: null },
  backoff: { strategy: 'constant', baseMs: 0, capMs: 0 },
});
const boom = new Error('transient');
const noSleep = () => Promise.resolve();
function flaky() {
  let n = 0;
  return () => (++n <= K ? Promise.reject(boom) : Promise.resolve(1));
}
const decisions = await measure({
  'baseline (k rejected awaits + 1)': async () => {
    const f = flaky();
    for (;;) {
      try {
        return await f();
      } catch {
        await noSleep();
      }
    }
  },
  'stoic, k failures': () => stoic.retry(flaky(), { policy: decisionPolicy, sleep: noSleep }),
  'baseline (1 await)': () => noop(),
  'stoic, no failure': () => stoic.retry(noop, { policy: decisionPolicy, sleep: noSleep }),
});
const perRetry =
  (decisions['stoic, k failures'] - decisions['baseline (k rejected awaits + 1)'] -
    (decisions['stoic, no failure'] - decisions['baseline (1 await)'])) / K;
console.log(`\n## one retry decision inside retry(), k = ${K} (median ns per call)`);
for (const [name, ns] of Object.entries(decisions)) console.log(`${name}: ${ns.toFixed(0)} ns`);
printBest();
console.log(`per retry decision beyond the rejected promise and the sleep call: ${perRetry.toFixed(0)} ns (medians)`);
const bestPerRetry =
  (best['stoic, k failures'] - best['baseline (k rejected awaits + 1)'] -
    (best['stoic, no failure'] - best['baseline (1 await)'])) / K;
console.log(`same from the fastest rounds: ${bestPerRetry.toFixed(0)} ns`);

// The engine alone: start, admit, report a failure, read the delay, close.
const core = decisionPolicy.core;
const engine = await measure({
  'engine: start + 5 x (beforeAttempt + onRejected) + close': async () => {
    const h = core.start(0, true);
    for (let i = 0; i < K; i++) {
      core.beforeAttempt(h, 0);
      core.onRejected(h, 0, 1, undefined);
      core.delayMs();
    }
    core.beforeAttempt(h, 0);
    core.onSuccess(h, 0);
    core.close(h);
  },
});
for (const [name, ns] of Object.entries(engine)) console.log(`${name}: ${ns.toFixed(0)} ns (${(ns / (K + 1)).toFixed(0)} ns per attempt)`);
