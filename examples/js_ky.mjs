// ky with stoic's fetch: ky builds the requests and parses the answers, the
// engine retries (ky's own retry and timeout off). A local server answers a
// 503, then a 429 with Retry-After, then 201; the POST carries one
// Idempotency-Key, and this server deduplicates, so it is safe to repeat.
// Run: node examples/js_ky.mjs (after `make js-build`).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { createFetch, Policy } from '../npm/dist/node.js';

// ky is the npm package's dev dependency here; in an app, `import ky from 'ky'`.
const ky = (await import(createRequire(new URL('../npm/package.json', import.meta.url)).resolve('ky'))).default;

/** @type {[number, Record<string, string>][]} */
const replies = [[503, {}], [429, { 'retry-after': '1' }], [201, {}]];
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const [status, headers] = replies.shift() ?? [201, {}];
    console.log(`  server: ${req.method} key=${req.headers['idempotency-key']} -> ${status}`);
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(status === 201 ? '{"id":7}' : '{}');
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));

const fetch = createFetch({ policy: new Policy({ backoff: { baseMs: 50, capMs: 500 } }), serverDeduplicates: true });
const api = ky.create({ prefixUrl: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`, fetch, retry: 0, timeout: false });
const order = await api.post('orders', { json: { item: 'tea', qty: 2 } }).json();
console.log(`client got order ${order.id}`);
server.close();
