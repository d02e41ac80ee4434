// The attempts' shared timer (watch.ts) holds the process open while an
// attempt waits on it and lets it go once none does: a process whose calls
// have all ended exits at once, one with an attempt still waiting stays
// until the attempt's timeout ends it. Each case runs in a process of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

const entry = new URL('../dist/node.js', import.meta.url).href;

/** Runs `body` as a module after importing the package; returns its output. */
function run(body) {
  const source = `import { Policy, retry } from ${JSON.stringify(entry)};\n${body}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', timeout: 20_000 });
}

test('a process exits once its calls have ended, also calls awaited one after another', () => {
  const out = run(`
    const policy = new Policy({ timeouts: { readMs: 60_000 } });
    for (let i = 0; i < 50; i++) await retry(async () => i, { policy });
    console.log('done');
  `);
  // Had the timer held the process, it would have stayed for the read timeout (60 s; the run's own limit is 20 s).
  assert.equal(out.trim(), 'done');
});

test('an attempt still waiting holds the process until its timeout ends the call', () => {
  const out = run(`
    const policy = new Policy({ maxAttempts: 1, timeouts: { readMs: 200 } });
    await retry(async () => 1, { policy });
    retry(() => new Promise(() => {}), { policy }).catch((error) => console.log(error.decision.matched));
  `);
  assert.equal(out.trim(), 'network_read_timeout');
});
