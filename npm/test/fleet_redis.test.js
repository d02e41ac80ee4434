// The fleet exchange (`stoic/redis`) against a real redis-server on
// 127.0.0.1, started here on a free port (scripts/redis-tools.sh installs
// it), with a real ioredis client: policies share one retry floor, a store
// outage never reaches a call, a restart resyncs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Policy } from '../dist/node.js';
import { FleetSync } from '../dist/redis.js';

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
const mustRun = process.getuid?.() === 0 || process.env.CI === 'true';
const skip = !hasRedis && !mustRun && 'redis-server is not installed (scripts/redis-tools.sh)';

// No breaker: every call reaches the service. The ratio budget's only
// allowance is its floor, one retry per second over a 10 s window: 10
// retries per window, per process alone or for the fleet when shared.
const CONFIG = {
  seed: 1,
  maxAttempts: 3,
  breaker: null,
  backoff: { strategy: 'constant', baseMs: 10, capMs: 10 },
  budget: { ratio: { ratio: 0, minRetriesPerSec: 1, minConcurrentRetries: 0, windowMs: 10_000, buckets: 10 } },
};

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

let port;
let folder;
let server;
const clients = [];

async function startRedis() {
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    cwd: folder,
    stdio: 'ignore',
  });
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  for (let i = 0; i < 200; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error('redis-server did not start');
}

function stopRedis() {
  return new Promise((resolve) => {
    server.once('exit', resolve);
    server.kill('SIGKILL');
  });
}

/** A connected client that fails fast while the store is down and reconnects after. */
async function client() {
  const redis = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => 50 });
  redis.on('error', () => {});
  clients.push(redis);
  await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

before(async () => {
  if (skip) return;
  port = await freePort();
  folder = mkdtempSync(join(tmpdir(), 'stoic-redis-'));
  await startRedis();
});

after(async () => {
  for (const c of clients) c.disconnect();
  if (server && server.exitCode === null) await stopRedis();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** One call whose every attempt gets a 503: the attempts it made. */
function failingCall(policy, now) {
  const call = policy.start({ operation: 'get', scope: 'api', idempotent: true }, now);
  let attempts = 0;
  let t = now;
  for (;;) {
    if (call.beforeAttempt(t).kind !== 'proceed') break;
    attempts += 1;
    const decision = call.onOutcome({ kind: 'status', status: 503 }, t + 1);
    if (decision.kind !== 'retry') break;
    t += 1 + decision.delayMs;
  }
  call.close();
  return attempts;
}

async function run(shared) {
  const clocks = [0, 1, 2, 3].map(() => ({ t: 1_000_000 }));
  const policies = clocks.map(() => new Policy(CONFIG));
  const syncs = [];
  for (const [i, p] of policies.entries()) {
    syncs.push(new FleetSync(p, await client(), { prefix: `t${shared}:`, now: () => clocks[i].t }));
  }
  if (shared) for (const s of syncs) assert.equal(await s.exchange(), true);
  let attempts = 0;
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 4; i++) {
      clocks[i].t += 100;
      attempts += failingCall(policies[i], clocks[i].t);
      if (shared) assert.equal(await syncs[i].exchange(), true);
    }
  }
  return attempts - 4 * 50;
}

test('four processes share one retry floor through Redis', { skip }, async () => {
  assert.equal(await run(false), 40);
  const shared = await run(true);
  // One floor for the fleet, plus what the view's lag lets through.
  assert.ok(shared >= 10 && shared <= 16, `the fleet retried ${shared} times`);
});

test('a store outage never reaches a call, and a restart resyncs', { skip }, async () => {
  const clock = { t: 5_000_000 };
  const errors = [];
  const policy = new Policy(CONFIG);
  const sync = new FleetSync(policy, await client(), { now: () => clock.t, onError: (e) => errors.push(e) });
  assert.equal(await sync.exchange(), true);
  assert.equal(sync.health(), 'live');

  await stopRedis();
  clock.t += 1000;
  assert.equal(failingCall(policy, clock.t), 3); // decisions go on, locally
  assert.equal(await sync.exchange(), false);
  assert.ok(errors.length >= 1);
  clock.t += 6000;
  assert.equal(sync.health(), 'stale');

  await startRedis();
  let ok = false;
  for (let i = 0; i < 100 && !ok; i++) {
    ok = await sync.exchange();
    if (!ok) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(ok, true, 'the exchange came back');
  assert.equal(await sync.exchange(), true);
  assert.equal(sync.health(), 'live');
  const redis = await client();
  const keys = await redis.keys('stoic:fleet:{api}:b:*');
  let requests = 0;
  let retries = 0;
  for (const key of keys) {
    const h = await redis.hgetall(key);
    requests += Number(h.r ?? 0);
    retries += Number(h.t ?? 0);
  }
  // The restarted store holds the call made during the outage, once.
  assert.deepEqual([requests, retries], [1, 2]);
});

test('start() runs the exchange on a timer that does not hold the process', { skip }, async () => {
  const policy = new Policy(CONFIG);
  const sync = await new FleetSync(policy, await client(), { intervalMs: 20 }).start();
  failingCall(policy, policy.now());
  for (let i = 0; i < 250 && sync.exchanges < 3; i++) await new Promise((r) => setTimeout(r, 10));
  await sync.close();
  assert.ok(sync.exchanges >= 3);
  assert.equal(sync.failures, 0);
  const other = await client();
  assert.throws(() => new FleetSync(policy, other, { intervalMs: 0 }), { code: 'out_of_range', field: 'intervalMs' });
});

test('a breaker that opens is sent at once, not at the next interval', { skip }, async () => {
  const config = {
    seed: 1,
    maxAttempts: 1,
    budget: { ratio: null },
    breaker: { trip: { kind: 'consecutive_failures', threshold: 2 }, cooldownMs: 1000, halfOpen: { maxProbes: 1, successThreshold: 1 } },
  };
  const a = new Policy(config);
  const b = new Policy(config);
  const seen = b.start({ operation: 'get', scope: 'api', idempotent: true });
  seen.beforeAttempt();
  seen.onOutcome({ kind: 'success' });
  const syncB = new FleetSync(b, await client());
  assert.equal(await syncB.exchange(), true);
  const syncA = await new FleetSync(a, await client(), { intervalMs: 60_000 }).start();
  assert.equal(syncA.exchanges, 1);
  for (let i = 0; i < 2; i++) {
    const call = a.start({ operation: 'get', scope: 'api', idempotent: true });
    call.beforeAttempt();
    call.onOutcome({ kind: 'status', status: 503 });
  }
  assert.equal(a.breakerState('api'), 'open');
  for (let i = 0; i < 250 && syncA.exchanges < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(syncA.exchanges, 2, 'the trip went out within moments, not in 60 s');
  assert.equal(await syncB.exchange(), true);
  assert.equal(b.breakerState('api'), 'open');
  await syncA.close();
});

const BREAKER = {
  seed: 1,
  maxAttempts: 1,
  budget: { ratio: null },
  breaker: { trip: { kind: 'consecutive_failures', threshold: 2 }, cooldownMs: 1000, halfOpen: { maxProbes: 1, successThreshold: 1 } },
};

/** A call that gets a 503, or a success. */
function once(policy, outcome) {
  const call = policy.start({ operation: 'get', scope: 'api', idempotent: true });
  const admitted = call.beforeAttempt().kind === 'proceed';
  if (admitted) call.onOutcome(outcome);
  call.close();
  return admitted;
}

test('an idle process hears of the fleet without a call', { skip }, async () => {
  const heard = [];
  const a = new Policy(BREAKER);
  const b = new Policy({ ...BREAKER, onEvent: (event) => heard.push(event) });
  once(b, { kind: 'success' });
  heard.length = 0; // what B's own call queued is not what this test is about
  const syncA = new FleetSync(a, await client(), { prefix: 'idle:' });
  const syncB = new FleetSync(b, await client(), { prefix: 'idle:' });
  assert.equal(await syncA.exchange(), true);
  assert.equal(await syncB.exchange(), true);
  once(a, { kind: 'status', status: 503 });
  once(a, { kind: 'status', status: 503 });
  assert.equal(await syncA.exchange(), true);
  assert.equal(await syncB.exchange(), true);
  // B made no call since: the exchange itself handed its events to onEvent.
  assert.deepEqual(
    heard.map((e) => [e.kind, e.to, e.reason]),
    [
      ['fleet_health', 'live', undefined],
      ['breaker_transition', 'open', 'fleet_opened'],
      ['alert_changed', 'critical', undefined], // "Implementing Smart Retry Logic for Transient Errors": a breaker open is critical
    ],
  );
  assert.equal(syncB.health(), 'live');
});

test('a failing store is not asked again at once', { skip }, async () => {
  const a = new Policy(BREAKER);
  once(a, { kind: 'success' });
  const redis = await client();
  const sync = await new FleetSync(a, redis, { intervalMs: 60_000, prefix: 'failing:' }).start();
  assert.equal(sync.failures, 0);
  await stopRedis();
  try {
    // The first exchange after the loss fails; a trip is news, sent at once
    // when the store answers, but while it fails news waits for the interval.
    assert.equal(await sync.exchange(), false);
    once(a, { kind: 'status', status: 503 });
    once(a, { kind: 'status', status: 503 });
    assert.equal(a.breakerState('api'), 'open');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(sync.failures, 1, 'not asked every 50 ms');
  } finally {
    await startRedis();
  }
  await sync.close();
});
