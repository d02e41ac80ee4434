// JS benchmarks for stoic against cockatiel, p-retry and exponential-backoff.
// Run by scripts/js-bench.sh from a scratch folder holding the pinned peers
// (bench/js/package-lock.json) and this file; STOIC_DIST is the package's
// dist (npm/dist after `make js-build`). BENCH_JSON, when set, is the file
// the results go to as JSON (`make bench` reads it into bench/RESULTS.md).
//
// Cases, each library configured its idiomatic way (5 attempts in all,
// jittered exponential backoff; stoic's default policy except the retry
// budget, which the peers lack):
// - success: retry() around an async function that resolves first time;
// - fails once: the function rejects once, then resolves, with the sleep
//   stubbed (stoic: its `sleep` option; the peers take no sleep function,
//   so setTimeout is replaced by a microtask while they run), minus a
//   hand-written loop doing the same awaits;
// - one retry decision: that, minus the success case (same round);
// - success returning a Response: the function resolves with a fetch
//   `Response` (status 200, 7 headers), what `retry(() => fetch(url))`
//   gets; stoic judges it by its status (the peers do not look at it);
// - the floor: two readings of stoic's default clock (a call's start and
//   end, which the breaker, budget and metrics need) and nothing else: the
//   least stoic's success path can cost, against cockatiel's whole success
//   overhead in the same round.
// The last two run in rounds of their own, after the others: making a
// Response loads Node's fetch (undici), and with it loaded the figures of
// the first cases move (a retry decision measured below zero), so they are
// taken before it is.
// - fetch wrapper: a GET that succeeds first time, against a local server
//   in another process (server.mjs), through stoic's createFetch and ky,
//   minus a bare fetch of the same URL; every contender reads the body.
//   FETCH_ROUNDS and FETCH_N size it.
// - fetch wrapper, stubbed: the same GET through a stub fetch that resolves
//   at once (each wrapper's `fetch` option), minus calling the stub: the
//   wrappers' own CPU work without the network's noise.
// - size: each library's ESM entry bundled and minified by esbuild, gzipped
//   (stoic: its browser entry, i.e. the TypeScript runtime and the
//   wasm-bindgen glue, plus the .wasm module gzipped).
//
// Method: paired rounds. Every round times every contender (N calls each)
// in an order that rotates and reverses from round to round, so drift and GC
// hit all alike; per round we take each contender's overhead over the
// baseline and the ratio peer / stoic; we report medians over rounds of both.
// Two rounds run first unrecorded (JIT warm-up). Times are the process's CPU
// time unless BENCH_CLOCK=wall (see below).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const dist = process.env.STOIC_DIST;
const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const stoic = await import(join(dist, 'node.js'));
const { retry: cockatielRetry, handleAll, ExponentialBackoff } = await import('cockatiel');
const { default: pRetry } = await import('p-retry');
const { backOff } = await import('exponential-backoff');
const { default: ky } = await import('ky');

const ROUNDS = Number(process.env.ROUNDS ?? 21);
const N = Number(process.env.N ?? 10000);
const PEERS = ['cockatiel', 'p-retry', 'exponential-backoff'];
const FETCH_PEERS = ['ky'];
const FETCH_ROUNDS = Number(process.env.FETCH_ROUNDS ?? 9);
const FETCH_N = Number(process.env.FETCH_N ?? 1000);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// ---------------------------------------------------------------- timers
// The peers sleep with setTimeout (even for 0 ms, which Node rounds up to
// 1 ms); while they run the retry case, a timer fires on the next microtask.
const realSetTimeout = globalThis.setTimeout;
const fakeTimer = { unref() { return this; }, ref() { return this; }, hasRef: () => false };
function immediateTimeout(fn, _ms, ...args) {
  Promise.resolve().then(() => fn(...args));
  return fakeTimer;
}

// ---------------------------------------------------------------- contenders
const noop = async () => 1;
// A connection reset (what a flaky dependency throws): every contender retries it;
// stoic judges it by its code, as it would a real socket error.
const boom = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const noSleep = () => Promise.resolve();
/** A function that rejects on its odd calls and resolves on its even ones. */
function flaky() {
  let n = 0;
  return () => (++n % 2 === 1 ? Promise.reject(boom) : Promise.resolve(1));
}

const policy = new stoic.Policy({ maxAttempts: 5, budget: { ratio: null } });
const cockatiel = cockatielRetry(handleAll, { maxAttempts: 4, backoff: new ExponentialBackoff() });
const pRetryOptions = { retries: 4, randomize: true };
const ebOptions = { numOfAttempts: 5, jitter: 'full' };

// Each contender: [success call, one-retry call (given a fresh flaky fn), stub timers?]
const contenders = {
  baseline: [
    () => noop(),
    async (f) => {
      for (;;) {
        try {
          return await f();
        } catch {
          await noSleep();
        }
      }
    },
    false,
  ],
  stoic: [() => stoic.retry(noop, { policy }), (f) => stoic.retry(f, { policy, sleep: noSleep }), false],
  cockatiel: [() => cockatiel.execute(noop), (f) => cockatiel.execute(f), true],
  'p-retry': [() => pRetry(noop, pRetryOptions), (f) => pRetry(f, pRetryOptions), true],
  'exponential-backoff': [() => backOff(noop, ebOptions), (f) => backOff(f, ebOptions), true],
};

// CPU time of this process (user + system) by default: on a shared machine,
// time spent preempted by other processes does not count against whichever
// contender happened to be running. BENCH_CLOCK=wall measures wall time.
const CLOCK = process.env.BENCH_CLOCK === 'wall' ? 'wall' : 'cpu';
const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
const wallNs = () => Number(process.hrtime.bigint());
const clock = CLOCK === 'wall' ? wallNs : cpuNs;

async function timeCalls(call, n) {
  const start = clock();
  for (let i = 0; i < n; i++) await call();
  return (clock() - start) / n;
}

/**
 * Paired rounds of `groups` (each a map of name to call): every round times
 * each group's calls, `n` each, in an order that rotates and reverses from
 * round to round; the first `warmUp` rounds are not recorded. Per group, each
 * name's times by round.
 */
async function pairedRounds(groups, rounds, n, warmUp) {
  const times = groups.map((calls) => Object.fromEntries(Object.keys(calls).map((name) => [name, []])));
  for (let round = -warmUp; round < rounds; round++) {
    for (const [g, calls] of groups.entries()) {
      const names = Object.keys(calls);
      let order = names.map((_, i) => names[(i + round + warmUp) % names.length]);
      if (round % 2) order = order.reverse();
      for (const name of order) {
        const ns = await timeCalls(calls[name], n);
        if (round >= 0) times[g][name].push(ns);
      }
    }
  }
  return times;
}

async function timeRetries(call, stub, n) {
  const f = flaky();
  if (stub) globalThis.setTimeout = immediateTimeout;
  try {
    const start = clock();
    for (let i = 0; i < n; i++) {
      if ((await call(f)) !== 1) throw new Error('unexpected result');
    }
    return (clock() - start) / n;
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
}

async function measure() {
  const names = Object.keys(contenders);
  const success = Object.fromEntries(names.map((n) => [n, []]));
  const retried = Object.fromEntries(names.map((n) => [n, []]));
  const nRetry = Math.max(1, N >> 2);
  const WARM_UP = 2; // rounds run and not recorded, so the JIT has settled
  for (let round = -WARM_UP; round < ROUNDS; round++) {
    const shift = ((round % names.length) + names.length) % names.length;
    let order = names.map((_, i) => names[(i + shift) % names.length]);
    if (round % 2) order = order.reverse();
    // One pass per case, so a block follows another contender's block of
    // the same case (and pays its share of the garbage left before it).
    for (const name of order) {
      const ns = await timeCalls(contenders[name][0], N);
      if (round >= 0) success[name].push(ns);
    }
    for (const name of order) {
      const [, once, stub] = contenders[name];
      const ns = await timeRetries(once, stub, nRetry);
      if (round >= 0) retried[name].push(ns);
    }
  }
  return { success, retried, nRetry };
}

/**
 * The Response case and the floor, in rounds of their own (see the header):
 * per round, each contender's success with a function resolving with a
 * Response, then the plain baseline, cockatiel's plain success and the
 * floor (the baseline call plus two readings of stoic's clock).
 */
async function measureResponses() {
  // A response as fetch resolves it: 200 with the headers a JSON API sends.
  const okResponse = new Response('{"ok":true}', {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'content-length': '11',
      date: 'Thu, 03 Dec 2026 12:00:00 GMT',
      server: 'bench',
      'cache-control': 'no-store',
      'x-request-id': 'r-1',
      connection: 'keep-alive',
    },
  });
  const respond = async () => okResponse;
  const responders = {
    baseline: () => respond(),
    stoic: () => stoic.retry(respond, { policy }),
    cockatiel: () => cockatiel.execute(respond),
    'p-retry': () => pRetry(respond, pRetryOptions),
    'exponential-backoff': () => backOff(respond, ebOptions),
  };
  const clock2 = policy.now;
  const plain = {
    baseline: contenders.baseline[0],
    cockatiel: contenders.cockatiel[0],
    floor: () => {
      clock2();
      clock2();
      return noop();
    },
  };
  const [responded, plainTimes] = await pairedRounds([responders, plain], ROUNDS, N, 2);
  return { responded, plainTimes };
}

/** Per-round figures: overhead over the baseline, and peer / stoic. */
function summariseWith(perRound, peers) {
  const libs = ['stoic', ...peers];
  const medians = Object.fromEntries(libs.map((l) => [l, median(perRound[l])]));
  const ratios = Object.fromEntries(
    peers.map((p) => [p, median(perRound[p].map((v, r) => v / perRound.stoic[r]))]),
  );
  const ratioOfMedians = Object.fromEntries(peers.map((p) => [p, medians[p] / medians.stoic]));
  return { median_ns: medians, ratio_median: ratios, ratio_of_medians: ratioOfMedians };
}

const summarise = (perRound) => summariseWith(perRound, PEERS);

const { success, retried, nRetry } = await measure();
const { responded, plainTimes } = await measureResponses();
const libs = ['stoic', ...PEERS];
const successOver = {};
const retriedOver = {};
const decision = {};
const respondedOver = {};
for (const lib of libs) {
  successOver[lib] = success[lib].map((v, r) => v - success.baseline[r]);
  respondedOver[lib] = responded[lib].map((v, r) => v - responded.baseline[r]);
  retriedOver[lib] = retried[lib].map((v, r) => v - retried.baseline[r]);
  decision[lib] = retriedOver[lib].map((v, r) => v - successOver[lib][r]);
}
const cases = {
  'success first time (overhead per call)': summarise(successOver),
  'fails once, then succeeds (overhead per call)': summarise(retriedOver),
  'one retry decision (the above minus success)': summarise(decision),
  'success, the function returns a Response (overhead per call)': summarise(respondedOver),
};
// Two clock readings over the baseline, and that against cockatiel's whole
// success overhead (same round).
const floorOver = plainTimes.floor.map((v, r) => v - plainTimes.baseline[r]);
const cockatielOver = plainTimes.cockatiel.map((v, r) => v - plainTimes.baseline[r]);
const floorCase = {
  clock_reads_ns: median(floorOver),
  ratio_to_cockatiel: median(floorOver.map((v, r) => v / cockatielOver[r])),
};

// ---------------------------------------------------------------- fetch
/** Starts server.mjs and resolves with its URL and a way to stop it. */
async function startServer() {
  const child = spawn(process.execPath, [join(here, 'server.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
  });
  return { url: `http://127.0.0.1:${port}/orders`, stop: () => child.stdin.end() };
}

async function measureFetch() {
  const server = await startServer();
  try {
    const fetchPolicy = new stoic.Policy({ maxAttempts: 5 });
    const stoicFetch = stoic.createFetch({ policy: fetchPolicy });
    // ky's defaults: 2 retries for GET, a 10 s timeout; 4 retries as above.
    const kyClient = ky.create({ retry: { limit: 4 } });
    const get = {
      baseline: async () => (await fetch(server.url)).text(),
      stoic: async () => (await stoicFetch(server.url)).text(),
      ky: () => kyClient.get(server.url).text(),
    };
    const names = Object.keys(get);
    const [times] = await pairedRounds([get], FETCH_ROUNDS, FETCH_N, 1);
    const over = Object.fromEntries(
      ['stoic', ...FETCH_PEERS].map((lib) => [lib, times[lib].map((v, r) => v - times.baseline[r])]),
    );
    return {
      rounds: FETCH_ROUNDS,
      n: FETCH_N,
      bare_fetch_median_ns: median(times.baseline),
      per_request_median_ns: Object.fromEntries(names.map((n) => [n, median(times[n])])),
      overhead: summariseWith(over, FETCH_PEERS),
    };
  } finally {
    server.stop();
  }
}

const fetchCase = await measureFetch();

/**
 * The same GET with the network taken out: each wrapper is given a stub
 * fetch (its `fetch` option) that resolves at once with a fresh 200
 * response, the baseline calls the stub and reads the body. What is left is
 * each wrapper's own CPU work, which the network case's bare fetch (hundreds
 * of us, shared with whatever else the machine runs) leaves noisy.
 */
async function measureStubbedFetch() {
  const headers = { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-request-id': 'bench' };
  const stub = async () => new Response('{"ok":true}', { status: 200, headers });
  const url = 'http://127.0.0.1:9/orders';
  const stoicFetch = stoic.createFetch({ policy: new stoic.Policy({ maxAttempts: 5 }), fetch: stub });
  const kyClient = ky.create({ retry: { limit: 4 }, fetch: stub });
  const get = {
    baseline: async () => (await stub(url)).text(),
    stoic: async () => (await stoicFetch(url)).text(),
    ky: () => kyClient.get(url).text(),
  };
  const n = FETCH_N * 3;
  const [times] = await pairedRounds([get], FETCH_ROUNDS, n, 2);
  const over = Object.fromEntries(
    ['stoic', ...FETCH_PEERS].map((lib) => [lib, times[lib].map((v, r) => v - times.baseline[r])]),
  );
  return { rounds: FETCH_ROUNDS, n, stub_median_ns: median(times.baseline), overhead: summariseWith(over, FETCH_PEERS) };
}

const stubbedFetchCase = await measureStubbedFetch();

// ---------------------------------------------------------------- size
const { build, version: esbuildVersion } = await import('esbuild');
const gz = (b) => gzipSync(b, { level: 9 }).length;
async function bundle(contents) {
  const out = await build({
    stdin: { contents, resolveDir: here, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const bytes = out.outputFiles[0].contents;
  return { min: bytes.length, gzip: gz(bytes) };
}
const stoicEntry = JSON.stringify(join(dist, 'browser.js'));
// The browser entry loads the client build of the module.
const wasm = readFileSync(join(dist, 'wasm/stoic_client_bg.wasm'));
const entries = {
  stoic: [`export * from ${stoicEntry};`, `export { retry, Policy } from ${stoicEntry};`],
  cockatiel: ["export * from 'cockatiel';", "export { retry, handleAll, ExponentialBackoff } from 'cockatiel';"],
  'p-retry': ["export * from 'p-retry'; export { default } from 'p-retry';", "export { default } from 'p-retry';"],
  'exponential-backoff': ["export * from 'exponential-backoff';", "export { backOff } from 'exponential-backoff';"],
};
const size = {};
for (const [lib, [whole, retryOnly]] of Object.entries(entries)) {
  const all = await bundle(whole);
  const used = await bundle(retryOnly);
  size[lib] = { entry_min: all.min, entry_gzip: all.gzip, retry_only_min: used.min, retry_only_gzip: used.gzip };
}
size.stoic.wasm_raw = wasm.length;
size.stoic.wasm_gzip = gz(wasm);
// The largest module in the package: the full one, which every other entry loads.
size.stoic.full_wasm_gzip = gz(readFileSync(join(dist, 'wasm/stoic_wasm_bg.wasm')));
size.stoic.total_gzip = size.stoic.entry_gzip + size.stoic.wasm_gzip;
size.stoic.retry_only_total_gzip = size.stoic.retry_only_gzip + size.stoic.wasm_gzip;
// The browser app the size goal is set for (`make size` prints the same).
const app = await bundle(`export { retry, createFetch } from ${stoicEntry};`);
size.stoic.retry_fetch_app_gzip = app.gzip + size.stoic.wasm_gzip;

// ---------------------------------------------------------------- report
const pkgVersion = (name) => JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8')).version;
const versions = {
  node: process.versions.node,
  stoic: JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')).version,
  esbuild: esbuildVersion,
  ...Object.fromEntries([...PEERS, ...FETCH_PEERS].map((p) => [p, pkgVersion(p)])),
};
const result = {
  clock: CLOCK,
  rounds: ROUNDS,
  n_success: N,
  n_retry: nRetry,
  versions,
  baseline_median_ns: { success: median(success.baseline), one_retry: median(retried.baseline) },
  cases,
  floor: floorCase,
  fetch: fetchCase,
  fetch_stubbed: stubbedFetchCase,
  size,
  size_note:
    'esbuild --bundle --minify --format=esm --platform=browser, gzip -9. "entry": export * from the package; ' +
    '"retry only": the names a retry needs (tree-shaken where the package is ESM). ' +
    'stoic: dist/browser.js (TypeScript runtime + wasm-bindgen glue) plus the client .wasm module it loads, each gzipped.',
};

console.log(`# Node ${versions.node}; ${ROUNDS} rounds of ${N} calls (${nRetry} for retries), ${CLOCK} time; medians over rounds`);
console.log(`# ${PEERS.map((p) => `${p} ${versions[p]}`).join(', ')}; esbuild ${esbuildVersion}`);
for (const [name, c] of Object.entries(cases)) {
  console.log(`\n## ${name}: ns per call, and peer / stoic (median of per-round ratios)`);
  for (const lib of libs) {
    const r = lib === 'stoic' ? '' : `  x${c.ratio_median[lib].toFixed(2)}`;
    console.log(`${lib.padEnd(20)} ${c.median_ns[lib].toFixed(0).padStart(8)} ns${r}`);
  }
}
console.log(
  `\n## floor: two clock readings ${floorCase.clock_reads_ns.toFixed(0)} ns, ` +
    `${floorCase.ratio_to_cockatiel.toFixed(2)}x cockatiel's success overhead`,
);
console.log(
  `\n## fetch wrapper, GET that succeeds (${FETCH_ROUNDS} rounds of ${FETCH_N}): overhead over a bare fetch ` +
    `(${(fetchCase.bare_fetch_median_ns / 1000).toFixed(0)} us per request), and peer / stoic`,
);
for (const lib of ['stoic', ...FETCH_PEERS]) {
  const o = fetchCase.overhead;
  const r = lib === 'stoic' ? '' : `  x${o.ratio_median[lib].toFixed(2)}`;
  console.log(`${lib.padEnd(20)} ${(o.median_ns[lib] / 1000).toFixed(1).padStart(8)} us${r}`);
}
console.log(
  `\n## fetch wrapper, stubbed fetch (${FETCH_ROUNDS} rounds of ${stubbedFetchCase.n}): each wrapper's own work over the stub ` +
    `(${(stubbedFetchCase.stub_median_ns / 1000).toFixed(1)} us per call), and peer / stoic`,
);
for (const lib of ['stoic', ...FETCH_PEERS]) {
  const o = stubbedFetchCase.overhead;
  const r = lib === 'stoic' ? '' : `  x${o.ratio_median[lib].toFixed(2)}`;
  console.log(`${lib.padEnd(20)} ${(o.median_ns[lib] / 1000).toFixed(1).padStart(8)} us${r}`);
}
console.log('\n## size, gzip -9 bytes (entry / retry only)');
for (const [lib, s] of Object.entries(size)) {
  const extra = lib === 'stoic' ? ` + wasm ${s.wasm_gzip} = ${s.total_gzip} / ${s.retry_only_total_gzip}` : '';
  console.log(`${lib.padEnd(20)} ${s.entry_gzip} / ${s.retry_only_gzip}${extra}`);
}
if (process.env.BENCH_JSON) {
  writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nwrote ${process.env.BENCH_JSON}`);
}
