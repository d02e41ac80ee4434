// The playground page, built (dist/, `make playground-build`) from the
// packed package, in headless Chromium under the strict CSP: it loads with
// no console error; a seeded run in the page (the browser build, in a Web
// Worker) gives the same summary as the same run in Node (the package's Node
// entry, the same scenario module); an invalid field shows the engine's
// error at that field; the timeline has one mark per attempt. It also saves
// the screenshot the README shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import * as stoic from 'stoic';
import { findChromium, HOW_TO_ENABLE, launch } from '../../../npm/testlib/chromium.js';
import { serve, CSP } from '../serve.mjs';
import { defaultScenario, simulate } from '../src/scenario.js';

const here = fileURLToPath(new URL('..', import.meta.url));
const dist = `${here}dist`;
const SCREENSHOT = `${here}screenshot.png`;
const STRICT = "script-src 'self' 'wasm-unsafe-eval'";
/**
 * What the page may weigh, gzipped: the client wasm module (about 80 KB),
 * the worker (the package's client runtime and the scenario, about 11 KB),
 * the page's own script, style and HTML (about 9 KB), and some room.
 */
const BUDGET_GZIPPED = 115_000;

let server;
let browser;
/** Console errors, page errors and failed loads, per page. */
const problems = new WeakMap();

before(async () => {
  assert.ok(existsSync(`${dist}/index.html`), 'the page is not built: run `make playground-build` (make test does)');
  server = await serve(dist);
  const chromium = findChromium();
  assert.ok(chromium, HOW_TO_ENABLE);
  browser = await launch(chromium);
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Opens the page and waits for its first run (the default scenario). */
async function open() {
  const tab = await browser.context.newPage();
  const seen = [];
  problems.set(tab, seen);
  tab.on('pageerror', (e) => seen.push(`pageerror: ${e}`));
  tab.on('console', (m) => m.type() === 'error' && seen.push(`console: ${m.text()}`));
  tab.on('requestfailed', (r) => seen.push(`failed: ${r.url()}`));
  tab.on('response', (r) => r.status() >= 400 && seen.push(`HTTP ${r.status()}: ${r.url()}`));
  await tab.setViewportSize({ width: 1360, height: 900 });
  await tab.goto(server.url);
  await finished(tab);
  return tab;
}

/** Waits for a run to end; fails with what the page said if it failed. */
async function finished(tab) {
  await tab.waitForFunction(() => ['done', 'failed'].includes(document.body.dataset.state ?? ''), null, { timeout: 20_000 });
  const state = await tab.evaluate(() => [document.body.dataset.state, document.getElementById('status')?.textContent]);
  assert.equal(state[0], 'done', `${state[1]}\n${problems.get(tab).join('\n')}`);
}

/** What the page ran and what it found. */
async function pageRun(tab) {
  return tab.evaluate(() => {
    const table = /** @type {HTMLElement} */ (document.getElementById('summary'));
    return {
      summary: JSON.parse(table.dataset.summary ?? 'null'),
      observations: JSON.parse(table.dataset.observations ?? 'null'),
      run: JSON.parse(table.dataset.run ?? 'null'),
      marks: document.querySelectorAll('#timeline rect[data-attempt]').length,
      elapsedMs: Number(document.getElementById('status')?.dataset.elapsedMs),
    };
  });
}

test('the built page stays within its size budget, gzipped', (t) => {
  const files = readdirSync(dist, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(html|js|css|wasm)$/.test(e.name))
    .map((e) => `${e.parentPath}/${e.name}`);
  const sizes = files.map((f) => [f.slice(dist.length + 1), gzipSync(readFileSync(f), { level: 9 }).length]);
  const total = sizes.reduce((sum, [, n]) => sum + n, 0);
  t.diagnostic(`page, gzipped: ${total} bytes (${sizes.map(([f, n]) => `${f} ${n}`).join(', ')})`);
  assert.ok(sizes.some(([f]) => f.endsWith('.wasm')), 'the build ships the wasm module');
  assert.ok(total <= BUDGET_GZIPPED, `${total} bytes gzipped, over the budget of ${BUDGET_GZIPPED}`);
});

test("the built page carries the strict CSP, and loads under it (header and meta) with no console error", async (t) => {
  const html = readFileSync(`${dist}/index.html`, 'utf8');
  const meta = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1] ?? '';
  assert.ok(meta.includes(STRICT), meta);
  assert.ok(CSP.includes(STRICT), CSP);
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'an inline script would need unsafe-inline');
  const tab = await open();
  try {
    const { summary, elapsedMs } = await pageRun(tab);
    assert.ok(summary.attempts > 0);
    assert.deepEqual(problems.get(tab), []);
    // The engine ran in the worker, whose script came with the CSP header:
    // the wasm module compiled there under 'wasm-unsafe-eval'.
    const worker = tab.workers()[0];
    assert.ok(worker, 'the engine runs in a Web Worker');
    t.diagnostic(`default scenario: ${summary.attempts} attempts, ${summary.virtualMs} ms virtual, simulated in ${elapsedMs.toFixed(0)} ms in the page's worker`);
    // The README's screenshot: the top of the page after the default run.
    // Written to the committed file only when it is missing or asked for
    // (UPDATE_SCREENSHOT=1): the status line's timing, and fonts on another
    // machine, would otherwise change a tracked file on every run.
    const update = process.env.UPDATE_SCREENSHOT === '1' || !existsSync(SCREENSHOT);
    await tab.setViewportSize({ width: 1360, height: 1500 });
    const png = await tab.screenshot({ path: update ? SCREENSHOT : `${dist}/screenshot.png` });
    assert.ok(png.length > 20_000, 'the screenshot is blank');
  } finally {
    await tab.close();
  }
});

test('a seeded run in the page (browser build, Worker) and in Node (Node entry) give the same summary, one mark per attempt', async () => {
  const tab = await open();
  try {
    // The default run, as loaded.
    const first = await pageRun(tab);
    assert.deepEqual(first.run.scenario, defaultScenario());
    const node = simulate(stoic, first.run.config, first.run.scenario);
    assert.deepEqual(first.summary, node.summary);
    // The engine's words for a call it did not retry (a 422) and for one the budget stopped.
    assert.deepEqual(first.observations, node.observations);
    assert.match(first.observations.not_retryable, /^HTTP 422 /);
    assert.equal(first.marks, node.attempts.length);
    assert.equal(first.marks, first.summary.attempts);

    // A write whose acknowledgement is lost, without a key, with the unsafe
    // switch on: retried anyway, so the server applies duplicates.
    await tab.selectOption('#scenario-kind', 'lost_ack');
    await tab.selectOption('#s-keyed', '0');
    await tab.fill('#s-seed', '11');
    await tab.selectOption('#f-classify-ambiguous', 'always');
    await tab.waitForFunction(() => !(/** @type {HTMLButtonElement} */ (document.getElementById('run'))).disabled);
    await tab.click('#run');
    await tab.waitForFunction(() => JSON.parse(document.getElementById('summary')?.dataset.run ?? '{}').scenario?.seed === 11);
    await finished(tab);
    const second = await pageRun(tab);
    assert.equal(second.run.config.classify.ambiguous, 'always');
    assert.deepEqual(second.run.scenario, { ...second.run.scenario, kind: 'lost_ack', keyed: 0, seed: 11 });
    const again = simulate(stoic, second.run.config, second.run.scenario);
    assert.deepEqual(second.summary, again.summary);
    assert.ok(second.summary.duplicates > 0, JSON.stringify(second.summary));
    assert.equal(second.marks, again.attempts.length);

    // An outage with a short cooldown: the breaker opens, probes and opens
    // again; seconds with no attempt at all (the breaker open) are 0 load.
    await tab.selectOption('#scenario-kind', 'outage');
    await tab.selectOption('#f-classify-ambiguous', 'if_idempotent');
    await tab.fill('#f-breaker-cooldownMs', '2000');
    await tab.waitForFunction(() => (document.getElementById('code-js')?.textContent ?? '').includes('cooldownMs: 2000'));
    await tab.click('#run');
    await tab.waitForFunction(() => JSON.parse(document.getElementById('summary')?.dataset.run ?? '{}').scenario?.kind === 'outage');
    await finished(tab);
    const third = await pageRun(tab);
    const outage = simulate(stoic, third.run.config, third.run.scenario);
    assert.deepEqual(third.summary, outage.summary);
    assert.ok(third.summary.breakerOpened >= 2, JSON.stringify(third.summary));
    assert.ok(outage.load.includes(0) && Number.isInteger(third.summary.peakLoadPerS), JSON.stringify(outage.load));
    assert.equal(third.marks, outage.attempts.length);
    assert.deepEqual(problems.get(tab), []);
  } finally {
    await tab.close();
  }
});

test("an invalid field shows the engine's ConfigError at that field, and Run waits for a valid config", async () => {
  const tab = await open();
  try {
    const cases = [
      // [input, typed, the field the engine names]
      ['#f-backoff-capMs', '10', 'backoff.capMs'],
      ['#f-maxAttempts', 'five', 'maxAttempts'],
      ['#f-breaker-trip-threshold', '0', 'breaker.trip.threshold'],
    ];
    for (const [input, typed, field] of cases) {
      const before = await tab.inputValue(input);
      await tab.fill(input, typed);
      const errorBox = `${input}-error`;
      await tab.waitForFunction((sel) => (document.querySelector(sel)?.textContent ?? '') !== '', errorBox);
      const shown = await tab.textContent(errorBox);
      // The same value in Node: the engine's own problem for that field.
      const expected = expectedProblem(field, typed);
      assert.equal(shown, `${expected.message} (${expected.code})`);
      assert.equal(await tab.getAttribute(input, 'aria-invalid'), 'true');
      assert.equal(await tab.isDisabled('#run'), true);
      await tab.fill(input, before);
      await tab.waitForFunction((sel) => (document.querySelector(sel)?.textContent ?? '') === '', errorBox);
      assert.equal(await tab.isDisabled('#run'), false);
    }
    assert.deepEqual(problems.get(tab), []);
  } finally {
    await tab.close();
  }
});

/** The engine's problem for one field set to a typed value over the defaults (Node, the same package). */
function expectedProblem(field, typed) {
  const value = /^\d+$/.test(typed) ? Number(typed) : typed;
  const config = {};
  let o = config;
  const keys = field.split('.');
  for (const k of keys.slice(0, -1)) o = o[k] = {};
  o[keys.at(-1)] = value;
  if (field === 'breaker.trip.threshold') config.breaker.trip.kind = 'consecutive_failures';
  try {
    new stoic.Policy(config);
  } catch (error) {
    const problem = error.problems.find((p) => p.field === field);
    assert.ok(problem, `${field}: ${error.message}`);
    return problem;
  }
  assert.fail(`the engine accepted ${JSON.stringify(config)}`);
}

test('copy as code: the Python text builds, in the Python package, the policy the page ran', async (t) => {
  const python = fileURLToPath(new URL('../../../.venv/bin/python', import.meta.url));
  const tab = await open();
  try {
    await tab.fill('#f-maxAttempts', '3');
    await tab.fill('#f-backoff-baseMs', '250');
    await tab.fill('#f-timeouts-totalMs', 'none');
    await tab.fill('#f-breaker-cooldownMs', '5500');
    await tab.uncheck('#f-budget-ratio');
    // Both texts after the last change (the form re-renders them as each
    // field changes, so reading them before it settles is a race).
    await tab.waitForFunction(() => {
      const js = document.getElementById('code-js')?.textContent ?? '';
      const py = document.getElementById('code-py')?.textContent ?? '';
      return js.includes('cooldownMs: 5500') && js.includes('ratio: null') && py.includes('"cooldown": 5.5') && py.includes('"ratio": None');
    });
    const js = await tab.textContent('#code-js');
    const py = await tab.textContent('#code-py');
    assert.match(js, /maxAttempts: 3,/);
    assert.match(js, /baseMs: 250,/);
    assert.match(py, /max_attempts=3,/);
    assert.match(py, /"base": 0\.25,/);
    assert.match(py, /"total": None,/);
    assert.match(py, /"cooldown": 5\.5,/);
    assert.match(py, /"ratio": None,/);
    // The JavaScript text, evaluated, is a config the engine resolves as the page did.
    const body = js.slice(js.indexOf('new Policy(') + 'new Policy('.length, js.lastIndexOf(');'));
    const fromJs = new stoic.Policy({ seed: 0, ...Function(`return (${body});`)() }).config();
    assert.equal(fromJs.maxAttempts, 3);
    assert.equal(fromJs.timeouts.totalMs, null);
    assert.equal(fromJs.budget.ratio, null);

    let usable = false;
    try {
      execFileSync(python, ['-c', 'import stoic'], { stdio: 'pipe' });
      usable = true;
    } catch {
      t.skip('no Python package in .venv (make python-develop builds it): the Python text is not run');
    }
    if (!usable) return;
    const script = `${py}\nimport json\nc = dict(policy.config)\nc.pop("seed")\nprint(json.dumps(c))\n`;
    const fromPy = JSON.parse(execFileSync(python, ['-c', script], { encoding: 'utf8' }));
    // Python's config, read back, is the JavaScript one in the other dialect.
    assert.deepEqual(fromPy, toPython(withoutSeed(fromJs)));
  } finally {
    await tab.close();
  }
});

/** @param {Record<string, unknown>} c */
function withoutSeed(c) {
  const { seed, ...rest } = c;
  void seed;
  return rest;
}

/**
 * The JavaScript dialect in Python's, written independently of the page's
 * code generator: snake_case keys, `...Ms` as seconds without the suffix,
 * codes as they are.
 */
function toPython(value, path = '') {
  if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
  const codes = path === '.classify.status' || path === '.classify.network';
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      if (codes) return [key, v];
      const ms = key.endsWith('Ms');
      const name = key.replace(/Ms$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      return [name, ms && typeof v === 'number' ? v / 1000 : toPython(v, `${path}.${key}`)];
    }),
  );
}
