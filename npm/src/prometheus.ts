/**
 * Prometheus: a policy's metrics, per scope, for `prom-client`.
 *
 * `registerMetrics(policy, registry)` registers one metric per entry of the
 * engine's metric catalogue (`metricCatalogue()`), read from
 * `policy.metrics()` at every scrape, under the names, help texts and
 * histogram buckets every language publishes:
 *
 * ```js
 * import { register } from 'prom-client';
 * import { Policy } from 'stoic';
 * import { registerMetrics } from 'stoic/prometheus';
 *
 * const policy = new Policy();
 * registerMetrics(policy, register);
 * console.log(await register.metrics()); // stoic_retry_total{scope="..."} ...
 * ```
 *
 * Counters (`stoic_calls_total`, `stoic_retry_total`, ...), the
 * `stoic_retry_duration_seconds` histogram and the
 * `stoic_circuit_breaker_state` gauge (0 closed, 1 half open, 2 open) carry
 * one label, `scope`. The values and units are the engine's; this module
 * only hands them to prom-client. Import `stoic` (or `stoic/full`) first:
 * it loads the engine this module uses. One policy per registry (a second
 * one's names clash). Not in the browser build.
 */
import { metricCatalogue as catalogue } from './catalogue.js';
import type { Policy } from './policy.js';
import type { MetricDescription } from './types.js';

function metricCatalogue(metrics?: ReturnType<Policy['metrics']>): MetricDescription[] {
  return catalogue('stoic/prometheus', metrics);
}

/** What registering needs of a prom-client `Registry` (`register` has it). */
export interface PrometheusRegistry {
  registerMetric(metric: never): void;
}

/** One exposition line's value, as prom-client takes it. */
export interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** A metric as prom-client's registry reads it (what `registerMetrics` registers). */
export interface PrometheusMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator: 'sum' | 'max';
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }>;
}

/**
 * A catalogue entry as a metric prom-client's registry reads: `get()` at
 * every scrape. The registry renames counters for OpenMetrics (it strips
 * `_total` from `name` and adds it back to each sample), so `get()` answers
 * with the name as it is then, as prom-client's own metrics do.
 */
class CatalogueMetric implements PrometheusMetric {
  name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  /** Across processes (prom-client's cluster aggregation): counters and buckets add; the breaker's gauge takes the worst state. */
  readonly aggregator: 'sum' | 'max';
  readonly #current: () => MetricDescription;

  constructor(description: MetricDescription, current: () => MetricDescription) {
    this.name = description.prometheusName;
    this.help = description.description;
    this.type = description.kind;
    this.aggregator = this.type === 'gauge' ? 'max' : 'sum';
    this.#current = current;
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const { name, help, type, aggregator } = this;
    return { name, help, type, aggregator, values: samples(this.#current(), name) };
  }
}

/**
 * Registers `policy`'s metrics with a prom-client registry; returns the
 * metrics registered (one per catalogue entry). Reading them at a scrape
 * crosses into the engine once, whatever the number of metrics.
 */
export function registerMetrics(policy: Policy, registry: PrometheusRegistry): PrometheusMetric[] {
  const given = policy as Partial<Policy> | null;
  if (typeof given?.metrics !== 'function' || typeof given?.metricsTotal !== 'function') {
    const hint = typeof (policy as { registerMetric?: unknown } | null)?.registerMetric === 'function' ? ' (the registry comes second)' : '';
    throw Object.assign(new TypeError(`registerMetrics(policy, registry): policy must be a Policy from stoic${hint}`), {
      code: 'wrong_type',
      field: 'policy',
    });
  }
  if (typeof (registry as Partial<PrometheusRegistry> | null)?.registerMetric !== 'function') {
    throw Object.assign(
      new TypeError('registerMetrics(policy, registry): registry must be a prom-client Registry (with registerMetric)'),
      { code: 'wrong_type', field: 'registry' },
    );
  }
  // One reading serves every metric of a scrape: prom-client asks each
  // metric in the same turn, and the reading is dropped after it.
  let reading: MetricDescription[] | undefined;
  const read = (): MetricDescription[] => {
    if (reading === undefined) {
      reading = metricCatalogue(policy.metrics());
      queueMicrotask(() => {
        reading = undefined;
      });
    }
    return reading;
  };
  const metrics = metricCatalogue().map(
    (description, index) => new CatalogueMetric(description, () => read()[index] ?? description),
  );
  for (const metric of metrics) registry.registerMetric(metric as never);
  return metrics;
}

/** The exposition samples of a metric's points, under `name`. */
function samples(metric: MetricDescription, name: string): Sample[] {
  const out: Sample[] = [];
  for (const point of metric.points) {
    const labels = point.attributes;
    if (metric.kind !== 'histogram') {
      out.push({ value: point.value ?? 0, labels });
      continue;
    }
    const bounds = [...(metric.boundsSeconds ?? []), '+Inf'];
    (point.buckets ?? []).forEach((value, i) => {
      out.push({ value, labels: { ...labels, le: bounds[i] ?? '+Inf' }, metricName: `${name}_bucket` });
    });
    out.push({ value: point.sumSeconds ?? 0, labels, metricName: `${name}_sum` });
    out.push({ value: point.count ?? 0, labels, metricName: `${name}_count` });
  }
  return out;
}
