/**
 * `withPolicy(options, run, { store, key })`: a policy for the length of one
 * request, restored from a store before and saved after, and always freed.
 *
 * An edge worker that builds a policy per request must free it: workerd has
 * no `FinalizationRegistry`, so a policy left to the garbage collector keeps
 * its wasm memory for the life of the isolate (about 14 KB a request, which
 * reaches a Worker's 128 MB limit within 10,000 requests). This helper owns
 * the policy's whole life, so there is no `free()` to forget and an
 * exception cannot skip it.
 */
import { hookFailed } from './hooks.js';
import { callable, knownOptions, plainObject, text } from './guard.js';
import { Policy, type PolicyOptions } from './policy.js';

/** Where the policy's state lives between requests: a Workers KV namespace, or anything with the same `get`/`put`. */
export interface PolicyStore {
  get(key: string): PromiseLike<string | null | undefined> | string | null | undefined;
  put(key: string, value: string): PromiseLike<unknown> | unknown;
}

export interface WithPolicyOptions {
  /** Restores from and saves to this store (omit it for a policy that starts fresh each time). */
  store?: PolicyStore;
  /** The entry in the store (default `"stoic"`). */
  key?: string;
}

const OPTIONS = new Set(['store', 'key']);

/**
 * Runs `run(policy)` with a new `Policy(options)`, restored from
 * `store.get(key)` when it holds a snapshot; afterwards, whatever `run`
 * did, saves `policy.snapshot()` with `store.put(key, ...)` and frees the
 * policy (after its last call ends). `run`'s result or error is the
 * result: a store that fails, or holds text that is not a snapshot, is
 * reported once through `console.warn` and never fails the request (the
 * policy then starts fresh, or its state is not saved this time).
 */
export async function withPolicy<T>(
  options: PolicyOptions,
  run: (policy: Policy) => T | PromiseLike<T>,
  where: WithPolicyOptions = {},
): Promise<T> {
  callable(run, 'run');
  const { store, key = 'stoic' } = plainObject<WithPolicyOptions>(where, 'withPolicy(options, run, where)');
  knownOptions(where, OPTIONS, 'withPolicy(options, run, where)');
  text(key, 'key');
  if (store !== undefined) {
    callable(store.get, 'store.get');
    callable(store.put, 'store.put');
  }
  const policy = new Policy(options);
  let restored: string | undefined;
  try {
    if (store !== undefined) restored = await restoreFrom(policy, store, key);
    return await run(policy);
  } finally {
    try {
      if (store !== undefined) await saveTo(policy, store, key, restored);
    } finally {
      policy.free();
    }
  }
}

/**
 * Restores the stored snapshot, if any, and returns its text (undefined:
 * started fresh). A snapshot restored and taken again reads the same, so
 * the text tells whether the request changed anything without taking a
 * second snapshot (text that differs anyway, such as another config's, is
 * written back: a write too many, never one too few).
 */
async function restoreFrom(policy: Policy, store: PolicyStore, key: string): Promise<string | undefined> {
  try {
    const saved = await store.get(key);
    if (typeof saved !== 'string' || saved === '') return undefined;
    policy.restore(saved);
    return saved;
  } catch (error) {
    hookFailed(`withPolicy: restoring "${key}" from the store`, store, error, 'the policy started fresh');
    return undefined;
  }
}

/** Saves the snapshot unless nothing changed (a request that made no call): a store such as KV limits writes per key. */
async function saveTo(policy: Policy, store: PolicyStore, key: string, restored: string | undefined): Promise<void> {
  try {
    const snapshot = policy.snapshot();
    if (snapshot !== restored) await store.put(key, snapshot);
  } catch (error) {
    hookFailed(`withPolicy: saving "${key}" to the store`, store, error, 'the state of this request was not saved');
  }
}
