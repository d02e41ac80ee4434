// The Node app through `stoic/inline`, for bundles that ship one file.
import { createFetch, Policy, retry } from 'stoic/inline';
import { scenario } from './scenario.js';

console.log(JSON.stringify(await scenario({ createFetch, Policy, retry }, process.env.FLAKY_URL)));
