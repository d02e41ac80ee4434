// A Node worker of the fleet run (tests/fleet/harness.py), the twin of
// worker.py: as a `caller` it GETs an always-failing URL through createFetch
// for a number of seconds; as an `observer` it makes one good call (so its
// policy knows the scope) and then only watches its breaker. Its policy is
// attached to Redis when asked; it prints the same JSON report as worker.py.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const require = createRequire(new URL('../../npm/package.json', import.meta.url));
const Redis = require('ioredis');
const { Policy, RetryError, createFetch } = await import('../../npm/dist/node.js');
const { FleetSync } = await import('../../npm/dist/redis.js');

/** Milliseconds between an observer's looks at its breaker. */
const WATCH_MS = 5;

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    redis: { type: 'string' },
    seconds: { type: 'string' },
    pause: { type: 'string' },
    interval: { type: 'string', default: '0.2' },
    role: { type: 'string', default: 'caller' },
    share: { type: 'boolean', default: false },
    config: { type: 'string' },
  },
});
const policy = new Policy(JSON.parse(readFileSync(values.config, 'utf8')));
const scope = new URL(values.url).host;
const exchanges = [];
let sync;
let client;
if (values.share) {
  // The README's ioredis settings: no offline queue, no retries per request,
  // short timeouts, a steady reconnect, and a connect that may fail (the
  // exchange attaches once the store answers).
  client = new Redis(values.redis, {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 500,
    commandTimeout: 500,
    retryStrategy: () => 200,
    lazyConnect: true,
  });
  client.on('error', () => {});
  await client.connect().catch(() => {});
  sync = new FleetSync(policy, client, { intervalMs: Number(values.interval) * 1000 });
  // Each exchange's wall-clock start and end, whether it worked, and whether
  // the breaker showed open once it had: the suite orders the processes'
  // exchanges with them. The state is read as the exchange ends, so a busy
  // machine delaying the watch loop cannot blur which exchange opened it.
  const exchange = sync.exchange.bind(sync);
  sync.exchange = async () => {
    const start = Date.now();
    const ok = await exchange();
    const opened = policy.breakerState(scope) === 'open';
    exchanges.push([start, Date.now(), ok ? 1 : 0, opened ? 1 : 0]);
    return ok;
  };
  await sync.start();
}
const fetchWithRetries = createFetch({ policy });
const report = { language: 'node', role: values.role, calls: 0, errors: 0 };
const health = [];
let openedAt = null;
if (values.role === 'observer') {
  const ok = await fetchWithRetries(values.url.replace(/\/[^/]*$/, '/ok'));
  if (!ok.ok) throw new Error(`the good call failed: ${ok.status}`);
  await ok.body?.cancel();
}
// Ready: attached to the store, and an observer's scope in use. The harness
// starts every worker's calls at once, on one "go" line, so a slow start-up
// shifts no worker against the others or against a staged outage.
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
await once(lines, 'line');
lines.close();
process.stdin.unref?.();
const pause = values.role === 'caller' ? Number(values.pause) * 1000 : WATCH_MS;
const end = performance.now() + Number(values.seconds) * 1000;
while (performance.now() < end) {
  if (values.role === 'caller') {
    try {
      const response = await fetchWithRetries(values.url);
      await response.body?.cancel();
    } catch (error) {
      // The engine's own give-up (circuit_open, budget_exhausted) is expected;
      // anything else reached the caller.
      if (!(error instanceof RetryError)) {
        report.errors += 1;
        report.error ??= String(error);
      }
    }
    report.calls += 1;
  }
  if (openedAt === null && policy.breakerState(scope) === 'open') openedAt = Date.now();
  const state = policy.fleetHealth();
  if (health.at(-1) !== state) health.push(state);
  await new Promise((r) => setTimeout(r, pause));
}
if (sync) await sync.close();
await client?.quit();
Object.assign(report, {
  exchange_failures: sync?.failures ?? 0,
  health,
  opened_at_ms: openedAt,
  exchanges,
});
console.log(JSON.stringify(report));
