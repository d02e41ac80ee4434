/**
 * The wasm-bindgen glue (generated into dist/wasm by scripts/js-build.sh),
 * whole, for the test harnesses (`npm/test`, `npm/testlib`). Internal.
 *
 * The runtime's modules import the glue by name from `./wasm/stoic_wasm.js`
 * themselves, never through this file: the entry bundles keep the glue a
 * separate file (scripts/bundle-entries.mjs), and a star re-export of a file
 * outside the bundle becomes a runtime copy of the glue's whole namespace,
 * which no app bundler can tree-shake (525 bytes gzipped more in a browser app).
 * @internal
 */
export * from './wasm/stoic_wasm.js';
