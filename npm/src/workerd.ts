/**
 * Edge entry point (Cloudflare Workers / workerd): imports the module as a
 * compiled `WebAssembly.Module` (workers may not compile code at run time),
 * then exports the API.
 */
import { markLoaded } from './loaded.js';
import wasm from './wasm/stoic_wasm_bg.wasm';
import { initSync } from './wasm/stoic_wasm.js';

initSync({ module: wasm });
markLoaded();

export * from './index.js';
