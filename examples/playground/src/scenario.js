// @ts-check
/**
 * The playground's simulation: N virtual clients share one stoic `Policy`
 * and call one virtual server, on virtual time. Nothing here sleeps or reads
 * a clock: the engine is sans-IO, so every `now` it sees is the simulation's
 * and a run of a minute of traffic takes milliseconds. The same seed gives
 * the same run, which is what lets the test compare the page (the browser
 * build, in a Web Worker) with Node (the Node build of the same package).
 *
 * The stoic module is a parameter, not an import: the Worker passes the
 * browser entry, Node passes its own, and this file runs unchanged in both.
 */

/**
 * The scenarios, their parameters and defaults (the form is built from this).
 * @type {Record<string, { label: string, method: 'GET' | 'POST', params: Record<string, Param> }>}
 */
export const SCENARIOS = {
  failing: {
    label: 'A server failing a share of calls (503)',
    method: 'GET',
    params: {
      failShare: { label: 'share of calls failing (503)', value: 0.3 },
      invalidShare: { label: 'share answered 422 (never retried)', value: 0.02 },
    },
  },
  outage: {
    label: 'An outage of N seconds (503 throughout)',
    method: 'GET',
    params: {
      outageStartS: { label: 'outage starts at (s)', value: 2 },
      outageS: { label: 'outage length (s)', value: 5 },
    },
  },
  rate_limit: {
    label: '429 with Retry-After above a rate limit',
    method: 'GET',
    params: {
      limitPerS: { label: 'requests allowed per second', value: 30 },
      retryAfterS: { label: 'Retry-After (s)', value: 2 },
    },
  },
  lost_ack: {
    label: 'Lost acknowledgement on a POST (applied, then the connection drops)',
    method: 'POST',
    params: {
      lostShare: { label: 'share of answers lost', value: 0.2 },
      keyed: { label: 'send an idempotency key', value: 1, options: { 1: 'yes', 0: 'no' } },
    },
  },
};

/**
 * What every scenario shares: the fleet and the server. A parameter with
 * `options` is a choice (a select), its values numbers like the rest.
 * @typedef {{ label: string, value: number, options?: Record<number, string> }} Param
 */

/** @type {Record<string, Param>} */
export const COMMON = {
  clients: { label: 'clients', value: 20 },
  calls: { label: 'calls per client', value: 20 },
  intervalMs: { label: 'a client starts a call every (ms)', value: 500 },
  latencyMs: { label: 'server latency (ms)', value: 50 },
  capacityPerS: { label: 'server capacity (attempts/s, 503 above)', value: 60 },
  seed: { label: 'seed', value: 7 },
};

/** The default scenario: what the page runs on load and the test compares. */
export function defaultScenario() {
  return { kind: 'failing', ...valuesOf(COMMON), ...valuesOf(SCENARIOS.failing.params) };
}

/** @param {Record<string, Param>} params */
export function valuesOf(params) {
  return Object.fromEntries(Object.entries(params).map(([k, p]) => [k, p.value]));
}

/** Unix ms of virtual time 0: log records' timestamps are virtual too, so runs repeat to the byte. */
export const WALL_EPOCH_MS = Date.UTC(2026, 0, 1);

/** A run stops here whatever the config asks (a policy with no deadline and 10^6 attempts). */
const MAX_ATTEMPTS_IN_RUN = 50_000;

/**
 * Mulberry32: a small seeded generator, so the server's faults and
 * latencies are the same on every run with the same seed (the engine's
 * jitter has its own seed, the config's).
 * @param {number} seed
 */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Events in time order; ties in the order they were scheduled (deterministic). */
class Agenda {
  /** @type {{ at: number, seq: number, run: () => void }[]} */
  heap = [];
  seq = 0;

  /** @param {number} at @param {() => void} run */
  add(at, run) {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, run });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i], heap[parent])) break;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  }

  take() {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l], heap[m])) m = l;
        if (r < heap.length && before(heap[r], heap[m])) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    }
    return top;
  }
}

/** @param {{ at: number, seq: number }} a @param {{ at: number, seq: number }} b */
function before(a, b) {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * The virtual server. It answers each attempt when it arrives (the answer
 * reaches the client `latency` later), counts attempts per second against
 * its capacity (503 above it: retries that overload a server are answered
 * as they would be), and for writes records what it applied, so duplicates
 * are counted where they happen: at the server.
 */
class Server {
  /** @param {Record<string, any>} s @param {() => number} random */
  constructor(s, random) {
    this.s = s;
    this.random = random;
    /** @type {number[]} attempts arriving in each second */
    this.perSecond = [];
    /** @type {Map<string, number>} how many times each logical write was applied */
    this.applied = new Map();
    /** @type {Set<string>} keys whose write is stored (replayed on a repeat) */
    this.keys = new Set();
  }

  /**
   * @param {number} at
   * @param {{ op: string, key: string | null }} request
   * @returns {{ latencyMs: number, outcome: any, label: string }}
   */
  receive(at, request) {
    const s = this.s;
    const second = Math.floor(at / 1000);
    const load = (this.perSecond[second] ?? 0) + 1;
    this.perSecond[second] = load;
    const latencyMs = Math.round(s.latencyMs * (0.5 + this.random()));
    const wall = WALL_EPOCH_MS + at;
    if (load > s.capacityPerS) {
      return { latencyMs: 1, label: 'overloaded', outcome: status(503, wall, {}, 'overloaded: over capacity') };
    }
    switch (s.kind) {
      case 'failing':
      {
        const draw = this.random();
        if (draw < s.failShare) return { latencyMs, label: '503', outcome: status(503, wall, {}, 'unavailable') };
        if (draw < s.failShare + s.invalidShare) {
          return { latencyMs, label: '422', outcome: status(422, wall, {}, '{"error":"quantity must be at least 1"}') };
        }
        break;
      }
      case 'outage': {
        const start = s.outageStartS * 1000;
        if (at >= start && at < start + s.outageS * 1000) {
          return { latencyMs: 1, label: '503', outcome: status(503, wall, {}, 'outage') };
        }
        break;
      }
      case 'rate_limit':
        if (load > s.limitPerS) {
          const headers = { 'retry-after': String(s.retryAfterS) };
          return { latencyMs: 1, label: '429', outcome: status(429, wall, headers, 'rate limited') };
        }
        break;
      case 'lost_ack': {
        // A repeat of a stored key is replayed, not applied again.
        if (request.key !== null && this.keys.has(request.key)) break;
        this.applied.set(request.op, (this.applied.get(request.op) ?? 0) + 1);
        if (request.key !== null) this.keys.add(request.key);
        if (this.random() < s.lostShare) {
          return { latencyMs, label: 'lost ack', outcome: { kind: 'network', network: 'reset_after_send', detail: 'connection reset after the request was sent' } };
        }
        break;
      }
      default:
        throw new Error(`unknown scenario: ${s.kind}`);
    }
    return { latencyMs, label: 'ok', outcome: { kind: 'success' } };
  }
}

/** @param {number} code @param {number} wall @param {Record<string, string>} headers @param {string} detail */
function status(code, wall, headers, detail) {
  return { kind: 'status', status: code, headers, wallNowMs: wall, detail };
}

/**
 * Runs a scenario. `stoic` is the package's module (any entry);
 * `config` the policy's config in the JavaScript dialect; the run adds
 * `logRecords: true` (the page shows the records) and, when the config
 * has none, the scenario's seed.
 *
 * @param {{ Policy: any }} stoic
 * @param {Record<string, any>} config
 * @param {Record<string, any>} scenario
 */
export function simulate(stoic, config, scenario) {
  const spec = SCENARIOS[scenario.kind];
  if (spec === undefined) throw new Error(`unknown scenario: ${scenario.kind}`);
  const s = { ...valuesOf(COMMON), ...valuesOf(spec.params), ...scenario };
  const random = generator(s.seed);
  const server = new Server(s, random);
  const agenda = new Agenda();
  let now = 0;

  /** @type {string[]} */
  const logs = [];
  /** @type {{ at: number, from: string, to: string, reason: string }[]} */
  const transitions = [];
  const policy = new stoic.Policy({
    seed: s.seed,
    ...config,
    logRecords: true,
    now: () => now,
    wallNow: () => WALL_EPOCH_MS + now,
    onEvent: (/** @type {any} */ event) => {
      if (event.kind === 'log') logs.push(event.record.line);
      else if (event.kind === 'breaker_transition') transitions.push({ at: now, from: event.from, to: event.to, reason: event.reason });
    },
  });

  /** @type {{ client: number, call: number, attempt: number, start: number, end: number, label: string }[]} */
  const attempts = [];
  /** @type {{ client: number, call: number, start: number, end: number, attempts: number, result: string }[]} */
  const calls = [];
  /** @type {Record<string, string>} the first observation the engine wrote for each way a call ended */
  const observations = {};
  /** @type {{ t: number, state: string }[]} */
  const breaker = [];
  /** @type {{ t: number, balance: number, allowed: number, retries: number }[]} */
  const budget = [];
  let stopped = false;

  /** The breaker and the budget after each step, where they changed. */
  const sample = () => {
    const state = policy.breakerState('api') ?? 'none';
    if (breaker.length === 0 || breaker[breaker.length - 1].state !== state) breaker.push({ t: now, state });
    const ratio = policy.budgetStatus('api', now)?.ratio;
    if (ratio) {
      const last = budget[budget.length - 1];
      const balance = ratio.maxRetries - ratio.retries;
      if (!last || last.balance !== balance || last.allowed !== ratio.maxRetries) {
        budget.push({ t: now, balance, allowed: ratio.maxRetries, retries: ratio.retries });
      }
    }
  };

  /** @param {number} client @param {number} index */
  const startCall = (client, index) => {
    const op = `c${client}-${index}`;
    const keyed = spec.method === 'POST' && Boolean(s.keyed);
    const key = keyed ? `order-${op}` : null;
    const call = policy.start(
      { operation: spec.method === 'POST' ? 'create_order' : 'get_item', scope: 'api', method: spec.method, ...(key ? { idempotencyKey: key } : {}) },
      now,
    );
    const record = { client, call: index, start: now, end: now, attempts: 0, result: '' };
    /** @type {(result: string, observation?: string) => void} */
    const end = (result, observation) => {
      if (observation !== undefined) observations[result] ??= observation;
      record.end = now;
      record.result = result;
      calls.push(record);
      call.close();
    };
    const attempt = () => {
      const admission = call.beforeAttempt(now);
      if (admission.kind === 'reject') return end(admission.reason, admission.observation);
      if (attempts.length >= MAX_ATTEMPTS_IN_RUN) {
        stopped = true;
        call.cancel(now);
        return end('cancelled');
      }
      record.attempts += 1;
      const sentAt = now;
      const answer = server.receive(now, { op, key });
      const timeout = admission.timeoutMs ?? Infinity;
      const late = answer.latencyMs > timeout;
      const mark = { client, call: index, attempt: admission.attempt, start: sentAt, end: 0, label: late ? 'timeout' : answer.label };
      attempts.push(mark);
      const outcome = late ? { kind: 'network', network: 'read_timeout', detail: 'no answer within the attempt timeout' } : answer.outcome;
      agenda.add(sentAt + Math.min(answer.latencyMs, timeout), () => {
        mark.end = now;
        const decision = call.onOutcome(outcome, now);
        if (decision.kind === 'done') end('success');
        else if (decision.kind === 'retry') agenda.add(now + decision.delayMs, attempt);
        else end(decision.reason, decision.observation);
      });
    };
    attempt();
  };

  // Open loop: each client starts its calls on its own schedule, whether or
  // not the last one ended (as a fleet's traffic arrives), a little apart.
  for (let client = 0; client < s.clients; client++) {
    const offset = Math.floor(random() * s.intervalMs);
    for (let index = 0; index < s.calls; index++) {
      agenda.add(offset + index * s.intervalMs, () => startCall(client, index));
    }
  }
  sample();
  while (agenda.heap.length > 0) {
    const event = agenda.take();
    now = event.at;
    event.run();
    sample();
  }
  policy.free();

  return {
    scenario: s,
    method: spec.method,
    endMs: now,
    stopped,
    attempts,
    calls,
    breaker,
    budget,
    transitions,
    logs,
    observations,
    load: seconds(server.perSecond),
    summary: summarize(s, calls, attempts, server, transitions, now),
  };
}

/**
 * The summary table's numbers. Plain numbers and counts only: the test
 * compares the page's summary with Node's for equality.
 * @param {Record<string, any>} s
 * @param {{ start: number, end: number, attempts: number, result: string }[]} calls
 * @param {unknown[]} attempts
 * @param {Server} server
 * @param {{ to: string }[]} transitions
 * @param {number} endMs
 */
function summarize(s, calls, attempts, server, transitions, endMs) {
  const succeeded = calls.filter((c) => c.result === 'success');
  const times = succeeded.map((c) => c.end - c.start).sort((a, b) => a - b);
  /** @type {Record<string, number>} */
  const endings = {};
  for (const c of calls) endings[c.result] = (endings[c.result] ?? 0) + 1;
  const perCall = calls.map((c) => c.attempts);
  let duplicates = 0;
  for (const n of server.applied.values()) duplicates += Math.max(0, n - 1);
  return {
    calls: calls.length,
    attempts: attempts.length,
    attemptsPerCall: calls.length === 0 ? 0 : round(attempts.length / calls.length, 3),
    maxAttemptsInACall: Math.max(0, ...perCall),
    succeeded: succeeded.length,
    successRate: calls.length === 0 ? 0 : round(succeeded.length / calls.length, 4),
    timeToSuccessMs: { p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: times.at(-1) ?? null },
    endings,
    writesApplied: [...server.applied.values()].reduce((a, b) => a + b, 0),
    duplicates,
    peakLoadPerS: Math.max(0, ...seconds(server.perSecond)),
    capacityPerS: s.capacityPerS,
    breakerOpened: transitions.filter((t) => t.to === 'open').length,
    virtualMs: endMs,
  };
}

/**
 * Attempts per second with 0 for the seconds nobody called in: the array
 * has holes there (an open breaker sends nothing), which `map` keeps.
 * @param {number[]} perSecond
 */
function seconds(perSecond) {
  return Array.from(perSecond, (n) => n ?? 0);
}

/** @param {number[]} sorted @param {number} q */
function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** @param {number} x @param {number} digits */
function round(x, digits) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
