/**
 * The engine's metric catalogue for the exporter entries (`stoic/prometheus`,
 * `stoic/opentelemetry`), which use the engine an entry of the package
 * loaded: a clear error when none has.
 */
import { metricCatalogue as catalogue } from './wasm/stoic_wasm.js';
import type { Policy } from './policy.js';
import type { MetricDescription } from './types.js';

/** The engine's catalogue, with the points of `metrics` when given. */
export function metricCatalogue(entry: string, metrics?: ReturnType<Policy['metrics']>): MetricDescription[] {
  try {
    return catalogue(metrics) as MetricDescription[];
  } catch (error) {
    // The glue throws a bare TypeError when no entry has loaded the module.
    if (error instanceof TypeError && !('code' in error)) {
      throw Object.assign(
        new Error(`${entry}: the engine is not loaded: import 'stoic' (or 'stoic/full') first`, { cause: error }),
        { code: 'not_loaded' },
      );
    }
    throw error;
  }
}
