/**
 * Browser and bundler entry point: fetches and compiles the client build of
 * the module (top-level await), then exports what a client needs
 * (`./client.ts`). Bundlers that emit `new URL(..., import.meta.url)` assets
 * (Vite, webpack, Parcel, wrangler) ship the `.wasm` by themselves; for the
 * others the README names what to do, and a failed load says so too.
 *
 * The package build points this entry's glue import at the client build
 * (`./wasm/stoic_client.js`, `stoic_client_bg.wasm`), which leaves out the
 * standalone parts, server-side idempotency, snapshots, measuring, the
 * failure-rate and slow-call breakers, the token buckets, alerts and "did you
 * mean" (a config asking for one is refused with `not_in_build`); `stoic/full`
 * has them in browsers.
 */
import { markLoaded } from './loaded.js';
import init from './wasm/stoic_wasm.js';

const url = new URL('./wasm/stoic_client_bg.wasm', import.meta.url);
try {
  await init({ module_or_path: url });
} catch (error) {
  throw new Error(
    `stoic: could not load its WebAssembly module from ${url} (${String(error)}). ` +
      "If a bundler left the .wasm behind, copy node_modules/stoic/dist/wasm/stoic_client_bg.wasm to that place, " +
      "or import 'stoic/inline' (the module inside the JavaScript), or load it yourself with 'stoic/init'. " +
      "A Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src.",
    { cause: error },
  );
}
markLoaded();

export * from './client.js';
