// The same app through `stoic/inline` (the module inside the JavaScript),
// which in a browser build is the client module inlined: `build` says which
// module answered (the client build refuses alerts with not_in_build).
import { createFetch, Policy, retry } from 'stoic/inline';
import { scenario } from './scenario.js';

function build() {
  try {
    new Policy({ alerts: { retryRateWarning: 0.3 } });
    return 'full';
  } catch (error) {
    return error.code === 'not_in_build' ? 'client' : String(error);
  }
}

const tool = new URL(location.href).searchParams.get('tool');
scenario({ createFetch, Policy, retry }, new URL(`/flaky/${tool}`, location.href)).then(
  (result) => (window.__result = { ...result, build: build() }),
  (error) => (window.__result = { error: String(error), stack: error?.stack }),
);
