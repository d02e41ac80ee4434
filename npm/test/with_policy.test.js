// withPolicy: a policy for one request, restored from a store, saved back and
// always freed, whatever the request or the store does. The store here is a
// Map behind the KV namespace's get/put; workerd's own KV binding runs it in
// workerd_memory.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Policy, retry, withPolicy } from '../dist/node.js';
import { captureWarnings } from '../testlib/agents.js';

function kv(entries = {}) {
  const map = new Map(Object.entries(entries));
  return {
    map,
    async get(key) {
      return map.get(key) ?? null;
    },
    async put(key, value) {
      map.set(key, value);
    },
  };
}

const misuse = { name: 'InputError', code: 'misuse' };

test('the state of one request reaches the next through the store, and each policy is freed', async () => {
  const store = kv();
  const failing = () => Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' }));
  let first;
  await withPolicy(
    { seed: 1, maxAttempts: 1, breaker: { trip: { kind: 'consecutive_failures', threshold: 1 } } },
    async (policy) => {
      first = policy;
      await retry(failing, { policy, scope: 'api' }).catch(() => undefined);
      assert.equal(policy.breakerState('api'), 'open');
    },
    { store },
  );
  assert.throws(() => first.config(), misuse, 'freed when the request ended');
  assert.ok(store.map.get('stoic')?.includes('"api"'), 'the snapshot was saved under the default key');
  const state = await withPolicy({ seed: 1, maxAttempts: 1, breaker: { trip: { kind: 'consecutive_failures', threshold: 1 } } }, (policy) => policy.breakerState('api'), {
    store,
  });
  assert.equal(state, 'open', 'the next request restored the open breaker');
});

test('an error in the request is the result, and the policy is still saved and freed', async () => {
  const store = kv();
  let made;
  await assert.rejects(
    withPolicy(
      { seed: 1 },
      (policy) => {
        made = policy;
        throw new Error('handler failed');
      },
      { store, key: 'edge' },
    ),
    /handler failed/,
  );
  assert.ok(store.map.has('edge'));
  assert.throws(() => made.config(), misuse);
});

test('a store that fails or holds garbage never fails the request: reported once, the policy starts fresh', async () => {
  const warned = captureWarnings();
  try {
    const broken = {
      get: async () => {
        throw new Error('KV unavailable');
      },
      put: async () => {
        throw new Error('KV unavailable');
      },
    };
    for (let i = 0; i < 2; i++) assert.equal(await withPolicy({ seed: 1 }, () => 'served', { store: broken }), 'served');
    assert.equal(warned.length, 1, 'the failing store is reported once');
    assert.match(warned[0][0], /withPolicy: restoring "stoic" from the store/);
    const garbage = kv({ stoic: 'not a snapshot' });
    assert.equal(await withPolicy({ seed: 1 }, (policy) => policy.breakerState('api'), { store: garbage }), null);
    assert.equal(warned[1][1].code, 'invalid_snapshot');
    assert.notEqual(garbage.map.get('stoic'), 'not a snapshot', 'replaced by a real snapshot');
  } finally {
    warned.restore();
  }
});

test('a call still running when the request ends finishes before the memory goes', async () => {
  let release;
  let pending;
  await withPolicy({ seed: 1 }, (policy) => {
    pending = retry(() => new Promise((resolve) => (release = resolve)), { policy });
  });
  release('late');
  assert.equal(await pending, 'late');
});

test('bad arguments are TypeErrors naming the argument', async () => {
  await assert.rejects(withPolicy({}, 'run'), { code: 'wrong_type', field: 'run' });
  await assert.rejects(withPolicy({}, () => 1, { stor: kv() }), { code: 'unknown_field' });
  await assert.rejects(withPolicy({}, () => 1, { store: { get() {} } }), { code: 'wrong_type', field: 'store.put' });
  await assert.rejects(withPolicy({ maxAttempt: 3 }, () => 1), { name: 'ConfigError' });
  assert.ok(new Policy() instanceof Policy);
});

test('a request that made no call writes nothing back (a store such as KV limits writes per key)', async () => {
  const store = kv();
  await withPolicy({ seed: 1 }, (policy) => retry(() => 1, { policy, scope: 'api' }), { store });
  let writes = 0;
  const counting = { get: store.get, put: async (k, v) => { writes += 1; return store.put(k, v); } };
  await withPolicy({ seed: 1 }, () => 'cached answer', { store: counting });
  assert.equal(writes, 0, 'nothing changed: no write');
  await withPolicy({ seed: 1 }, (policy) => retry(() => 2, { policy, scope: 'api' }), { store: counting });
  assert.equal(writes, 1, 'a call changed the counts: written');
});
