// The stoic component in Node through jco: a retry loop the host drives.
// The component decides; this script keeps the clock, sleeps and "calls the
// server" (a stand-in that answers 503 twice, then 200).
//
//   make component-js      # jco transpile, with the jco the build pins
//   node component/examples/retry_loop.mjs [target/component/js/stoic.js]
//
// An `err` result is thrown: its `payload` is the error record (the
// error's own message is only "[object Object] (see error.payload)").
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const module = process.argv[2] ?? 'target/component/js/stoic.js';
const { policy: engine } = await import(pathToFileURL(resolve(module)).href);

// The host draws the jitter seed (u64 values are BigInts in jco).
const seed = randomBytes(6).readUIntBE(0, 6);
const config = { seed, backoff: { strategy: 'full_jitter', base_ms: 20, cap_ms: 200 } };
const policy = engine.Policy.create(JSON.stringify(config));
const nowMs = () => process.hrtime.bigint() / 1_000_000n;

const answers = [503, 503, 200];
const call = policy.start(nowMs(), { operation: 'get_order', scope: 'api.example.com', method: 'GET' });
for (;;) {
  const admission = policy.beforeAttempt(nowMs(), call);
  if (admission.tag === 'reject') {
    console.log('stopped:', admission.val.reason);
    break;
  }
  const status = answers.shift(); // the host's HTTP request goes here
  const kind = status < 300 ? { tag: 'success' } : { tag: 'status', val: status };
  const decision = policy.onOutcome(nowMs(), call, { kind, headers: [] });
  if (decision.tag === 'retry') {
    console.log(`attempt ${decision.val.attempt}: ${status}, retry in ${decision.val.delayMs} ms`);
    await sleep(Number(decision.val.delayMs));
  } else if (decision.tag === 'done') {
    console.log(`done after ${decision.val.attempts} attempts`);
    break;
  } else {
    console.log('gave up:', decision.val.reason, '-', decision.val.observation);
    break;
  }
}
