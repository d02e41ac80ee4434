// A typed tour of the package, checked by `tsc --noEmit` in CI (make lint-js):
// decisions and outcomes are discriminated unions on `kind`, so narrowing
// works without casts and a misspelled code is a compile error.
import {
  createFetch,
  idempotencyKey,
  Policy,
  retry,
  RetryError,
  type Decision,
  type Outcome,
  type StoicEvent,
} from 'stoic';

const policy = new Policy({
  maxAttempts: 4,
  backoff: { strategy: 'full_jitter', baseMs: 200, capMs: 5_000 },
  timeouts: { readMs: 2_000, totalMs: 20_000 },
  breaker: { trip: { kind: 'consecutive_failures', threshold: 5 }, cooldownMs: 30_000 },
  logRecords: true,
  onEvent: (event: StoicEvent) => {
    if (event.kind === 'log') console.log(event.record.line);
    if (event.kind === 'breaker_transition') console.warn(`${event.scope}: ${event.from} -> ${event.to}`);
  },
});

// 1. retry() around any async function.
export async function loadProfile(id: string): Promise<{ id: string }> {
  return retry(
    async (attempt) => {
      const response = await fetch(`https://api.example.com/profiles/${id}`, { signal: attempt.signal });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return (await response.json()) as { id: string };
    },
    { policy, scope: 'api.example.com', operation: 'load_profile' },
  );
}

// 2. fetch with retries, an idempotency key for the POST, and a body check.
const fetchWithRetries = createFetch({
  policy,
  validate: async (response) => {
    const body = (await response.clone().json()) as { error?: string };
    return body.error ? { class: 'transient', detail: body.error } : undefined;
  },
});

export async function createOrder(runId: string, sku: string): Promise<Response | string> {
  try {
    return await fetchWithRetries('https://api.example.com/orders', {
      method: 'POST',
      body: JSON.stringify({ sku }),
      idempotencyKey: idempotencyKey(runId, 'create_order', { sku }),
    });
  } catch (error) {
    if (error instanceof RetryError) {
      // A stable code and an observation a caller (or an agent) can act on.
      return `${error.code} after ${error.attempts} attempts: ${error.observation}`;
    }
    throw error;
  }
}

// 3. The low-level loop, for hosts with their own I/O.
export function decide(outcome: Outcome): number {
  const call = policy.start({ operation: 'manual', method: 'GET' });
  try {
    const admission = call.beforeAttempt();
    if (admission.kind === 'reject') return -1;
    const decision: Decision = call.onOutcome(outcome);
    switch (decision.kind) {
      case 'done':
        return 0;
      case 'retry':
        return decision.delayMs;
      case 'give_up':
        return decision.reason === 'not_retryable' ? -2 : -3;
    }
  } finally {
    call.close();
  }
}
