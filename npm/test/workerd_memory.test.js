// The README's edge-worker pattern (withPolicy: a Policy per request,
// restored from KV, createFetch, saved to KV, always freed) stays flat in
// real workerd: 40,000 requests through it grow the workerd process by less
// than 64 MB. The
// worker runs the README's snippet itself, its origin swapped for a local
// server that answers some first attempts 503 (Retry-After: 0) so retries
// happen; KV is workerd's own kvNamespace binding over a folder.
//
// workerd sets no heap limit, so V8 leaves garbage uncollected (a worker
// without stoic at all grows by about a hundred MB per 10,000 requests),
// and pages a late GC frees stay resident. So the test collects as a heap
// limit would: a full GC every 1,000 requests (a wrapper module answers
// /__gc with `gc()`, under --expose-gc), and reads the memory after it.
// The highest reading before a GC and the wasm memory's size are logged
// too, and so is a worker that makes its Policy per request by hand and
// forgets `policy.free()`, over fewer requests, to show what freeing buys:
// workerd has no FinalizationRegistry, so that memory is never reclaimed
// (asserted: the wasm memory grows), and stoic says so once on the console.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../testlib/server.js';
import { startWorkerd } from '../testlib/workerd.js';

const REQUESTS = 40_000;
const CONTROL_REQUESTS = 2_000;
const WARM_UP = 500;
const GC_EVERY = 1_000;
const IN_FLIGHT = 8;
const LIMIT_MB = 64;
/** One request in this many is answered 503 on its first attempt. */
const RETRY_EVERY = 25;
const README_ORIGIN = 'https://origin.example.com';

const WRAPPER = `// Serves the README's worker; /__gc runs a full GC and answers the size of the wasm memory.
import readme from './readme.js';
import { wasmMemory } from './stoic/core.js';
export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/__gc') {
      gc();
      return Response.json({ wasmBytes: wasmMemory().buffer.byteLength });
    }
    return readme.fetch(request, env, ctx);
  },
};
`;

let origin;
const seen = new Set();
const dir = mkdtempSync(join(tmpdir(), 'stoic-workerd-memory-'));

before(async () => {
  origin = await startServer({
    '/*': [
      (req, res) => {
        const path = new URL(req.url, 'http://x').pathname;
        if (!path.startsWith('/item/')) return void res.end('ready');
        const n = Number(path.slice('/item/'.length));
        const first = !seen.has(n);
        seen.add(n);
        if (first && n % RETRY_EVERY === 0) res.writeHead(503, { 'retry-after': '0' }).end('busy');
        else res.writeHead(200, { 'content-type': 'text/plain' }).end(`item ${n}`);
      },
    ],
  });
});

after(async () => {
  await origin?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The README's "edge worker" snippet, fetching `originUrl` instead. */
function readmeWorker(originUrl) {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## edge worker'));
  const snippet = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(snippet?.includes(README_ORIGIN) && snippet.includes('withPolicy('), 'the README has no edge-worker snippet to run');
  return snippet.replace(README_ORIGIN, originUrl);
}

/** The same worker with its Policy made by hand and never freed. */
function forgetfulWorker(originUrl) {
  return `import { createFetch, Policy } from 'stoic';
export default {
  async fetch(request, env) {
    const policy = new Policy({ maxAttempts: 3 });
    const saved = await env.KV.get('stoic');
    if (saved) policy.restore(saved);
    const response = await createFetch({ policy })('${originUrl}' + new URL(request.url).pathname);
    await env.KV.put('stoic', policy.snapshot());
    return response;
  },
};
`;
}

/** The pid of the workerd process itself: `pid`, or its descendant if `pid` is a wrapper. */
function workerdPid(pid) {
  if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd') return pid;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) {
      const found = workerdPid(Number(child));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** VmRSS and VmHWM of a process, in MB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)[1]);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

const mb = (x) => `${x.toFixed(1)} MB`;

/** Runs the README worker `source` for `requests` after the warm-up; memory readings after each phase. */
async function measure(name, source, requests) {
  const readme = join(dir, `${name}.js`);
  const wrapper = join(dir, `${name}-wrapper.js`);
  writeFileSync(readme, source);
  writeFileSync(wrapper, WRAPPER);
  const workerd = await startWorkerd(wrapper, { modules: { 'readme.js': readme }, v8Flags: ['--expose-gc'] });
  try {
    const pid = workerdPid(workerd.pid);
    assert.ok(pid !== undefined, `no workerd process under ${workerd.pid}`);
    const statuses = {};
    let sample;
    let next = 0;
    /** Requests up to `to` (each its own path), IN_FLIGHT at a time; then the memory before and after a GC. */
    const until = async (to) => {
      const lane = async () => {
        for (let n = next++; n < to; n = next++) {
          const response = await fetch(`${workerd.url}/item/${n}`);
          const body = await response.text();
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          if (response.status !== 200) sample ??= `${response.status} ${body.slice(0, 300)}`;
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      next = to;
      const garbage = memory(pid);
      const { wasmBytes } = await (await fetch(`${workerd.url}/__gc`)).json();
      return { garbage, live: memory(pid), wasm: wasmBytes / 2 ** 20 };
    };
    const started = Date.now();
    const readings = new Map([[0, await until(WARM_UP)]]);
    for (let done = 0; done < requests; ) {
      done = Math.min(done + GC_EVERY, requests);
      readings.set(done, await until(WARM_UP + done));
    }
    const seconds = (Date.now() - started) / 1000;
    const live = (n) => readings.get(n).live.rss;
    const growth = (n) => live(n) - live(0);
    const garbage = Math.max(...[...readings.values()].map((r) => r.garbage.rss));
    console.log(
      `${name}: ${WARM_UP + requests} requests in ${seconds.toFixed(1)} s; workerd RSS after a GC: ${mb(live(0))} after the warm-up, ` +
        `${mb(live(requests))} after ${requests} more (growth ${mb(growth(requests))}` +
        `${readings.has(CONTROL_REQUESTS) ? `; ${mb(growth(CONTROL_REQUESTS))} after ${CONTROL_REQUESTS}` : ''}); ` +
        `at most ${mb(garbage)} before a GC; VmHWM ${mb(readings.get(requests).live.hwm)}\n` +
        `  RSS after a GC (wasm memory) by requests done: ${[...readings.keys()]
          .filter((n) => n % 5_000 === 0 || n === requests)
          .map((n) => `${n}: ${live(n).toFixed(1)} (${readings.get(n).wasm.toFixed(1)})`)
          .join(', ')}`,
    );
    const wasm = { first: readings.get(0).wasm, last: readings.get(requests).wasm };
    return { growth: growth(requests), wasm, statuses, sample, log: workerd.log() };
  } finally {
    await workerd.stop();
  }
}

test(`workerd: ${REQUESTS} requests through the README's edge worker grow workerd by less than ${LIMIT_MB} MB`, { timeout: 600_000 }, async () => {
  const source = readmeWorker(origin.url(''));
  const freed = await measure('withPolicy', source, REQUESTS);
  assert.deepEqual(freed.statuses, { 200: WARM_UP + REQUESTS }, `not every request succeeded: ${freed.sample}\n${freed.log}`);
  assert.equal(seen.size, WARM_UP + REQUESTS, 'every request reached the origin');
  assert.ok(freed.growth < LIMIT_MB, `workerd grew ${mb(freed.growth)} over ${REQUESTS} requests (limit ${LIMIT_MB} MB)`);
  // The engine's own share: wasm memory never shrinks, so a leak of even a
  // few bytes per request would show here (without free(), about 14 KB each).
  assert.ok(freed.wasm.last - freed.wasm.first < 1, `the wasm memory grew from ${freed.wasm.first} to ${freed.wasm.last} MB`);

  seen.clear();
  const leaky = await measure('without free()', forgetfulWorker(origin.url('')), CONTROL_REQUESTS);
  console.log(`without free(): statuses ${JSON.stringify(leaky.statuses)}, growth ${mb(leaky.growth)} over ${CONTROL_REQUESTS} requests`);
  assert.ok(leaky.wasm.last - leaky.wasm.first > 1, 'without free(), the wasm memory grows: the control measures what it should');
  assert.match(leaky.log, /1000 policies were made and not freed/, 'and stoic said so');
});
