/**
 * The error an entry that fetches its module throws when the load fails,
 * leading with the likely cause: a Content-Security-Policy that forbids
 * compiling WebAssembly (the browser's own error names it), or else a
 * bundler that left the `.wasm` file behind.
 */

/** Whether `error` is the browser refusing to compile under a CSP. */
function blockedByCsp(error: unknown): boolean {
  return /Content.Security.Policy|wasm-unsafe-eval|CSP/i.test(String(error));
}

/**
 * `entry` is the import that failed (`stoic`, `stoic/full`), `url` where it
 * looked, `file` the module's file name in `node_modules/stoic/dist/wasm/`.
 */
export function loadError(entry: string, url: URL, file: string, error: unknown): Error {
  const where = `${entry}: could not load its WebAssembly module from ${url} (${String(error)}).`;
  const csp = "A Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src";
  const bundler =
    `If a bundler left the .wasm behind, copy node_modules/stoic/dist/wasm/${file} to that place, ` +
    "or import 'stoic/inline' (the module inside the JavaScript), or load it yourself with 'stoic/init'.";
  const message = blockedByCsp(error)
    ? `${where} ${csp}: the page's policy forbids compiling WebAssembly.`
    : `${where} ${bundler} ${csp}.`;
  return new Error(message, { cause: error });
}
