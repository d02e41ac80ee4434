// Prometheus with stoic/prometheus: a flaky inventory call retried twice,
// then a scrape of a /metrics endpoint served on 127.0.0.1 from prom-client's
// registry. Run: node examples/js_prometheus.mjs (after `make js-build`).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { Policy, retry } from '../npm/dist/node.js';
import { registerMetrics } from '../npm/dist/prometheus.js';

// prom-client is the npm package's dev dependency here; in an app, import it.
const { Registry } = createRequire(new URL('../npm/package.json', import.meta.url))('prom-client');

const policy = new Policy({ backoff: { baseMs: 10, capMs: 50 } });
const registry = new Registry();
registerMetrics(policy, registry);

const server = createServer(async (req, res) => {
  res.setHeader('content-type', registry.contentType);
  res.end(await registry.metrics());
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));

const failures = [Object.assign(new Error('reset'), { code: 'ECONNRESET' }), Object.assign(new Error('slow'), { code: 'ETIMEDOUT' })];
const stock = await retry(
  () => {
    const failure = failures.shift();
    if (failure) throw failure;
    return 7;
  },
  { policy, scope: 'inventory' },
);
console.log(`stock: ${stock}`);

const text = await (await fetch(`http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/metrics`)).text();
for (const line of text.split('\n')) {
  if (line.startsWith('stoic_retry_total') || line.startsWith('stoic_retry_duration_seconds_count')) console.log(line);
}
server.close();
policy.free();
