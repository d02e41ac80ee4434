// In an edge runtime: the package runs inside workerd, in a worker that
// fetches a local server through stoic and keeps the policy's state across
// requests in storage with snapshot() / restore().
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startServer } from '../testlib/server.js';
import { startWorkerd } from '../testlib/workerd.js';

let upstream;
let workerd;

before(async () => {
  upstream = await startServer({
    '/limited': [{ status: 429, headers: { 'retry-after': '0' } }, { body: 'ok' }],
    '/down': [{ status: 503, body: 'down' }],
  });
  workerd = await startWorkerd(fileURLToPath(new URL('../testlib/worker.js', import.meta.url)));
});

after(async () => {
  await workerd?.stop();
  await upstream?.close();
});

async function ask(path) {
  const response = await fetch(`${workerd.url}${path}?upstream=${encodeURIComponent(upstream.url(''))}`);
  const text = await response.text();
  assert.equal(response.status, 200, `${text}\n${workerd.log()}`);
  return JSON.parse(text);
}

test('workerd: fetch through stoic, breaker state carried across requests by snapshot/restore', async () => {
  const first = await ask('/limited');
  assert.deepEqual(first, { status: 200, body: 'ok', restored: null, breaker: 'closed' });
  assert.equal(upstream.hits('/limited'), 2);

  const second = await ask('/down');
  assert.equal(second.code, 'attempts_exhausted');
  assert.equal(second.error, 'RetryError');
  assert.equal(second.attempts, 2);
  assert.deepEqual(second.restored, { restored: 1, reset: [] });
  assert.equal(second.breaker, 'open');
  assert.equal(upstream.hits('/down'), 2);

  // A new Policy in the next request: only the restored state knows the breaker is open.
  const third = await ask('/down');
  assert.equal(third.code, 'circuit_open');
  assert.equal(third.attempts, 0);
  assert.equal(third.breaker, 'open');
  assert.equal(upstream.hits('/down'), 2);
});
