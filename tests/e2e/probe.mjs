// Deterministic failures through the npm package's fetch wrapper: an
// invalid Idempotency-Key (400), an unknown path (404) and an unknown order
// (404). Prints their statuses as JSON; the suite checks the server saw
// each exactly once. Usage: node probe.mjs URL
import { createFetch, Policy } from '../../npm/dist/node.js';

const url = process.argv[2];
// The wrapper throws a RetryError carrying the final response when a call
// fails; the status is what this probe reports.
const statusOf = (call) => call.then((r) => r.status, (e) => e.response?.status ?? e.code);
const stoicFetch = createFetch({ policy: new Policy({ seed: 1 }) });
const post = (path, headers = {}) =>
  stoicFetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ order_ref: 'x' }),
  });

const statuses = {
  400: await statusOf(post('/orders', { 'Idempotency-Key': '' })),
  404: await statusOf(post('/nowhere')),
  '404_get': await statusOf(stoicFetch(`${url}/orders/17`)),
};
console.log(JSON.stringify(statuses));
