// The size a browser app pays for `import { retry, createFetch } from 'stoic'`:
// the esbuild-minified app plus the client build of the wasm module (what the
// browser entry loads), each gzipped at level 9 (the figure `make size`
// prints). A byte count, not a timing.
//
// The ceiling is a ratchet at today's size plus about 2 %, not the goal: the
// module must shrink to 40 KB (bench/RESULTS.md, "Bundle size", has the
// peers), and until it does this test keeps it from growing unnoticed. Lower
// the ceiling whenever a change makes the module smaller. Raised from 93,400
// when the app measured 93,436 (14,276 JS + 79,160 wasm): bounded attempt
// waits, hooks that cannot fail a call, and the body_cut, refused_locally
// and not_a_failure outcomes with their texts. Lowered from 95,300 to
// 90,600 when the client build left out the failure-rate breaker, the token
// buckets, alerts and "did you mean" (core features; 79,909 -> 74,682 bytes
// of wasm), with the app at 89,733 (15,051 JS + 74,682 wasm). Raised to
// 99,500 when the client build took in canonical JSON, the keys derived from
// content and the agent Run (an agent's key must be the same in a page as in
// Node and Python): the app at 98,555 (15,313 JS + 83,242 wasm). Raised to
// 101,000 with the app at 99,021 (15,886 JS + 83,135 wasm): the hedging
// option's checks and its not_in_build refusal (JS), and the config
// reader's putting a misspelt key ahead of the key it was meant to be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const CEILING = 101_000;
const GOAL = 40_000;

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;

test(`a browser app with retry + createFetch ships under ${CEILING} bytes gzipped (goal ${GOAL})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), 'stoic-size-'));
  try {
    const app = join(folder, 'app.js');
    writeFileSync(app, `import { retry, createFetch } from ${JSON.stringify(join(dist, 'browser.js'))};\nglobalThis.app = { retry, createFetch };\n`);
    const out = join(folder, 'out.js');
    await build({
      entryPoints: [app],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      external: ['*.wasm'],
      outfile: out,
      logLevel: 'silent',
    });
    const js = gz(readFileSync(out));
    const wasm = gz(readFileSync(join(dist, 'wasm', 'stoic_client_bg.wasm')));
    const total = js + wasm;
    assert.ok(
      total <= CEILING,
      `the browser app grew to ${total} bytes gzipped (${js} JS + ${wasm} wasm), over the ` +
        `${CEILING} ceiling; run \`make size\` to see which crates and functions the bytes are`,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
