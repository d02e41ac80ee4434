// The ABI between the runtime and the wasm module beyond the glue's
// signatures (wasm/src/abi.rs, generated into src/abi.generated.ts): each
// packed form written on one side and read on the other, through the built
// package, and each number the module answers with read as the runtime's
// constants say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Policy, serverHint } from '../dist/node.js';
import * as core from '../dist/core.js';
import { readFileSync } from 'node:fs';
import { planOf } from '../dist/http-plan.js';
import { packHeaders } from '../dist/headers.js';
import { networkKinds, wasmMemory } from '../dist/wasm/stoic_wasm.js';

/**
 * The ABI's values as the runtime was compiled with them: src/abi.generated.ts
 * is a `const enum`, whose values tsc writes where they are used, so the
 * built file holds none to import.
 */
const abi = Object.fromEntries(
  [...readFileSync(new URL('../src/abi.generated.ts', import.meta.url), 'utf8').matchAll(/^ {2}([A-Z_]+) = (.+),$/gm)].map(
    ([, name, literal]) => [name, new Function(`return ${literal};`)()],
  ),
);

test('the generated values are all there', () => {
  assert.equal(abi.MIN_MISUSE_CODE, 2 ** 32 - 5);
  assert.equal(abi.HEADER_SEPARATOR, '\n');
  assert.equal(abi.NO_MS, -1);
  assert.equal(Object.keys(abi).length, 38);
});

test('headers packed by the runtime are read by the module pair by pair', () => {
  const hint = (headers) => serverHint(headers, { wallNowMs: null });
  for (const headers of [
    [['retry-after', '7']],
    [['x-a', 'one'], ['retry-after', '7']],
    // A separator inside a name or a value would shift every later pair.
    [['x-a', `one${abi.HEADER_SEPARATOR}two`], ['retry-after', '7']],
    [[`x-${abi.HEADER_SEPARATOR}b`, ''], ['retry-after', '7']],
    [['x-\u00e9', '\u{1F600}'], ['', 'v'], ['retry-after', 7]],
    { 'x-a': `a${abi.HEADER_SEPARATOR}b${abi.HEADER_SEPARATOR}c`, 'retry-after': '7' },
    new Headers({ 'x-a': 'one', 'Retry-After': '7' }),
  ]) {
    assert.equal(hint(headers)?.delayMs, 7000);
  }
  assert.equal(hint([['x-a', 'retry-after'], ['7', 'x']]), null, 'a value is never read as a name');
  const packed = packHeaders([['a', '1'], ['b', `2${abi.HEADER_SEPARATOR}3`]]);
  assert.deepEqual(packed.split(abi.HEADER_SEPARATOR), ['a', '1', 'b', '2 3']);
});

test('an HTTP plan packed by the module is unpacked by the runtime', () => {
  const hosts = ['api.example.com', '[::1]:8080', 'b\u00fccher.example', '\u{1F600}.example:443', ''];
  const paths = ['/', '/orders/1', '', `/a${abi.HTTP_PLAN_SCOPE_MARK}b`, '/\u{1F600}?q=1'];
  for (const host of hosts) {
    for (const path of paths) {
      for (const method of ['GET', 'post', 'DELETE']) {
        for (const deduplicates of [false, true]) {
          for (const keys of [false, true]) {
            const plan = planOf(method, host, path, undefined, deduplicates, keys);
            const idempotent = method !== 'post';
            const autoKey = !idempotent && keys;
            assert.deepEqual(plan, {
              operation: `${method.toUpperCase()} ${path === '' ? '/' : path}`,
              scope: host,
              safeToRepeat: idempotent || deduplicates,
              autoKey,
              trustKey: autoKey && deduplicates,
            });
          }
        }
      }
    }
  }
  // The packed form itself: flags digit, scope length in UTF-16 units, mark, scope, operation.
  const packed = core.httpPlan('GET', '\u{1F600}', '/x', undefined, false, false);
  assert.equal(packed, `${String.fromCharCode(abi.HTTP_PLAN_DIGIT_ZERO + abi.HTTP_PLAN_SAFE_TO_REPEAT)}2${abi.HTTP_PLAN_SCOPE_MARK}\u{1F600}GET /x`);
});

test('each misuse code the module answers with is one the runtime knows', () => {
  const policy = new Policy({ seed: 1 });
  const engine = policy.core;
  const success = core.classes().indexOf('success');
  const transient = core.classes().indexOf('transient');
  assert.ok(success >= 0 && transient >= 0);
  assert.equal(engine.beforeAttempt(12345, 0), abi.UNKNOWN_CALL);
  assert.equal(engine.onSuccess(12345, 0), abi.UNKNOWN_CALL);
  const handle = engine.start(0, true);
  assert.equal(engine.onSuccess(handle, 1), abi.MISUSE, 'an outcome before any admission');
  assert.equal(engine.onNetwork(handle, 1, 9999, abi.ABSENT_TEXT), abi.INVALID_CODE);
  assert.equal(engine.onRaised(handle, 1, success, abi.ABSENT_TEXT), abi.RAISED_SUCCESS);
  assert.equal(engine.onRejected(handle, 1, success, abi.ABSENT_TEXT), abi.REJECTED_SUCCESS);
  engine.close(handle);

  const codes = {
    [abi.UNKNOWN_CALL]: 'unknown_call',
    [abi.INVALID_CODE]: 'invalid_value',
    [abi.MISUSE]: 'misuse',
    [abi.RAISED_SUCCESS]: 'not_a_failure',
    [abi.REJECTED_SUCCESS]: 'not_a_failure',
  };
  assert.equal(Object.keys(codes).length, 5, 'the codes are distinct');
  for (const [code, name] of Object.entries(codes)) {
    assert.ok(Number(code) >= abi.MIN_MISUSE_CODE);
    assert.equal(core.boundaryError(Number(code)).code, name);
  }
  assert.equal(core.boundaryError(abi.MIN_MISUSE_CODE - 1), undefined, 'below the codes an answer is plain');
  for (const answer of [abi.DONE, abi.RETRY, abi.GIVE_UP, abi.NOT_ADMITTED]) {
    assert.equal(core.boundaryError(answer), undefined);
  }
  policy.free();
});

test('decision kinds and the plan area say what the decision objects say', () => {
  const policy = new Policy({ seed: 1, maxAttempts: 2, timeouts: { readMs: 250 }, backoff: { baseMs: 10, capMs: 40 } });
  const engine = policy.core;
  const area = () => policy.plan.view();
  assert.equal(area().length, abi.PLAN_SLOTS);

  const handle = engine.begin(0, true);
  const admitted = engine.admission(handle);
  assert.equal(admitted.kind, 'proceed');
  assert.equal(area()[abi.PLAN_ATTEMPT], admitted.attempt);
  assert.equal(area()[abi.PLAN_TIMEOUT_MS], admitted.timeoutMs ?? abi.NO_MS);
  assert.equal(engine.onStatus(handle, 1, 503, -1, abi.ABSENT_TEXT, abi.ABSENT_TEXT), abi.RETRY);
  const retry = engine.decision(handle);
  assert.equal(retry.kind, 'retry');
  assert.equal(area()[abi.PLAN_DELAY_MS], retry.delayMs);
  assert.equal(engine.delayMs(handle), retry.delayMs);

  assert.equal(engine.beforeAttempt(handle, 100), 2);
  assert.equal(area()[abi.PLAN_ATTEMPT], 2);
  assert.equal(engine.onStatus(handle, 101, 503, -1, abi.ABSENT_TEXT, abi.ABSENT_TEXT), abi.GIVE_UP);
  assert.equal(engine.decision(handle).kind, 'give_up');
  assert.equal(area()[abi.PLAN_DELAY_MS], abi.NO_MS);
  assert.equal(engine.beforeAttempt(handle, 102), abi.NOT_ADMITTED);
  assert.equal(area()[abi.PLAN_ATTEMPT], abi.NOT_ADMITTED);
  engine.close(handle);

  const unbounded = new Policy({ seed: 1 });
  const open = unbounded.core.begin(0, true);
  assert.equal(unbounded.plan.view()[abi.PLAN_TIMEOUT_MS], unbounded.core.admission(open).timeoutMs ?? abi.NO_MS);
  assert.equal(unbounded.core.onSuccess(open, 1), abi.DONE);
  assert.equal(unbounded.core.decision(open).kind, 'done');
  assert.equal(unbounded.plan.view()[abi.PLAN_DELAY_MS], abi.NO_MS);
  unbounded.core.close(open);
  policy.free();
  unbounded.free();
});

test("a hedged call's step codes and the hedge area say what its step objects say", () => {
  const policy = new Policy({ seed: 1, timeouts: { readMs: 250 } });
  const engine = policy.core;
  const kinds = { send: abi.HEDGE_SEND, wait: abi.HEDGE_WAIT, done: abi.HEDGE_DONE, give_up: abi.HEDGE_GIVE_UP };
  const text = policy.text.write('get', 'api', undefined);
  const handle = engine.startHedged(0, text.a, text.b, true, text.c, undefined, { maxHedges: 2, delay: { kind: 'fixed', afterMs: 50 } });
  const refused = networkKinds().indexOf('connect_refused');
  // Send 1, wait until 50, send 2, copy 1 refused: send 3 at once, copy 3 answers: done, cancel 2.
  const answers = [
    () => engine.hedgePoll(handle, 0),
    () => engine.hedgePoll(handle, 0),
    () => engine.hedgePoll(handle, 50),
    () => engine.hedgeOutcome(handle, 1, 60, abi.COPY_NETWORK, refused, -1, abi.ABSENT_TEXT, abi.ABSENT_TEXT),
    () => engine.hedgePoll(handle, 60),
    () => engine.hedgeOutcome(handle, 3, 70, abi.COPY_STATUS, 200, -1, abi.ABSENT_TEXT, abi.ABSENT_TEXT),
  ];
  const seen = [];
  for (const answer of answers) {
    const code = answer();
    // Read right after the answer, as the runtime does: the area holds the last step only.
    const figures = [...new Float64Array(wasmMemory().buffer, engine.hedgeArea(), abi.HEDGE_SLOTS)];
    const step = engine.hedgeStep(handle);
    seen.push(step.kind);
    assert.equal(code, kinds[step.kind], JSON.stringify(step));
    assert.equal(figures[abi.HEDGE_CANCEL], step.cancel.reduce((bits, copy) => bits | (1 << (copy - 1)), 0));
    if (step.kind === 'send') {
      assert.equal(figures[abi.HEDGE_COPY], step.attempt);
      assert.equal(figures[abi.HEDGE_TIMEOUT_MS], step.timeoutMs ?? abi.NO_MS);
    } else if (step.kind === 'wait') {
      assert.equal(figures[abi.HEDGE_UNTIL_MS], step.until ?? abi.NO_MS);
    } else if (step.kind === 'done') {
      assert.equal(figures[abi.HEDGE_COPY], step.winner);
    }
  }
  assert.deepEqual(seen, ['send', 'wait', 'send', 'send', 'wait', 'done']);
  assert.deepEqual([engine.hedgeStep(handle).winner, engine.hedgeStep(handle).cancel], [3, [2]]);
  assert.equal(engine.hedgeOutcome(handle, 2, 80, 99, 0, -1, abi.ABSENT_TEXT, abi.ABSENT_TEXT), abi.INVALID_CODE);
  engine.hedgeClose(handle);
  assert.equal(engine.hedgePoll(handle, 90), abi.UNKNOWN_CALL);
  policy.free();
});

test('texts written into the text area are read back by the module', () => {
  const policy = new Policy({ seed: 1, maxAttempts: 5 });
  for (const key of ['k-1', 'b\u00fccher-\u{1F600}']) {
    const call = policy.start({ operation: 'POST /\u00e9', scope: '\u{1F600}', idempotencyKey: key });
    assert.ok(call.idempotencyKey === key, 'the key after the operation and the scope');
    call.close();
  }
  // Absent texts: no key.
  const call = policy.start({ operation: 'op', scope: 's' });
  assert.equal(call.idempotencyKey, null);
  call.beforeAttempt(0);
  // A detail after packed headers: both read from one area, end to end.
  const decision = call.onOutcome({ kind: 'status', status: 503, headers: { 'retry-after': '3' }, detail: 'd\u00e9tail', wallNowMs: null }, 1);
  assert.equal(decision.kind, 'retry');
  assert.equal(decision.source, 'retry_after');
  assert.equal(decision.delayMs, 3000);
  // Texts longer than the area's first size: it grows, and they still read back.
  call.beforeAttempt(2);
  const padding = '\u00e9'.repeat(abi.TEXT_AREA_BYTES);
  const long = call.onOutcome({ kind: 'status', status: 503, headers: [['x-pad', padding], ['retry-after', '4']], detail: padding, wallNowMs: null }, 3);
  assert.equal(long.delayMs, 4000, 'the hint after a long header');
  call.close();
  policy.free();
});

test('texts beyond what the text area grows to are refused, not retried without end', () => {
  const policy = new Policy({ seed: 1 });
  const call = policy.start({ operation: 'op' });
  call.beforeAttempt(0);
  const detail = 'x'.repeat(abi.TEXT_AREA_MAX + 1);
  assert.throws(() => call.onOutcome({ kind: 'error', class: 'transient', detail }, 1), { code: 'invalid_value' });
  // The call goes on: the attempt still waits for its outcome.
  assert.equal(call.onOutcome({ kind: 'error', class: 'transient', detail: 'short' }, 2).kind, 'retry');
  call.close();
  policy.free();
});
