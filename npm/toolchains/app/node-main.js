// A Node app bundled into one file: prints the scenario's result as JSON.
import { createFetch, Policy, retry } from 'stoic';
import { scenario } from './scenario.js';

console.log(JSON.stringify(await scenario({ createFetch, Policy, retry }, process.env.FLAKY_URL)));
