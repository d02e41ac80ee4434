// axios with stoic's fetch: axios builds requests and judges statuses
// (returnFailedResponses hands it the last response), the engine retries. A
// local server answers a 503, then a 429 with Retry-After, then 201; the POST
// carries one Idempotency-Key, and this server deduplicates, so it is safe to
// repeat. Run: node examples/js_axios.mjs (after `make js-build`).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { createFetch, Policy } from '../npm/dist/node.js';

// axios is the npm package's dev dependency here; in an app, `import axios from 'axios'`.
const axios = createRequire(new URL('../npm/package.json', import.meta.url))('axios');

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

const fetch = createFetch({
  policy: new Policy({ backoff: { baseMs: 50, capMs: 500 } }),
  serverDeduplicates: true,
  returnFailedResponses: true,
});
const api = axios.create({ baseURL: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`, adapter: 'fetch', env: { fetch } });
const { data } = await api.post('/orders', { item: 'tea', qty: 2 });
console.log(`client got order ${data.id}`);
server.close();
