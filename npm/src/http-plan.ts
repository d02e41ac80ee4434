/**
 * The core's plan for one HTTP request (`stoic_core::host::http_plan`):
 * its operation name, its scope, whether it is safe to repeat, whether to
 * add a random key and whether the engine may trust the key sent.
 *
 * The binding returns it packed into one string (a digit of flags, the
 * scope's length, a mark, the scope, the operation: see wasm/src/abi.rs), because building
 * an object field by field across the boundary cost 5 to 8 us per request;
 * this only unpacks it.
 * @internal
 */
import { httpPlan } from './wasm/stoic_wasm.js';
import { Abi } from './abi.generated.js';

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
  const flags = packed.charCodeAt(0) - Abi.HTTP_PLAN_DIGIT_ZERO;
  const mark = packed.indexOf(Abi.HTTP_PLAN_SCOPE_MARK);
  const scopeEnd = mark + 1 + Number(packed.slice(1, mark));
  return {
    operation: packed.slice(scopeEnd),
    scope: packed.slice(mark + 1, scopeEnd),
    safeToRepeat: (flags & Abi.HTTP_PLAN_SAFE_TO_REPEAT) !== 0,
    autoKey: (flags & Abi.HTTP_PLAN_AUTO_KEY) !== 0,
    trustKey: (flags & Abi.HTTP_PLAN_TRUST_KEY) !== 0,
  };
}
