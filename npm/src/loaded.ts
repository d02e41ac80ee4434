/**
 * Whether an entry point has loaded the wasm module. The automatic entries
 * load it at import; with `stoic/init` the caller does, and using the API
 * before that is a clear error instead of a `TypeError` from inside the glue.
 * @internal
 */
import { ConfigError, InputError } from './errors.js';
import { registerErrorClasses } from './wasm/stoic_wasm.js';

let loaded = false;

/**
 * Called by each entry once the module is loaded: from then on the errors
 * the module throws are instances of the exported `ConfigError` and
 * `InputError` classes.
 */
export function markLoaded(): void {
  registerErrorClasses(ConfigError.prototype, InputError.prototype);
  loaded = true;
}

export function isLoaded(): boolean {
  return loaded;
}

/** Throws when the module is not loaded yet (only `stoic/init` can get here). */
export function requireLoaded(): void {
  if (!loaded) {
    throw Object.assign(
      new Error("stoic: the WebAssembly module is not loaded yet: `await init(source)` from 'stoic/init' before using the API"),
      { code: 'not_loaded' },
    );
  }
}
