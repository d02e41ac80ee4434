/**
 * The `stoic/inline` entry: the wasm module travels inside this file, as
 * base64 text, and is compiled synchronously at import. For toolchains that
 * do not emit the `.wasm` asset the default entry points at (Rollup without
 * an asset plugin, esbuild, Node bundles, single-file builds, classic
 * scripts): one JavaScript file, nothing to copy or serve beside it. Costs
 * about a third more bytes than the `.wasm` file and a decode at start-up.
 * Not for Cloudflare Workers (they refuse to compile code at run time: the
 * default entry's `workerd` condition is the one for them).
 */
import wasmBase64 from './wasm/stoic_wasm_inline.js';
import { markLoaded } from './loaded.js';
import { initSync } from './wasm/stoic_wasm.js';

initSync({ module: decode(wasmBase64) });
markLoaded();

function decode(text: string): Uint8Array {
  const fromBase64 = (Uint8Array as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (fromBase64 !== undefined) return fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export * from './index.js';
