// Bundles each entry point of the npm package into one file (the whole
// runtime, about 25 modules: loading one file instead of 25 takes a third
// off Node's import time). The wasm glue and modules stay separate files in
// ./wasm/, so every entry shares one glue instance and bundlers still see
// the `new URL('./wasm/...', import.meta.url)` asset.
//
// The browser entries' glue (`browser`, and `inline-client`, which is
// `stoic/inline` in browsers) is the client build's (`stoic_client.js`);
// every other entry's is the full module's (`stoic_wasm.js`). The runtime's
// modules all import `./wasm/stoic_wasm.js`; this is the one place that
// points the browser entry elsewhere.
// Run by scripts/js-build.sh after tsc, from the repository root.
import { build } from '../npm/node_modules/esbuild/lib/main.js';
import { renameSync } from 'node:fs';

const ENTRIES = ['node', 'browser', 'full', 'workerd', 'inline', 'inline-client', 'manual', 'redis', 'prometheus', 'opentelemetry', 'ai', 'mcp', 'openai-agents'];
const CLIENT_GLUE = { browser: 'stoic_client.js', 'inline-client': 'stoic_client.js' };

for (const entry of ENTRIES) {
  const glue = CLIENT_GLUE[entry];
  const wasmFiles = {
    name: 'wasm-files',
    setup(builder) {
      builder.onResolve({ filter: /^\.\/wasm\// }, (args) => ({
        path: glue === undefined ? args.path : args.path.replace(/stoic_wasm\.js$/, glue),
        external: true,
      }));
    },
  };
  const outfile = `npm/dist/${entry}.bundle.js`;
  await build({
    entryPoints: [`npm/dist/${entry}.js`],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    logLevel: 'warning',
    // The OpenTelemetry API is the application's (a peer dependency): one
    // global registry of providers, never a copy in a bundle.
    external: ['node:*', '@opentelemetry/api'],
    plugins: [wasmFiles],
    outfile,
  });
  renameSync(outfile, `npm/dist/${entry}.js`);
}
