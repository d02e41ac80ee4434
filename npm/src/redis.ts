/**
 * The `stoic/redis` entry: a fleet shares one view, the retry budgets'
 * counts across processes, through Redis (an `ioredis` client).
 *
 * Each process decides locally, in memory; a background exchange (about
 * once a second) sends what this process counted and brings back the
 * fleet's totals, so the ratio budget's floor holds once for the whole
 * fleet instead of once per process. No call ever waits on Redis, and a
 * store error goes to `onError` (and `fleetHealth()`), never into a call.
 * What is counted, the wire form and the Redis script are the engine's;
 * this module only runs the exchange.
 *
 * ```js
 * import Redis from 'ioredis';
 * import { Policy } from 'stoic';
 * import { FleetSync } from 'stoic/redis';
 * const policy = new Policy();
 * const fleet = await new FleetSync(policy, new Redis()).start();
 * // ... calls through `policy` ...
 * await fleet.close();
 * ```
 */
import { fleetRedisScript } from './wasm/stoic_wasm.js';
import { monotonicNow } from './clock.js';
import { callable, num, record } from './guard.js';
import type { Policy } from './policy.js';

/** What the exchange needs of a Redis client (`ioredis` has it). */
export interface FleetRedisClient {
  time(): Promise<[string, string] | [number, number] | unknown[]>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

export interface FleetSyncOptions {
  /** Where the fleet's keys live; a scope's keys are `<prefix>{<scope>}...`. */
  prefix?: string;
  /** Milliseconds between exchanges (default 1000). */
  intervalMs?: number;
  /** Told of every failed exchange (the store down, a reply lost). */
  onError?: (error: unknown) => void;
  /** The policy's clock, if not the default monotonic one. */
  now?: () => number;
}

/** Milliseconds between looks for a breaker that opened or closed (sent at once). */
const NEWS_CHECK_MS = 50;

/** Whether decisions see the fleet. */
export type FleetHealth = 'detached' | 'live' | 'stale';

/** A process's id in the store: its sequence numbers are its own. */
function processId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Redis `TIME` (seconds, microseconds) as Unix milliseconds. */
function storeMs(reply: unknown[]): number {
  return Number(reply[0]) * 1000 + Math.floor(Number(reply[1]) / 1000);
}

/** Runs the fleet exchange for `policy` on a Redis client, on a timer. */
export class FleetSync {
  readonly policy: Policy;
  readonly client: FleetRedisClient;
  readonly prefix: string;
  readonly intervalMs: number;
  readonly processId = processId();
  exchanges = 0;
  failures = 0;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #now: () => number;
  readonly #script = fleetRedisScript();
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<boolean> | undefined;

  constructor(policy: Policy, client: FleetRedisClient, options: FleetSyncOptions = {}) {
    const core = (policy as { core?: { fleetExport?: unknown } } | null)?.core;
    if (typeof core?.fleetExport !== 'function') {
      throw Object.assign(new TypeError('FleetSync(policy, client): policy must be a Policy from stoic (not the browser build)'), {
        code: 'wrong_type',
        field: 'policy',
      });
    }
    const c = client as Partial<FleetRedisClient> | null;
    if (typeof c?.time !== 'function' || typeof c?.eval !== 'function') {
      throw Object.assign(new TypeError('FleetSync(policy, client): client must be a Redis client with time() and eval() (ioredis)'), {
        code: 'wrong_type',
        field: 'client',
      });
    }
    record(options, 'options');
    this.policy = policy;
    this.client = client;
    this.prefix = options.prefix ?? 'stoic:fleet:';
    this.intervalMs = options.intervalMs ?? 1000;
    if (!(num(this.intervalMs, 'intervalMs') > 0)) {
      throw Object.assign(new RangeError(`intervalMs must be above 0, got ${this.intervalMs}`), {
        code: 'out_of_range',
        field: 'intervalMs',
      });
    }
    if (options.onError !== undefined) callable(options.onError, 'onError');
    this.#onError = options.onError;
    this.#now = options.now ?? monotonicNow;
  }

  /** One exchange now; `false` (told to `onError`) if it failed. Never rejects. */
  exchange(): Promise<boolean> {
    // One at a time: a slow store must not pile exchanges up.
    this.#running ??= this.#exchange().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #exchange(): Promise<boolean> {
    try {
      const store = storeMs((await this.client.time()) as unknown[]);
      const [, scopes] = this.policy.core.fleetExport(this.#now(), store) as [number, [string, string][]];
      const replies: string[] = [];
      for (const [scope, text] of scopes) {
        replies.push(String(await this.client.eval(this.#script, 1, `${this.prefix}{${scope}}`, this.processId, text)));
      }
      this.policy.core.fleetApply(this.#now(), replies);
    } catch (error) {
      // A store error is an event, never the caller's.
      this.failures += 1;
      this.policy.core.fleetFailed(this.#now());
      try {
        this.#onError?.(error);
      } catch {
        // A reporting hook that throws never stops the exchange.
      }
      return false;
    } finally {
      this.#deliver();
    }
    this.exchanges += 1;
    return true;
  }

  /**
   * Hands what the exchange queued (`fleet_health`, breakers the fleet
   * opened or closed) to the policy's `onEvent` now: a process making no
   * calls hears of them too.
   */
  #deliver(): void {
    try {
      this.policy.flush();
    } catch {
      // A reporting hook that throws never stops the exchange.
    }
  }

  /**
   * Attaches with one exchange, then exchanges every `intervalMs`, and at
   * once when a breaker opens or closes; the timer does not keep the
   * process alive.
   */
  async start(): Promise<this> {
    if (this.#timer === undefined) {
      await this.exchange();
      // Every 50 ms an in-memory look for a breaker that opened or closed,
      // sent at once; otherwise one exchange per interval.
      let nextAt = this.#now() + this.intervalMs;
      this.#timer = setInterval(
        () => {
          if (this.#now() >= nextAt || this.policy.core.fleetHasNews()) {
            nextAt = this.#now() + this.intervalMs;
            void this.exchange();
          }
        },
        Math.min(NEWS_CHECK_MS, this.intervalMs),
      );
      (this.#timer as { unref?: () => void }).unref?.();
    }
    return this;
  }

  /** Stops the exchange, after a last one so this process's counts are sent. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      await this.#running;
      await this.exchange();
    }
  }

  /** Whether decisions at `now` see the fleet (the same as `policy.fleetHealth(now)`). */
  health(now: number = this.#now()): FleetHealth {
    return this.policy.fleetHealth(now);
  }
}
