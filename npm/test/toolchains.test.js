// The packed package in the toolchains users build with. `npm pack`, install
// the tarball into a scratch project, build a tiny app (toolchains/app, and
// toolchains/next-app for Next.js) with each tool's own API and defaults,
// then run what it produced: browser builds in headless Chromium, served from
// 127.0.0.1, calling a flaky local endpoint; Node bundles with `node`;
// wrangler's output in workerd; Bun and Deno on the source. The tools are
// pinned in toolchains/package-lock.json and installed by scripts/js-tools.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { findChromium, HOW_TO_ENABLE, launch } from '../testlib/chromium.js';
import { startServer } from '../testlib/server.js';
import { serveFolder } from '../testlib/static.js';
import { freePort, startWorkerdConfig } from '../testlib/workerd.js';

const execFileAsync = promisify(execFile);
const npmDir = fileURLToPath(new URL('..', import.meta.url));
const toolsDir = join(npmDir, 'toolchains');
const tools = createRequire(join(toolsDir, 'package.json'));
const load = (name) => import(pathToFileURL(tools.resolve(name)).href);
const EXPECTED = { status: 200, body: 'ok', attempts: 2 };

let scratch; // the consumer project: the app's sources and node_modules/stoic from the tarball
let server; // the flaky endpoints and the built apps
let browser;
const shipped = {}; // tool -> gzipped bytes of what the build emitted

before(async () => {
  assert.ok(
    existsSync(join(toolsDir, 'node_modules')),
    'the toolchains are not installed: run scripts/toolchains-install.sh (make test does)',
  );
  scratch = mkdtempSync(join(tmpdir(), 'stoic-toolchains-'));
  execFileSync('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: npmDir, stdio: 'pipe' });
  const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
  const app = join(scratch, 'app');
  cpSync(join(toolsDir, 'app'), app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--silent', '--offline', '--no-audit', '--no-fund', join(scratch, tarball)], {
    cwd: app,
    stdio: 'pipe',
  });
  const flaky = [{ status: 503 }, { body: 'ok' }];
  server = await startServer({
    '/flaky/*': [(req, res) => serveFlaky(req, res, flaky)],
    '/app/*': [serveFolder(join(scratch, 'out'), '/app/')],
    // The built apps again, under a Content-Security-Policy.
    '/csp-wasm/*': [withCsp("script-src 'self' 'wasm-unsafe-eval'", serveFolder(join(scratch, 'out'), '/csp-wasm/'))],
    '/csp-strict/*': [withCsp("script-src 'self'", serveFolder(join(scratch, 'out'), '/csp-strict/'))],
  });
  const chromium = findChromium();
  if (chromium) browser = await launch(chromium);
});

after(async () => {
  await browser?.close();
  server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (Object.keys(shipped).length > 0) {
    const file = process.env.STOIC_TOOLCHAIN_SIZES;
    if (file) writeFileSync(file, JSON.stringify(shipped, null, 2));
  }
});

function withCsp(policy, serve) {
  return (req, res) => {
    res.setHeader('content-security-policy', policy);
    return serve(req, res);
  };
}

/** Each path under /flaky/ answers 503 first, then 200 "ok". */
const counts = new Map();
function serveFlaky(req, res, steps) {
  const n = counts.get(req.url) ?? 0;
  counts.set(req.url, n + 1);
  const step = steps[Math.min(n, steps.length - 1)];
  res.writeHead(step.status ?? 200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end(step.body ?? '');
}

const appDir = () => join(scratch, 'app');
const outDir = (tool) => join(scratch, 'out', tool);

function gzippedBytes(dir) {
  const all = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return all
    .filter((e) => /\.(js|mjs|wasm)$/.test(e.name))
    .reduce((sum, e) => sum + gzipSync(readFileSync(join(e.parentPath ?? e.path, e.name)), { level: 9 }).length, 0);
}

/** Opens the built page in Chromium and returns what the app reported. */
async function runPage(tool, page = 'index.html', origin = server.url(`/app/${tool}/`)) {
  assert.ok(browser, HOW_TO_ENABLE);
  const tab = await browser.context.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  try {
    await tab.goto(`${origin}${page}?tool=${tool}`);
    await tab.waitForFunction(() => window.__result !== undefined, null, { timeout: 20_000 });
    const result = await tab.evaluate(() => window.__result);
    assert.equal(result.error, undefined, `${result.error}\n${result.stack}\n${errors.join('\n')}`);
    return result;
  } finally {
    await tab.close();
  }
}

function writePage(dir, script, type = 'module') {
  writeFileSync(join(dir, 'index.html'), `<!doctype html>\n<meta charset="utf-8">\n<script type="${type}" src="./${script}"></script>\n`);
}

test('Vite: vite build of `import ... from "stoic"` runs in Chromium', async () => {
  const { build } = await load('vite');
  await build({
    root: appDir(),
    base: './',
    configFile: false,
    logLevel: 'error',
    build: { outDir: outDir('vite'), emptyOutDir: true },
  });
  assert.deepEqual(await runPage('vite'), EXPECTED);
  shipped.vite = gzippedBytes(outDir('vite'));
});

test("CSP: the Vite build runs under script-src 'wasm-unsafe-eval'; without it the error names what to allow", async () => {
  assert.deepEqual(await runPage('vite', 'index.html', server.url('/csp-wasm/vite/')), EXPECTED);
  const tab = await browser.context.newPage();
  try {
    const message = new Promise((resolve) => {
      tab.on('pageerror', (e) => resolve(String(e)));
      setTimeout(() => resolve('no error within 20 s'), 20_000);
    });
    await tab.goto(server.url('/csp-strict/vite/index.html?tool=vite-csp'));
    const text = await message;
    assert.match(text, /'wasm-unsafe-eval' in script-src: the page's policy forbids compiling WebAssembly/);
    // The cause is the policy, so the error does not send the reader to the bundler first.
    assert.doesNotMatch(text, /If a bundler left/);
  } finally {
    await tab.close();
  }
});

test('Vite: the dev server serves `import ... from "stoic"` and it runs in Chromium', async () => {
  const { createServer: createViteServer } = await load('vite');
  const dev = await createViteServer({
    root: appDir(),
    configFile: false,
    logLevel: 'error',
    cacheDir: join(scratch, 'vite-cache'),
    server: { host: '127.0.0.1', port: await freePort(), strictPort: true, proxy: { '/flaky': server.url('') } },
  });
  await dev.listen();
  try {
    const origin = dev.resolvedUrls.local[0];
    assert.deepEqual(await runPage('vite-dev', 'index.html', origin), EXPECTED);
  } finally {
    await dev.close();
  }
});

test('webpack 5: a production build of `import ... from "stoic"` runs in Chromium', async () => {
  const webpack = (await load('webpack')).default;
  const stats = await new Promise((resolve, reject) =>
    webpack(
      {
        mode: 'production',
        context: appDir(),
        entry: './main.js',
        output: { path: outDir('webpack'), filename: 'main.js', clean: true },
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
  assert.equal(stats.hasErrors(), false, stats.toString('errors-only'));
  writePage(outDir('webpack'), 'main.js', 'text/javascript');
  assert.deepEqual(await runPage('webpack'), EXPECTED);
  shipped.webpack = gzippedBytes(outDir('webpack'));
});

test('Parcel: parcel build of `import ... from "stoic"` runs in Chromium', async () => {
  const out = outDir('parcel');
  await execFileAsync(
    process.execPath,
    [tools.resolve('parcel/lib/bin.js'), 'build', 'index.html', '--dist-dir', out, '--public-url', './', '--no-cache'],
    { cwd: appDir(), timeout: 180_000, env: { ...process.env, PARCEL_WORKERS: '1' } },
  );
  assert.deepEqual(await runPage('parcel'), EXPECTED);
  shipped.parcel = gzippedBytes(out);
});

test('esbuild: a browser bundle of `import ... from "stoic"` runs in Chromium, with the .wasm copied beside it', async () => {
  const { build } = await load('esbuild');
  const out = outDir('esbuild');
  await build({
    entryPoints: [join(appDir(), 'main.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    outdir: out,
    logLevel: 'error',
  });
  // esbuild leaves `new URL('./wasm/stoic_client_bg.wasm', import.meta.url)` as it is:
  // the README's step for esbuild is to copy the module there.
  mkdirSync(join(out, 'wasm'), { recursive: true });
  cpSync(join(appDir(), 'node_modules/stoic/dist/wasm/stoic_client_bg.wasm'), join(out, 'wasm/stoic_client_bg.wasm'));
  writePage(out, 'main.js');
  assert.deepEqual(await runPage('esbuild'), EXPECTED);
  shipped.esbuild = gzippedBytes(out);
});

test('esbuild: a browser bundle of "stoic/inline" needs nothing beside it, and carries the client module', async () => {
  const { build } = await load('esbuild');
  const out = outDir('esbuild-inline');
  await build({
    entryPoints: [join(appDir(), 'main-inline.js')],
    bundle: true,
    format: 'iife', // a classic script: no top-level await, no module loading
    platform: 'browser',
    minify: true,
    outfile: join(out, 'main.js'),
    logLevel: 'error',
  });
  writePage(out, 'main.js', 'text/javascript');
  assert.deepEqual(await runPage('esbuild-inline'), { ...EXPECTED, build: 'client' });
  shipped['esbuild-inline'] = gzippedBytes(out);
});

test('esbuild: "stoic/init" loads the module from where the app put it, and refuses use before that', async () => {
  const { build } = await load('esbuild');
  const out = outDir('esbuild-init');
  await build({
    entryPoints: [join(appDir(), 'main-init.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    outfile: join(out, 'main.js'),
    logLevel: 'error',
  });
  mkdirSync(join(out, 'assets'), { recursive: true });
  cpSync(join(appDir(), 'node_modules/stoic/dist/wasm/stoic_wasm_bg.wasm'), join(out, 'assets/engine.wasm'));
  writePage(out, 'main.js');
  assert.deepEqual(await runPage('esbuild-init'), { ...EXPECTED, before: 'not_loaded' });
});

test('Rollup: a browser bundle of "stoic/inline" runs in Chromium, with the client module', async () => {
  const { rollup } = await load('rollup');
  const { nodeResolve } = await load('@rollup/plugin-node-resolve');
  const bundle = await rollup({ input: join(appDir(), 'main-inline.js'), plugins: [nodeResolve({ browser: true })], logLevel: 'silent' });
  await bundle.write({ dir: outDir('rollup'), format: 'es' });
  await bundle.close();
  writePage(outDir('rollup'), 'main-inline.js');
  assert.deepEqual(await runPage('rollup'), { ...EXPECTED, build: 'client' });
  shipped.rollup = gzippedBytes(outDir('rollup'));
});

/** Runs a Node bundle (asynchronously: this process serves its requests) and parses the JSON line it prints. */
async function runNode(file, tool) {
  const { stdout } = await execFileAsync(process.execPath, [file], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, FLAKY_URL: server.url(`/flaky/${tool}`) },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

test('esbuild: a Node bundle of "stoic/inline" runs with node, alone in its folder', async () => {
  const { build } = await load('esbuild');
  const out = outDir('esbuild-node');
  await build({
    entryPoints: [join(appDir(), 'node-inline.js')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: join(out, 'app.mjs'),
    logLevel: 'error',
  });
  const alone = mkdtempSync(join(tmpdir(), 'stoic-node-bundle-'));
  try {
    cpSync(join(out, 'app.mjs'), join(alone, 'app.mjs'));
    assert.deepEqual(await runNode(join(alone, 'app.mjs'), 'esbuild-node'), EXPECTED);
  } finally {
    rmSync(alone, { recursive: true, force: true });
  }
});

test('esbuild: a Node bundle of `import ... from "stoic"` finds the installed module; moved away, it says what to do', async () => {
  const { build } = await load('esbuild');
  const file = join(appDir(), 'dist-esbuild/app.mjs');
  await build({ entryPoints: [join(appDir(), 'node-main.js')], bundle: true, platform: 'node', format: 'esm', outfile: file, logLevel: 'error' });
  assert.deepEqual(await runNode(file, 'esbuild-node-default'), EXPECTED);
  const alone = mkdtempSync(join(tmpdir(), 'stoic-node-bundle-'));
  try {
    cpSync(file, join(alone, 'app.mjs'));
    await assert.rejects(runNode(join(alone, 'app.mjs'), 'esbuild-node-alone'), (error) => {
      assert.match(error.stderr, /Import 'stoic\/inline' in bundles/);
      return true;
    });
  } finally {
    rmSync(alone, { recursive: true, force: true });
  }
});

test('Rollup: a Node bundle of `import ... from "stoic"` with the package external runs with node', async () => {
  const { rollup } = await load('rollup');
  const bundle = await rollup({ input: join(appDir(), 'node-main.js'), external: [/^stoic/], logLevel: 'silent' });
  await bundle.write({ file: join(appDir(), 'dist-node/app.mjs'), format: 'es' });
  await bundle.close();
  assert.deepEqual(await runNode(join(appDir(), 'dist-node/app.mjs'), 'rollup-node'), EXPECTED);
});

test('wrangler: `wrangler deploy --dry-run --outdir` output runs in workerd', async () => {
  const out = outDir('wrangler');
  await execFileAsync(process.execPath, [tools.resolve('wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', out], {
    cwd: appDir(),
    timeout: 120_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
  });
  const files = readdirSync(out).filter((f) => f.endsWith('.js') || f.endsWith('.wasm'));
  const main = files.find((f) => f.endsWith('.js'));
  assert.ok(main, `wrangler wrote no worker: ${files.join(', ')}`);
  const worker = await startWorkerdConfig(out, [main, ...files.filter((f) => f !== main)]);
  try {
    const response = await fetch(`${worker.url}/?target=${encodeURIComponent(server.url('/flaky/wrangler'))}`);
    assert.deepEqual(await response.json(), EXPECTED);
  } finally {
    await worker.close();
  }
  shipped.wrangler = gzippedBytes(out);
});

/**
 * Starts a server process (`node` with `argv(port)`, on a free port) and
 * waits, up to `tries` times 200 ms, until `path` answers; returns that first
 * response, the origin, the process's log and `stop()`, which ends the
 * process group (the server and what it started, such as wrangler's workerd).
 */
async function startServing(name, argv, path, options, tries) {
  const port = await freePort();
  const child = spawn(process.execPath, argv(port), { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const stop = () => process.kill(-child.pid, 'SIGTERM');
  const origin = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      assert.equal(child.exitCode, null, `${name} exited: ${log}`);
      try {
        const response = await fetch(`${origin}${path}`, { signal: AbortSignal.timeout(20_000) });
        return { response, origin, log: () => log, stop };
      } catch {
        assert.ok(i < tries, `${name} did not start: ${log}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } catch (error) {
    stop();
    throw error;
  }
}

test('wrangler: `wrangler dev` serves the worker (its own workerd) and it runs', async () => {
  const target = encodeURIComponent(server.url('/flaky/wrangler-dev'));
  const dev = await startServing(
    'wrangler dev',
    (port) => [tools.resolve('wrangler/bin/wrangler.js'), 'dev', '--ip', '127.0.0.1', '--port', String(port)],
    `/?target=${target}`,
    { cwd: appDir(), env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' } },
    300,
  );
  try {
    assert.deepEqual(await dev.response.json(), EXPECTED, dev.log());
  } finally {
    dev.stop();
  }
});

/** Runs the Node app's source, unbundled, with another runtime's binary. */
async function runWith(argv, tool) {
  const { stdout } = await execFileAsync(argv[0], [...argv.slice(1), 'node-main.js'], {
    cwd: appDir(),
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, FLAKY_URL: server.url(`/flaky/${tool}`), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

test('Bun runs `import ... from "stoic"` from node_modules', async () => {
  assert.deepEqual(await runWith([join(toolsDir, 'node_modules/.bin/bun')], 'bun'), EXPECTED);
});

test('Deno runs `import ... from "stoic"` from node_modules', async () => {
  const deno = join(toolsDir, 'node_modules/.bin/deno');
  assert.deepEqual(await runWith([deno, 'run', '--allow-read', '--allow-net', '--allow-env'], 'deno'), EXPECTED);
});

test('Next.js: next build + next start render a server component and a route handler that use stoic', async () => {
  const project = join(scratch, 'next-app');
  cpSync(join(toolsDir, 'next-app'), project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'next-app', private: true, type: 'module' }));
  const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
  // next, react and react-dom at the toolchains' pinned versions, installed into the project
  // from npm's cache (the toolchains install put them there), as a user's project has them.
  const pinned = JSON.parse(readFileSync(join(toolsDir, 'package.json'), 'utf8')).devDependencies;
  const deps = ['next', 'react', 'react-dom'].map((name) => `${name}@${pinned[name]}`);
  await execFileAsync('npm', ['install', '--silent', '--prefer-offline', '--no-audit', '--no-fund', join(scratch, tarball), ...deps], {
    cwd: project,
    timeout: 300_000,
  });
  const next = join(project, 'node_modules/next/dist/bin/next');
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  await execFileAsync(process.execPath, [next, 'build'], { cwd: project, timeout: 300_000, env });
  const served = await startServing('next start', (port) => [next, 'start', '-p', String(port), '-H', '127.0.0.1'], '/', { cwd: project, env }, 150);
  try {
    assert.match(await served.response.text(), /attempts=(<!-- -->)?2/);
    const target = encodeURIComponent(server.url('/flaky/next'));
    const route = await fetch(`${served.origin}/api/check?target=${target}`);
    assert.deepEqual(await route.json(), { status: 200, body: 'ok' });
  } finally {
    served.stop();
  }
});
