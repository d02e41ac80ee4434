// In a real browser: headless Chromium loads a page served on 127.0.0.1
// that imports the package (an import map names it `stoic`) and runs a
// retry scenario against the same server; the test reads the page's result.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { findChromium, HOW_TO_ENABLE, launch } from '../testlib/chromium.js';
import { startServer } from '../testlib/server.js';
import { serveFolder } from '../testlib/static.js';
import * as node from '../dist/node.js';

const PAGE = `<!doctype html>
<meta charset="utf-8">
<script type="importmap">{ "imports": { "stoic": "/pkg/dist/browser.js" } }</script>
<script type="module">
import { createFetch, Policy, RetryError } from 'stoic';
const seen = [];
const policy = new Policy({ backoff: { strategy: 'constant', baseMs: 5, capMs: 5 } });
const fetchWithRetries = createFetch({ policy, onRetry: ({ decision }) => seen.push([decision.matched, decision.delayMs]) });
try {
  const response = await fetchWithRetries('/flaky', { method: 'POST', body: 'order' });
  let gaveUp = null;
  try { await fetchWithRetries('/gone'); } catch (e) { gaveUp = { name: e.name, isRetryError: e instanceof RetryError, code: e.code }; }
  window.__result = { status: response.status, body: await response.text(), seen, gaveUp, userAgent: navigator.userAgent };
} catch (e) {
  window.__result = { error: String(e), stack: e.stack };
}
</script>`;

// The browser entry ships the client build; `stoic/full` has the rest
// (the standalone parts, snapshots, canonical JSON and content keys).
const SPLIT_PAGE = `<!doctype html>
<meta charset="utf-8">
<script type="importmap">{ "imports": { "stoic": "/pkg/dist/browser.js", "stoic/full": "/pkg/dist/full.js" } }</script>
<script type="module">
try {
  const client = await import('stoic');
  let snapshot = null;
  try { new client.Policy().snapshot(); } catch (e) { snapshot = { name: e.name, code: e.code, message: e.message }; }
  const unmeasured = new client.Policy();
  unmeasured.measuring = false; // turning it off is always fine
  let measuring = null;
  try { unmeasured.measuring = true; } catch (e) { measuring = { code: e.code, off: unmeasured.measuring }; }
  const full = await import('stoic/full');
  const breaker = new full.CircuitBreaker({});
  const policy = new full.Policy();
  const restored = new full.Policy().restore(policy.snapshot());
  window.__result = {
    clientHas: ['CircuitBreaker', 'ServerIdempotency', 'Backoff', 'canonicalJson', 'idempotencyKey', 'Run', 'retry', 'createFetch', 'randomKey'].filter((n) => n in client),
    clientKey: client.idempotencyKey('run', 'step', { a: 1 }),
    snapshot,
    measuring,
    fullMeasures: (() => { const p = new full.Policy(); p.measuring = true; return p.measuring; })(),
    fullKey: full.idempotencyKey('run', 'step', { a: 1 }),
    breaker: typeof breaker.tryAcquire,
    restored: typeof restored.restored,
  };
} catch (e) {
  window.__result = { error: String(e), stack: e.stack };
}
</script>`;

// A POST to another origin whose API does not allow the key header: the
// browser refuses it at the preflight, and fetch only says "Failed to
// fetch". The observation says that a CORS refusal looks the same; a
// same-origin request that fails alike (a reset) does not get the hint.
const corsPage = (api) => `<!doctype html>
<meta charset="utf-8">
<script type="importmap">{ "imports": { "stoic": "/pkg/dist/browser.js" } }</script>
<script type="module">
import { createFetch, RetryError } from 'stoic';
const fetchWithRetries = createFetch();
const ended = async (url) => {
  try { await fetchWithRetries(url, { method: 'POST', body: 'order' }); return { resolved: true }; }
  catch (e) { return { isRetryError: e instanceof RetryError, code: e.code, attempts: e.attempts, message: e.message }; }
};
try {
  window.__result = { crossOrigin: await ended(${JSON.stringify(api)}), sameOrigin: await ended('/reset') };
} catch (e) {
  window.__result = { error: String(e), stack: e.stack };
}
</script>`;

const chromiumPath = findChromium();
const mustRun = process.getuid?.() === 0 || process.env.CI === 'true';
let server;
let api;

before(async () => {
  // Answers the preflight for this origin, without allowing Idempotency-Key.
  const strict = (req, res) => {
    const cors = { 'access-control-allow-origin': req.headers.origin ?? '*', 'access-control-allow-methods': 'GET, POST' };
    res.writeHead(req.method === 'OPTIONS' ? 204 : 200, cors).end(req.method === 'OPTIONS' ? '' : 'ordered');
  };
  api = await startServer({ '/orders': [strict] });
  server = await startServer({
    '/cors': [{ headers: { 'content-type': 'text/html' }, body: corsPage(api.url('/orders')) }],
    '/reset': ['reset'],
    '/': [{ headers: { 'content-type': 'text/html' }, body: PAGE }],
    '/split': [{ headers: { 'content-type': 'text/html' }, body: SPLIT_PAGE }],
    '/pkg/*': [serveFolder(fileURLToPath(new URL('..', import.meta.url)), '/pkg/')],
    '/flaky': [{ status: 503 }, { status: 429, headers: { 'retry-after': '0' } }, { body: 'accepted' }],
    '/gone': [{ status: 410, body: 'gone for good' }],
  });
});

after(async () => {
  await server?.close();
  await api?.close();
});

/** Opens `path` in a fresh Chromium, waits for the page's result: the result, page errors and fetched paths. */
async function runPage(path) {
  assert.ok(chromiumPath, HOW_TO_ENABLE);
  const browser = await launch(chromiumPath);
  try {
    const page = await browser.context.newPage();
    const errors = [];
    const fetched = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
    await page.goto(server.url(path));
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 20_000 });
    return { result: await page.evaluate(() => window.__result), errors, fetched };
  } finally {
    await browser.close();
  }
}

test('Chromium imports the package and runs a retry scenario', { skip: !chromiumPath && !mustRun && HOW_TO_ENABLE }, async () => {
  const { result, errors } = await runPage('/');
  assert.deepEqual(errors, []);
  assert.equal(result.error, undefined, result.stack);
  assert.match(result.userAgent, /Chrome/);
  assert.equal(result.status, 200);
  assert.equal(result.body, 'accepted');
  assert.deepEqual(result.seen, [
    ['status_503', 5],
    ['status_429', 0],
  ]);
  assert.deepEqual(result.gaveUp, { name: 'RetryError', isRetryError: true, code: 'not_retryable' });
  const posts = server.requests.filter((r) => r.path === '/flaky');
  assert.equal(posts.length, 3);
  assert.equal(new Set(posts.map((r) => r.headers['idempotency-key'])).size, 1);
  assert.ok(posts[0].headers['idempotency-key']);
});

test('Chromium: the browser entry loads the client build, and stoic/full the whole engine', { skip: !chromiumPath && !mustRun && HOW_TO_ENABLE }, async () => {
  const { result, errors, fetched } = await runPage('/split');
  assert.deepEqual(errors, []);
  assert.equal(result.error, undefined, result.stack);
  assert.deepEqual(result.clientHas, ['canonicalJson', 'idempotencyKey', 'Run', 'retry', 'createFetch', 'randomKey']);
  assert.equal(result.snapshot.name, 'InputError');
  assert.equal(result.snapshot.code, 'not_in_build');
  assert.match(result.snapshot.message, /stoic\/full/);
  assert.deepEqual(result.measuring, { code: 'not_in_build', off: false });
  assert.equal(result.fullMeasures, true);
  // The same key as Node's entry derives, in both builds: one core.
  assert.equal(result.fullKey, node.idempotencyKey('run', 'step', { a: 1 }));
  assert.equal(result.clientKey, result.fullKey);
  assert.equal(result.breaker, 'function');
  assert.equal(result.restored, 'number');
  const modules = fetched.filter((path) => path.endsWith('.wasm'));
  assert.deepEqual(modules, ['/pkg/dist/wasm/stoic_client_bg.wasm', '/pkg/dist/wasm/stoic_wasm_bg.wasm']);
});

test('Chromium: a cross-origin POST the browser refuses says CORS may be why; a same-origin failure does not', { skip: !chromiumPath && !mustRun && HOW_TO_ENABLE }, async () => {
  const { result, errors } = await runPage('/cors');
  assert.deepEqual(errors, []);
  assert.equal(result.error, undefined, result.stack);
  // Refused at the preflight: the POST was never sent, so nothing to repeat safely.
  assert.deepEqual(api.requests.map((r) => r.method), ['OPTIONS']);
  assert.equal(result.crossOrigin.isRetryError, true);
  assert.equal(result.crossOrigin.code, 'not_idempotent');
  assert.equal(result.crossOrigin.attempts, 1);
  assert.match(result.crossOrigin.message, /Failed to fetch; a cross-origin request the browser refused \(CORS\) fails the same way/);
  assert.match(result.crossOrigin.message, /list Idempotency-Key in Access-Control-Allow-Headers, or pass createFetch\(\{ keys: false \}\)/);
  assert.equal(result.sameOrigin.code, 'not_idempotent');
  assert.match(result.sameOrigin.message, /Failed to fetch/);
  assert.doesNotMatch(result.sameOrigin.message, /CORS/);
});
