/**
 * The core's plan for one HTTP request (`stoic_core::host::http_plan`):
 * its operation name, its scope, whether it is safe to repeat, whether to
 * add a random key and whether the engine may trust the key sent.
 *
 * The binding returns it packed into one string (a digit of flags, the
 * scope's length, a newline, the scope, the operation), because building
 * an object field by field across the boundary cost 5 to 8 us per request;
 * this only unpacks it.
 * @internal
 */
import { httpPlan } from './wasm/stoic_wasm.js';

export interface HttpPlan {
  operation: string;
  scope: string;
  safeToRepeat: boolean;
  autoKey: boolean;
  trustKey: boolean;
}

export function planOf(
  method: string,
  host: string,
  path: string,
  key: string | undefined,
  serverDeduplicates: boolean,
  autoKeys: boolean,
): HttpPlan {
  const packed = httpPlan(method, host, path, key, serverDeduplicates, autoKeys);
  const flags = packed.charCodeAt(0) - 48;
  const newline = packed.indexOf('\n');
  const scopeEnd = newline + 1 + Number(packed.slice(1, newline));
  return {
    operation: packed.slice(scopeEnd),
    scope: packed.slice(newline + 1, scopeEnd),
    safeToRepeat: (flags & 1) !== 0,
    autoKey: (flags & 2) !== 0,
    trustKey: (flags & 4) !== 0,
  };
}
