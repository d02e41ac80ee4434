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
import { loadError } from './load-error.js';
import { markLoaded } from './loaded.js';
import init from './wasm/stoic_wasm.js';

const url = new URL('./wasm/stoic_client_bg.wasm', import.meta.url);
try {
  await init({ module_or_path: url });
} catch (error) {
  throw loadError('stoic', url, 'stoic_client_bg.wasm', error);
}
markLoaded();

export * from './client.js';
