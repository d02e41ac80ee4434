/**
 * Node entry point: loads the module synchronously from the package, then
 * exports the API. A bundle that moved this file away from the package still
 * finds the module while the package is installed; otherwise the error says
 * what to do (`stoic/inline` in bundles, or keep the package external).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initSync } from './wasm/stoic_wasm.js';
import { markLoaded } from './loaded.js';
import { registerContextStorage } from './run-context.js';

function moduleBytes(): Buffer {
  const beside = new URL('./wasm/stoic_wasm_bg.wasm', import.meta.url);
  try {
    return readFileSync(beside);
  } catch (error) {
    try {
      return readFileSync(createRequire(import.meta.url).resolve('stoic/wasm'));
    } catch {
      throw new Error(
        `stoic: its WebAssembly module is not at ${beside.pathname}, and the package is not installed to find it ` +
          "(a bundler moved the code). Import 'stoic/inline' in bundles (the module inside the JavaScript), " +
          "mark 'stoic' as external, or copy node_modules/stoic/dist/wasm/ beside the bundle.",
        { cause: error },
      );
    }
  }
}

initSync({ module: moduleBytes() });
markLoaded();
// An agent's tool call follows its awaits, so createFetch inside it sends the run's key.
registerContextStorage(new AsyncLocalStorage());

export * from './index.js';
