/**
 * Demo client (JavaScript): submits the batch of `batch.json` to the orders
 * server through stoic's `createFetch`, and proves nothing is lost. The twin
 * of `client.py`: the same engine, config, keys, outbox and output, so the
 * two runs can be compared line by line.
 *
 * Every order carries an idempotency key derived from its content
 * (`idempotencyKey`, the same key `stoic.idempotency_key` gives in Python),
 * so any repeat, by a retry or by a later pass, is the same logical
 * operation. Calls that stoic stops for a reason that can clear (attempts
 * exhausted, breaker open, budget refused, deadline) go back to an outbox
 * and are sent again, with the same key, in the next pass, once the
 * breaker's cooldown is over: at-least-once delivery on the wire,
 * exactly-once on the server. Invalid orders are not repeated; their
 * observation (what stoic tells a caller, or an agent, about a
 * deterministic failure) is printed instead.
 *
 * As it goes it prints each decision in the seed 001 log format and a
 * progress line; at the end a summary (`--json PATH` writes it as JSON).
 * Run from the repository (after `make js-build`):
 * `node examples/orders/client.mjs http://127.0.0.1:PORT`.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { createFetch, idempotencyKey, Policy, RetryError } from '../../npm/dist/node.js';

const BATCH = new URL('./batch.json', import.meta.url);

/** Stop reasons that can clear with time: the order goes back to the outbox. */
const DEFERRED = new Set([
  'attempts_exhausted',
  'budget_exhausted',
  'circuit_open',
  'deadline_exceeded',
  'retry_after_exceeds_deadline',
  'shutting_down',
]);

/**
 * Seconds on the system-wide monotonic clock (Python's `time.monotonic()`
 * on Linux), so `drained_at` compares with the server's times.
 */
const monotonic = () => Number(process.hrtime.bigint()) / 1e9;

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `extra` laid over `base`, section by section (null removes).
 * @param {Record<string, any>} base
 * @param {Record<string, any>} extra
 * @returns {Record<string, any>}
 */
export function merge(base, extra) {
  const out = { ...base };
  for (const [name, value] of Object.entries(extra)) {
    out[name] = isObject(value) && isObject(out[name]) ? merge(out[name], value) : value;
  }
  return out;
}

/**
 * How one order's call ended.
 * @typedef {object} Settled
 * @property {string} orderRef
 * @property {string} key
 * @property {'created'|'replayed'|'invalid'|'deferred'|'failed'|'unsent'} outcome
 * @property {string|null} reason
 * @property {string|null} observation
 * @property {number} elapsed seconds
 * @property {number} attempts
 * @property {number|null} retryAt seconds on `monotonic()`
 */

/** @returns {Settled} */
function settled(orderRef, key, outcome, reason = null, observation = null, elapsed = 0, attempts = 0, retryAt = null) {
  return { orderRef, key, outcome, reason, observation, elapsed, attempts, retryAt };
}

/**
 * A 200 whose body says `"ok": false` failed, whatever its status.
 * @param {Response} response
 * @returns {Promise<import('../../npm/dist/index.js').Rejection | undefined>}
 */
async function okBody(response) {
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('json')) return undefined;
  const body = await response.clone().json();
  if (!(isObject(body) && body.ok === false)) return undefined;
  return { class: 'transient', detail: `rejected result: 200 ${JSON.stringify(body)}`.slice(0, 300) };
}

/** One client run: the batch, in passes, until nothing is left to retry. */
export class OrdersClient {
  /**
   * @param {string} url
   * @param {string} name
   * @param {{overrides?: object, drainAfter?: number|null, only?: Set<string>|null,
   *          concurrency?: number|null, passes?: number|null, out?: (line: string) => void}} [options]
   */
  constructor(
    url,
    name,
    { overrides = {}, drainAfter = null, only = null, concurrency = null, passes = null, out = console.log } = {},
  ) {
    const doc = JSON.parse(readFileSync(BATCH, 'utf8'));
    this.url = url;
    this.name = name;
    this.out = out;
    this.orders = doc.orders
      .filter((order) => only === null || only.has(order.order_ref))
      .map((order) => ({ ...order, client: name }));
    this.maxPasses = passes || Number(doc.max_passes);
    this.concurrency = concurrency || Number(doc.concurrency);
    this.drainAfter = drainAfter;
    /** @type {number|null} */
    this.drainedAt = null;
    this.tally = { retries: 0, retryAfterWaits: 0, budgetRefusals: 0, breakerTransitions: [] };
    // The core's JSON spelling (snake_case, `_ms`) is accepted as it is.
    this.policy = new Policy({ ...merge(doc.policy, overrides), onEvent: (event) => this.event(event) });
    this.fetch = createFetch({ policy: this.policy, validate: okBody });
    /** @type {Map<string, Settled>} each order's latest call */
    this.results = new Map();
    /** @type {Settled[]} every call, in the order they ended */
    this.calls = [];
  }

  // ---------------------------------------------------------------- events

  /** @param {import('../../npm/dist/index.js').StoicEvent} event */
  event(event) {
    if (event.kind === 'log') {
      const { record } = event;
      if (record.outcome === 'retry') {
        this.tally.retries += 1;
        if (record.strategy === 'retry_after') this.tally.retryAfterWaits += 1;
      }
      this.out(`[${this.name}] log ${record.line}`);
    } else if (event.kind === 'breaker_transition') {
      const change = `${event.from}->${event.to}`;
      this.tally.breakerTransitions.push(change);
      this.out(`[${this.name}] breaker ${change} (${event.reason})`);
    } else if (event.kind === 'budget_exhausted') {
      this.tally.budgetRefusals += 1;
      this.out(`[${this.name}] budget ${event.message}`);
    }
  }

  // ----------------------------------------------------------------- calls

  keyOf(order) {
    return idempotencyKey(`orders-demo-${this.name}`, 'create_order', order);
  }

  /**
   * `retryAt` of a decision (ms on the policy's clock) as seconds on `monotonic()`.
   * @param {number|null} retryAt
   */
  toMonotonic(retryAt) {
    return retryAt === null ? null : monotonic() + (retryAt - this.policy.now()) / 1000;
  }

  /** @returns {Promise<Settled>} */
  async submit(order) {
    const key = this.keyOf(order);
    const ref = String(order.order_ref);
    if (this.policy.isDraining()) return settled(ref, key, 'unsent', 'shutting_down');
    const url = new URL('/orders', this.url);
    const started = monotonic();
    let response;
    try {
      response = await this.fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(order),
        operation: `POST ${url.hostname}${url.pathname}`, // client.py's operation name
      });
    } catch (error) {
      const elapsed = monotonic() - started;
      if (!(error instanceof RetryError)) {
        return settled(ref, key, 'failed', 'not_retryable', `${error?.name}: ${error?.message}`, elapsed);
      }
      await error.response?.body?.cancel().catch(() => undefined);
      const { reason, observation, attempts } = error;
      const retryAt = this.toMonotonic(error.decision.retryAt);
      // Stopped on an answer that will not change (a 422): invalid, as client.py
      // reports a final response; stopped without one: failed.
      const final = error.response !== undefined ? 'invalid' : 'failed';
      const outcome = DEFERRED.has(reason) ? 'deferred' : final;
      return settled(ref, key, outcome, reason, observation, elapsed, attempts, retryAt);
    }
    // The status decides; a body cut off after it changes nothing.
    const text = await response.text().catch((error) => `${error?.name}: ${error?.message}`);
    const elapsed = monotonic() - started;
    if (response.status === 201) {
      const replayed = response.headers.get('Idempotent-Replayed') === 'true';
      return settled(ref, key, replayed ? 'replayed' : 'created', null, null, elapsed);
    }
    // A success other than 201: not what this API answers.
    return settled(ref, key, 'invalid', `status_${response.status}`, text, elapsed, 1);
  }

  /** @param {object[]} queue  @param {number} total */
  async worker(queue, total) {
    while (queue.length > 0) {
      const order = queue.shift();
      const result = await this.submit(order);
      this.results.set(result.orderRef, result);
      this.calls.push(result);
      let done = 0;
      for (const s of this.results.values()) if (s.outcome !== 'deferred' && s.outcome !== 'unsent') done += 1;
      this.progress(result, done, total);
      if (this.drainAfter !== null && done >= this.drainAfter && !this.policy.isDraining()) {
        this.policy.drain();
        this.drainedAt = monotonic();
        this.out(`[${this.name}] draining the policy: no new attempts from here on`);
      }
    }
  }

  /** @param {Settled} s */
  progress(s, done, total) {
    const note = s.reason ? ` (${s.reason})` : '';
    this.out(`[${this.name}] order ${s.orderRef}: ${s.outcome}${note}; ${done}/${total} settled`);
  }

  async run() {
    const started = monotonic();
    let pending = [...this.orders];
    for (let number = 1; number <= this.maxPasses; number++) {
      this.out(`[${this.name}] pass ${number}: sending ${pending.length} orders`);
      const queue = [...pending];
      const workers = Array.from({ length: this.concurrency }, () => this.worker(queue, this.orders.length));
      await Promise.all(workers);
      pending = pending.filter((o) => this.results.get(o.order_ref).outcome === 'deferred');
      if (pending.length === 0 || this.policy.isDraining()) break;
      await sleep(this.pause(pending));
    }
    // What the server holds, asked outside stoic: the policy may be
    // draining or its breaker open, and this is bookkeeping, not an order.
    const listing = new URL('/orders', this.url);
    listing.searchParams.set('client', this.name);
    const server = await (await fetch(listing)).json();
    return this.summary(server, monotonic() - started);
  }

  /**
   * How long the outbox waits before the next pass (seconds): until the
   * latest time the engine said trying again could make sense, within limits.
   */
  pause(pending) {
    const now = monotonic();
    const waits = pending
      .map((o) => this.results.get(o.order_ref).retryAt)
      .filter((at) => at !== null)
      .map((at) => at - now);
    return Math.min(Math.max(0.2, ...waits), 5.0);
  }

  summary(server, elapsed) {
    const results = [...this.results.values()];
    const count = (outcome) => results.filter((s) => s.outcome === outcome).length;
    return {
      client: this.name,
      orders_sent: this.orders.length,
      created: count('created'),
      replayed: count('replayed'),
      invalid: count('invalid'),
      failed: count('failed'),
      unsettled: results
        .filter((s) => s.outcome === 'deferred' || s.outcome === 'unsent')
        .map((s) => ({ order_ref: s.orderRef, key: s.key, reason: s.reason })),
      server_orders: server.count,
      server_duplicates: server.duplicates,
      attempts: this.policy.metricsTotal().attemptsTotal,
      retries: this.tally.retries,
      retry_after_waits: this.tally.retryAfterWaits,
      breaker_transitions: this.tally.breakerTransitions,
      budget_refusals: this.tally.budgetRefusals,
      observations: Object.fromEntries(
        results.filter((s) => s.outcome === 'invalid' || s.outcome === 'failed').map((s) => [s.orderRef, s.observation]),
      ),
      drained_at: this.drainedAt,
      calls: this.calls.map((s) => ({
        order_ref: s.orderRef,
        key: s.key,
        outcome: s.outcome,
        reason: s.reason,
        elapsed: s.elapsed,
      })),
      elapsed,
    };
  }
}

/** The summary, for people. */
export function printSummary(summary, out = console.log) {
  const name = summary.client;
  const lines = [
    `orders sent            ${summary.orders_sent}`,
    `created (acknowledged) ${summary.created}`,
    `replayed (ack was lost)${String(summary.replayed).padStart(2)}`,
    `invalid (not retried)  ${summary.invalid}`,
    `left unsettled         ${summary.unsettled.length}`,
    `orders on the server   ${summary.server_orders}`,
    `duplicates             ${summary.server_duplicates}`,
    `attempts               ${summary.attempts}`,
    `retries                ${summary.retries}`,
    `retry-after honoured   ${summary.retry_after_waits}`,
    `breaker transitions    ${summary.breaker_transitions.join(', ') || 'none'}`,
    `budget refusals        ${summary.budget_refusals}`,
    `elapsed                ${summary.elapsed.toFixed(1)} s`,
  ];
  out(`[${name}] summary`);
  for (const line of lines) out(`[${name}]   ${line}`);
  for (const ref of Object.keys(summary.observations).sort()) {
    out(`[${name}]   order ${ref}: ${summary.observations[ref]}`);
  }
}

const USAGE =
  'usage: client.mjs URL [--name NAME] [--config JSON] [--drain-after N] [--only REFS] ' +
  '[--concurrency N] [--passes N] [--json PATH] [--quiet]';

/** @param {string[]} argv */
export async function main(argv = process.argv.slice(2)) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string', default: 'js' },
        config: { type: 'string', default: '{}' },
        'drain-after': { type: 'string' },
        only: { type: 'string' },
        concurrency: { type: 'string' },
        passes: { type: 'string' },
        json: { type: 'string' },
        quiet: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    console.error(`${USAGE}\nclient.mjs: error: ${error.message}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const counts = [values['drain-after'], values.concurrency, values.passes];
  if (positionals.length !== 1 || counts.some((v) => v !== undefined && !/^\d+$/.test(v))) {
    console.error(`${USAGE}\nclient.mjs: error: expected one URL and whole numbers for the counts`);
    return 2;
  }
  const integer = (text) => (text === undefined ? null : Number.parseInt(text, 10));
  const client = new OrdersClient(positionals[0], values.name, {
    overrides: JSON.parse(values.config),
    drainAfter: integer(values['drain-after']),
    only: values.only ? new Set(values.only.split(',')) : null,
    concurrency: integer(values.concurrency),
    passes: integer(values.passes),
    out: values.quiet ? () => undefined : (line) => console.log(line),
  });
  const summary = await client.run();
  printSummary(summary);
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(summary, null, 1));
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
