/**
 * The `stoic/full` entry for browsers and bundlers: the whole engine (the
 * standalone parts, server-side idempotency, policy snapshots) from the full
 * module, fetched and compiled at import like the default entry. The
 * default browser entry loads the client build, a quarter smaller; import
 * one or the other in an app, not both (each keeps its own module).
 */
import { markLoaded } from './loaded.js';
import init from './wasm/stoic_wasm.js';

const url = new URL('./wasm/stoic_wasm_bg.wasm', import.meta.url);
try {
  await init({ module_or_path: url });
} catch (error) {
  throw new Error(
    `stoic/full: could not load its WebAssembly module from ${url} (${String(error)}). ` +
      "If a bundler left the .wasm behind, copy node_modules/stoic/dist/wasm/stoic_wasm_bg.wasm to that place, " +
      "or import 'stoic/inline' (the full module inside the JavaScript), or load it yourself with 'stoic/init'. " +
      "A Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src.",
    { cause: error },
  );
}
markLoaded();

export * from './index.js';
