// A page rendered on the server per request: retry() inside a server component.
import { retry } from 'stoic';

export const dynamic = 'force-dynamic';

export default async function Page() {
  const attempts = await retry(
    (attempt) => {
      if (attempt.attempt === 1) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
      return attempt.attempt;
    },
    { sleep: async () => {} },
  );
  return <p id="result">attempts={attempts}</p>;
}
