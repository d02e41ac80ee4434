// The edge worker the workerd suite runs: each request builds a fresh
// Policy (a new isolate may serve it), restores the shared state from
// storage, fetches the upstream through stoic, and saves the state again.
import { createFetch, Policy } from 'stoic';

const CONFIG = {
  maxAttempts: 2,
  backoff: { strategy: 'constant', baseMs: 5, capMs: 5 },
  budget: { ratio: null },
  breaker: { trip: { kind: 'consecutive_failures', threshold: 2 }, cooldownMs: 600000 },
};

const STATE = 'http://store/state.json';

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/__ready') return new Response('ready');
    const upstream = url.searchParams.get('upstream');
    const policy = new Policy(CONFIG);
    const saved = await env.STORE.fetch(STATE);
    const restored = saved.ok ? policy.restore(await saved.text()) : null;
    const fetchWithRetries = createFetch({ policy, scope: () => 'upstream' });
    let result;
    try {
      const response = await fetchWithRetries(upstream + url.pathname);
      result = { status: response.status, body: await response.text() };
    } catch (e) {
      result = { error: e.name, code: e.code, attempts: e.attempts };
    }
    const put = await env.STORE.fetch(STATE, { method: 'PUT', body: policy.snapshot() });
    if (!put.ok) return new Response(`storage refused the state: ${put.status}`, { status: 500 });
    return Response.json({ ...result, restored, breaker: policy.breakerState('upstream') });
  },
};
