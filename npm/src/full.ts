/**
 * The `stoic/full` entry for browsers and bundlers: the whole engine (the
 * standalone parts, server-side idempotency, policy snapshots) from the full
 * module, fetched and compiled at import like the default entry. The
 * default browser entry loads the client build, a quarter smaller; import
 * one or the other in an app, not both (each keeps its own module).
 */
import { loadError } from './load-error.js';
import { markLoaded } from './loaded.js';
import init from './wasm/stoic_wasm.js';

const url = new URL('./wasm/stoic_wasm_bg.wasm', import.meta.url);
try {
  await init({ module_or_path: url });
} catch (error) {
  throw loadError('stoic/full', url, 'stoic_wasm_bg.wasm', error);
}
markLoaded();

export * from './index.js';
