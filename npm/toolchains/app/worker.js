// A Cloudflare Worker as users write it, built by wrangler; `?target=` is
// the flaky endpoint to call.
import { createFetch, Policy, retry } from 'stoic';
import { scenario } from './scenario.js';

export default {
  async fetch(request) {
    const target = new URL(request.url).searchParams.get('target');
    return Response.json(await scenario({ createFetch, Policy, retry }, target));
  },
};
