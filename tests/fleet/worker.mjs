// A Node worker of the fleet run (tests/fleet/harness.py): GETs an
// always-failing URL through createFetch for a number of seconds, its
// policy's budget shared through Redis when asked; prints its calls as JSON.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../npm/package.json', import.meta.url));
const Redis = require('ioredis');
const { Policy, createFetch } = await import('../../npm/dist/node.js');
const { FleetSync } = await import('../../npm/dist/redis.js');

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    redis: { type: 'string' },
    seconds: { type: 'string' },
    pause: { type: 'string' },
    share: { type: 'boolean', default: false },
    config: { type: 'string' },
  },
});
const config = JSON.parse(readFileSync(values.config, 'utf8'));
const policy = new Policy(config);
let sync;
let client;
if (values.share) {
  client = new Redis(values.redis, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
  client.on('error', () => {});
  await new Promise((resolve) => client.once('ready', resolve));
  sync = await new FleetSync(policy, client, { intervalMs: 200 }).start();
}
const fetchWithRetries = createFetch({ policy });
const pause = Number(values.pause) * 1000;
const end = performance.now() + Number(values.seconds) * 1000;
let calls = 0;
while (performance.now() < end) {
  try {
    const response = await fetchWithRetries(values.url);
    await response.body?.cancel();
  } catch {
    // The service always fails; only the count matters.
  }
  calls += 1;
  await new Promise((r) => setTimeout(r, pause));
}
if (sync) await sync.close();
client?.disconnect();
console.log(JSON.stringify({ language: 'node', calls, exchange_failures: sync?.failures ?? 0 }));
