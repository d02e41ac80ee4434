/** Response headers packed for one crossing into the module. */
import type { HeadersLike } from './types.js';
import { Abi } from './abi.generated.js';

/**
 * `name\nvalue\nname\nvalue...` (the separator is wasm/src/abi.rs's); separators inside names or values become
 * spaces. Garbage is ignored, never thrown: an entry that is not a name
 * and a string or number value is skipped, and so are headers that are
 * neither iterable pairs nor a plain object.
 */
export function packHeaders(headers: HeadersLike | undefined): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const parts: string[] = [];
  const add = (name: unknown, value: unknown) => {
    if (typeof name !== 'string') return;
    if (typeof value !== 'string' && typeof value !== 'number') return;
    parts.push(name.replaceAll(Abi.HEADER_SEPARATOR, ' '), String(value).replaceAll(Abi.HEADER_SEPARATOR, ' '));
  };
  if (isIterable(headers)) {
    for (const entry of headers as Iterable<unknown>) {
      if (Array.isArray(entry)) add(entry[0], entry[1]);
    }
  } else {
    for (const name of Object.keys(headers)) add(name, (headers as Record<string, unknown>)[name]);
  }
  return parts.join(Abi.HEADER_SEPARATOR);
}

function isIterable(value: object): boolean {
  return typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}
