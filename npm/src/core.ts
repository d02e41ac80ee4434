/**
 * The wasm-bindgen glue (generated into dist/wasm by scripts/js-build.sh).
 * Internal: the public API wraps it. Each entry point (node, browser,
 * workerd) initialises the module before anything here runs.
 * @internal
 */
export * from './wasm/stoic_wasm.js';
