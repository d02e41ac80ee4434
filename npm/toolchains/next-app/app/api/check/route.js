// A route handler: createFetch against `?target=` (503, then 200).
import { createFetch, Policy } from 'stoic';

export const dynamic = 'force-dynamic';

export async function GET(request) {
  const target = new URL(request.url).searchParams.get('target');
  const policy = new Policy({ backoff: { strategy: 'constant', baseMs: 1, capMs: 1 } });
  const response = await createFetch({ policy })(target);
  return Response.json({ status: response.status, body: await response.text() });
}
