// POSTs JSON bodies through the npm package's createFetch, with its
// defaults unless the options say otherwise, and prints what each POST
// ended with as JSON. Usage:
//   node post_client.mjs URL '{"serverDeduplicates": true}' '[{"path": "/orders?fault=lost_ack", "body": {...}}]'
import { createFetch, Policy, RetryError } from '../../npm/dist/node.js';

const [url, optionsText, postsText] = process.argv.slice(2);
const options = JSON.parse(optionsText);
const posts = JSON.parse(postsText);
// Fast backoff and a short read timeout keep the run short; every safety
// default (keys, serverDeduplicates, the classification) is the package's.
const policy = new Policy({
  seed: 5,
  timeouts: { readMs: 400 },
  backoff: { strategy: 'exponential', baseMs: 10, capMs: 50 },
});
const fetch = createFetch({ policy, ...options });
const results = [];
for (const { path, body } of posts) {
  try {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    results.push({ status: response.status });
  } catch (error) {
    results.push({ code: error instanceof RetryError ? error.code : String(error) });
  }
}
console.log(JSON.stringify(results));
