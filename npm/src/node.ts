/** Node entry point: loads the module synchronously from the package, then exports the API. */
import { readFileSync } from 'node:fs';
import { initSync } from './core.js';

initSync({ module: readFileSync(new URL('./wasm/stoic_wasm_bg.wasm', import.meta.url)) });

export * from './index.js';
