// Cold start: import + first retry() decision, in a fresh Node process and in
// a fresh headless Chromium context, for stoic, p-retry and cockatiel, in
// the same run (interleaved: every round starts each library once, in an
// order that rotates). stoic twice: its default entries (the .wasm file
// beside them) and `stoic/inline` (the module inside the JavaScript). Run by scripts/js-bench.sh from the peers' scratch
// folder (playwright-core comes from npm/node_modules); STOIC_DIST is npm/dist, COLD_JSON the file the medians go to,
// COLD_ROUNDS the rounds (default 15). Chromium runs when one is found
// (CHROMIUM, or `chromium` on the PATH).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const dist = process.env.STOIC_DIST;
const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const ROUNDS = Number(process.env.COLD_ROUNDS ?? 15);

/** How each library is imported and makes its first decision (a call that succeeds). */
const LIBS = {
  stoic: { node: join(dist, 'node.js'), browser: 'stoic.js', first: 'await m.retry(() => 1);' },
  // `stoic/inline`: the module inside the JavaScript (base64), compiled
  // synchronously at import; in a browser, the client module.
  'stoic/inline': { node: join(dist, 'inline.js'), browser: 'stoic-inline.js', first: 'await m.retry(() => 1);' },
  'p-retry': { node: 'p-retry', browser: 'p-retry.js', first: 'await m.default(() => 1, { retries: 4 });' },
  cockatiel: {
    node: 'cockatiel',
    browser: 'cockatiel.js',
    first: 'await m.retry(m.handleAll, { maxAttempts: 4, backoff: new m.ExponentialBackoff() }).execute(() => 1);',
  },
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** The measuring module: `report` is how it hands back its numbers. */
function probe(spec, first, report) {
  return `const REPORT = ${report};
const t0 = performance.now();
const m = await import(${JSON.stringify(spec)});
const t1 = performance.now();
${first}
const t2 = performance.now();
REPORT({ importMs: t1 - t0, firstMs: t2 - t1 });`;
}

function runNode(lib) {
  const source = probe(LIBS[lib].node, LIBS[lib].first, '(x) => console.log(JSON.stringify(x))');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { cwd: here, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${lib}: exit ${code}`))));
  });
}

async function chromiumRunner() {
  let path = process.env.CHROMIUM;
  try {
    path ??= execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
  if (!path) return undefined;
  // Each peer as one browser file (esbuild), stoic as its browser entry and its .wasm.
  const { build } = await import('esbuild');
  const files = new Map();
  for (const lib of ['p-retry', 'cockatiel']) {
    const out = await build({ entryPoints: [lib], bundle: true, format: 'esm', minify: true, write: false, logLevel: 'silent', absWorkingDir: here });
    files.set(`/${LIBS[lib].browser}`, out.outputFiles[0].contents);
  }
  const stoic = await build({
    entryPoints: [join(dist, 'browser.js')],
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  files.set('/stoic.js', stoic.outputFiles[0].contents);
  const inline = await build({
    entryPoints: [join(dist, 'inline-client.js')],
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  files.set('/stoic-inline.js', inline.outputFiles[0].contents);
  files.set('/wasm/stoic_client_bg.wasm', readFileSync(join(dist, 'wasm/stoic_client_bg.wasm')));
  for (const [lib, l] of Object.entries(LIBS)) {
    const page = `<!doctype html><script type="module">${probe(`/${l.browser}`, l.first, '(x) => { window.__cold = x; }')}</script>`;
    files.set(`/${lib.replace('/', '-')}.html`, page);
  }
  const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
  const server = createServer((req, res) => {
    const body = files.get(req.url);
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': types[req.url.slice(req.url.lastIndexOf('.'))], 'cache-control': 'no-store' }).end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { chromium } = await import(join(dist, '..', 'node_modules/playwright-core/index.mjs'));
  const browser = await chromium.launch({ executablePath: path, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  return {
    version: browser.version(),
    async run(lib) {
      const context = await browser.newContext(); // a fresh profile: no caches
      try {
        const page = await context.newPage();
        await page.goto(`http://127.0.0.1:${server.address().port}/${lib.replace('/', '-')}.html`);
        await page.waitForFunction(() => window.__cold !== undefined, null, { timeout: 30_000 });
        return await page.evaluate(() => window.__cold);
      } finally {
        await context.close();
      }
    },
    async close() {
      await browser.close();
      server.close();
    },
  };
}

const browser = await chromiumRunner();
const samples = { node: {}, chromium: {} };
for (const lib of Object.keys(LIBS)) {
  samples.node[lib] = [];
  samples.chromium[lib] = [];
}
const libs = Object.keys(LIBS);
for (let round = 0; round < ROUNDS; round++) {
  const order = libs.map((_, i) => libs[(i + round) % libs.length]);
  for (const lib of order) {
    samples.node[lib].push(await runNode(lib));
    if (browser) samples.chromium[lib].push(await browser.run(lib));
  }
}
await browser?.close();

const result = { rounds: ROUNDS, node: process.versions.node, chromium: browser?.version ?? null, median_ms: {} };
for (const [where, byLib] of Object.entries(samples)) {
  if (!browser && where === 'chromium') continue;
  result.median_ms[where] = {};
  for (const [lib, xs] of Object.entries(byLib)) {
    const importMs = median(xs.map((x) => x.importMs));
    const firstMs = median(xs.map((x) => x.firstMs));
    result.median_ms[where][lib] = { import: importMs, first: firstMs, total: median(xs.map((x) => x.importMs + x.firstMs)) };
  }
}
console.log(`\n## cold start, ms (median of ${ROUNDS}): import + first decision`);
for (const [where, byLib] of Object.entries(result.median_ms)) {
  for (const [lib, m] of Object.entries(byLib)) {
    console.log(`${where.padEnd(9)} ${lib.padEnd(10)} ${m.import.toFixed(1).padStart(6)} + ${m.first.toFixed(1).padStart(5)} = ${m.total.toFixed(1)}`);
  }
}
if (process.env.COLD_JSON) writeFileSync(process.env.COLD_JSON, JSON.stringify(result, null, 2));
