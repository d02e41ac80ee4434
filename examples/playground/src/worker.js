// @ts-check
/**
 * The engine's side of the page, in a Web Worker: it loads the package's
 * browser entry (the client wasm module), checks configs as the user types
 * and runs scenarios. A run is synchronous (virtual time), so it never
 * blocks the page, only this worker.
 */
import { Policy } from 'stoic';
import { simulate } from './scenario.js';

/**
 * The engine's resolved config. The seed is pinned when absent, or every
 * check would draw a fresh one and no two resolved configs would compare
 * equal (the page diffs them against the defaults for "copy as code").
 * @param {Record<string, unknown>} config
 */
function resolve(config) {
  const policy = new Policy({ seed: 0, ...config });
  try {
    return policy.config();
  } finally {
    policy.free();
  }
}

/**
 * An error as data: structured clone keeps only an Error's name and
 * message, and the page needs the engine's code, field and problems.
 * @param {any} error
 */
function errorData(error) {
  return {
    name: String(error?.name ?? 'Error'),
    code: error?.code ?? null,
    field: error?.field ?? null,
    message: String(error?.message ?? error),
    problems: Array.isArray(error?.problems) ? error.problems.map((/** @type {any} */ p) => ({ ...p })) : [],
  };
}

self.onmessage = (/** @type {MessageEvent} */ { data }) => {
  const { id, type } = data;
  try {
    if (type === 'defaults') {
      self.postMessage({ id, ok: true, resolved: resolve({}) });
    } else if (type === 'validate') {
      self.postMessage({ id, ok: true, resolved: resolve(data.config) });
    } else if (type === 'run') {
      const started = performance.now();
      const result = simulate({ Policy }, data.config, data.scenario);
      self.postMessage({ id, ok: true, result, elapsedMs: performance.now() - started });
    } else {
      throw new Error(`unknown request: ${type}`);
    }
  } catch (error) {
    self.postMessage({ id, ok: false, error: errorData(error) });
  }
};

// The stoic import above finished loading the wasm module (its entry awaits
// it) before this line runs. A message posted earlier could reach the worker
// before the handler exists and be lost, so the page waits for this one.
self.postMessage({ type: 'ready' });
