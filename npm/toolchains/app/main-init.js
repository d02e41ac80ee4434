// The app loading the module itself, from where it chose to put it.
import { createFetch, init, Policy, retry } from 'stoic/init';
import { scenario } from './scenario.js';

const tool = new URL(location.href).searchParams.get('tool');
const run = async () => {
  let before = null;
  try {
    new Policy();
  } catch (error) {
    before = error.code;
  }
  await init(fetch(new URL('./assets/engine.wasm', location.href)));
  return { ...(await scenario({ createFetch, Policy, retry }, new URL(`/flaky/${tool}`, location.href))), before };
};
run().then(
  (result) => (window.__result = result),
  (error) => (window.__result = { error: String(error), stack: error?.stack }),
);
