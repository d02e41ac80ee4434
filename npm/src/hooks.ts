/**
 * Hooks and listeners never fail a call: a call's result is its function's
 * (or the engine's decision), whatever a hook does. A hook that throws or
 * rejects is reported once, through `console.warn`, and the call goes on as
 * if it had returned.
 */

const reported = new WeakSet<object>();

/**
 * Reports `hook`'s failure the first time it fails (later failures are
 * dropped); `outcome` says what happened instead.
 */
export function hookFailed(
  name: string,
  hook: object,
  error: unknown,
  outcome = 'the call went on without it (each hook is reported once)',
): void {
  if (reported.has(hook)) return;
  reported.add(hook);
  console.warn(`stoic: ${name} threw; ${outcome}:`, error);
}
