// The same app through `stoic/inline` (the module inside the JavaScript).
import { createFetch, Policy, retry } from 'stoic/inline';
import { scenario } from './scenario.js';

const tool = new URL(location.href).searchParams.get('tool');
scenario({ createFetch, Policy, retry }, new URL(`/flaky/${tool}`, location.href)).then(
  (result) => (window.__result = result),
  (error) => (window.__result = { error: String(error), stack: error?.stack }),
);
