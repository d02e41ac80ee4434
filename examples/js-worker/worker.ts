// An edge worker (Cloudflare Workers / workerd): the policy's shared state
// (breakers, budgets) lives in KV between requests, since any request may
// run in a fresh isolate. Build the Policy inside the handler: workers may
// not draw random numbers (the jitter seed) at global scope.
import { createFetch, Policy } from 'stoic';

interface KV {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
}

export default {
  async fetch(request: Request, env: { STATE: KV }): Promise<Response> {
    const policy = new Policy({ maxAttempts: 3, timeouts: { totalMs: 10_000 } });
    const saved = await env.STATE.get('stoic');
    if (saved !== null) policy.restore(saved);
    const fetchWithRetries = createFetch({ policy });
    try {
      return await fetchWithRetries(new URL(new URL(request.url).pathname, 'https://origin.example.com'));
    } finally {
      await env.STATE.put('stoic', policy.snapshot());
    }
  },
};
