/**
 * The `stoic/inline` entry in browsers (its `browser` condition): what the
 * browser entry is (the client build and `./client.ts`), with the module
 * inside this file as base64 text instead of a `.wasm` file beside it, for
 * esbuild, Rollup and the other toolchains that do not emit that asset.
 * Inlining the client build rather than the full module halves what such a
 * page ships (measured by `test/toolchains.test.js`).
 *
 * The package build points the glue import at the client build
 * (`./wasm/stoic_client.js`), as it does for the browser entry.
 */
import wasmBase64 from './wasm/stoic_client_inline.js';
import { loadInline } from './inline-load.js';
import { initSync } from './wasm/stoic_wasm.js';

loadInline(wasmBase64, initSync);

export * from './client.js';
