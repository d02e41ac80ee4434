/**
 * Browser and bundler entry point: fetches and compiles the module (top-level
 * await), then exports the API. Bundlers resolve the `new URL(...)` asset.
 */
import init from './wasm/stoic_wasm.js';

await init({ module_or_path: new URL('./wasm/stoic_wasm_bg.wasm', import.meta.url) });

export * from './index.js';
