/** Response headers packed for one crossing into the module. */
import type { HeadersLike } from './types.js';

/** `name\nvalue\nname\nvalue...`; newlines inside names or values become spaces. */
export function packHeaders(headers: HeadersLike | undefined): string | undefined {
  if (headers === undefined) return undefined;
  const parts: string[] = [];
  const add = (name: string, value: string) => {
    parts.push(name.replace(/\n/g, ' '), String(value).replace(/\n/g, ' '));
  };
  if (isIterable(headers)) {
    for (const [name, value] of headers) add(name, value);
  } else {
    for (const name of Object.keys(headers)) add(name, headers[name] as string);
  }
  return parts.join('\n');
}

function isIterable(value: HeadersLike): value is Iterable<readonly [string, string]> {
  return typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}
