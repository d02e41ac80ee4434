/**
 * The `stoic/inline` entry outside browsers: the full wasm module travels
 * inside this file, as base64 text, and is compiled synchronously at import.
 * For toolchains that do not emit the `.wasm` asset the default entry points
 * at (Node bundles, single-file builds): one JavaScript file, nothing to
 * copy or serve beside it. Costs about a third more bytes than the `.wasm`
 * file and a decode at start-up. Browsers get `./inline-client.ts` (the
 * `browser` condition), which inlines the client build instead. Not for
 * Cloudflare Workers (they refuse to compile code at run time: the default
 * entry's `workerd` condition is the one for them).
 */
import wasmBase64 from './wasm/stoic_wasm_inline.js';
import { loadInline } from './inline-load.js';
import { initSync } from './wasm/stoic_wasm.js';

loadInline(wasmBase64, initSync);

export * from './index.js';
