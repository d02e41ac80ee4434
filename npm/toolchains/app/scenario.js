// What every built app runs: a fetch through stoic against a flaky local
// endpoint (503, then 200) and a retry() of a function that fails once.
export async function scenario(stoic, url) {
  const { createFetch, Policy, retry } = stoic;
  const policy = new Policy({ backoff: { strategy: 'constant', baseMs: 1, capMs: 1 } });
  const fetchWithRetries = createFetch({ policy });
  const response = await fetchWithRetries(url);
  const attempts = await retry(
    (attempt) => {
      if (attempt.attempt === 1) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
      return attempt.attempt;
    },
    { policy, sleep: async () => {} },
  );
  return { status: response.status, body: await response.text(), attempts };
}
