/**
 * The `stoic/init` entry: nothing is loaded until you call `init()`, with
 * the module from wherever you keep it (a CDN, an inlined asset, a custom
 * pipeline, a cache). Everything else is the same API as the default entry.
 *
 * ```js
 * import { init, retry } from 'stoic/init';
 * await init(new URL('/assets/stoic_wasm_bg.wasm', location.href));
 * ```
 */
import initModule, { initSync } from './wasm/stoic_wasm.js';
import { inputError } from './errors.js';
import { isLoaded, markLoaded } from './loaded.js';

/** What `init` accepts: a compiled module, its bytes, a `Response`, or where to fetch it. */
export type WasmSource = WebAssembly.Module | BufferSource | Response | PromiseLike<Response> | URL | string;

/**
 * Loads the engine's WebAssembly module. Resolves once the API is usable;
 * later calls resolve at once (the first module stays). A `Response` or URL
 * is compiled while it streams, where the runtime can.
 */
export async function init(source: WasmSource): Promise<void> {
  if (isLoaded()) return;
  try {
    if (source instanceof WebAssembly.Module || ArrayBuffer.isView(source) || source instanceof ArrayBuffer) {
      initSync({ module: source });
    } else {
      await initModule({ module_or_path: source });
    }
  } catch (cause) {
    // A bad URL, a failed fetch, bytes that are not this module: one coded error.
    throw inputError('load_failed', `init(source): the WebAssembly module did not load: ${String(cause)}`, undefined, { cause });
  }
  markLoaded();
}

/** Loads the module synchronously from a compiled module or its bytes (no fetch, no await). */
export function initFrom(source: WebAssembly.Module | BufferSource): void {
  if (isLoaded()) return;
  if (!(source instanceof WebAssembly.Module || ArrayBuffer.isView(source) || source instanceof ArrayBuffer)) {
    throw Object.assign(new TypeError('initFrom(source): source must be a WebAssembly.Module or the bytes of one'), {
      code: 'wrong_type',
      field: 'source',
    });
  }
  initSync({ module: source });
  markLoaded();
}

export * from './index.js';
