// The stoic component as `jco transpile` turns it into an ES module
// (target/component/js/stoic.js, written by `make component-js`), and the
// helpers the vector runners share: `plain` gives a WIT value the vector
// files' spelling (camelCase keys become snake_case, a variant becomes its
// payload's fields with the case name under `kind`, u64 BigInts become
// numbers, as JSON.parse reads the vector files' numbers; a test that needs
// a value beyond 2^53 exactly compares the BigInt itself), `big` turns a
// vector's number into the BigInt a u64 takes.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const VECTORS = path.join(root, 'tests/vectors');
export const COMPONENT_JS = path.join(root, 'target/component/js/stoic.js');

export const engine = await import(COMPONENT_JS);

export const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replaceAll('-', '_');

export function plain(value) {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value) || value instanceof Uint8Array) return Array.from(value, plain);
  if (value === null || typeof value !== 'object') return value === undefined ? null : value;
  if (typeof value.tag === 'string' && Object.keys(value).every((k) => k === 'tag' || k === 'val')) {
    const payload = plain(value.val);
    const kind = snake(value.tag);
    return payload !== null && typeof payload === 'object' && !Array.isArray(payload)
      ? { kind, ...payload }
      : { kind, value: payload };
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), plain(v)]));
}

/** A vector's number (or null) as a u64 argument. */
export const big = (n) => (n === null || n === undefined ? undefined : BigInt(n));

/** The `err` payload of a call that must fail, in plain form. */
export function failure(f) {
  try {
    f();
  } catch (error) {
    if (error && typeof error === 'object' && 'payload' in error) return plain(error.payload);
    throw error;
  }
  throw new Error('expected the component to return an error');
}

export function load(name, kind) {
  const doc = JSON.parse(readFileSync(path.join(VECTORS, name), 'utf8'));
  if (doc.kind !== kind) throw new Error(`${name}: kind ${doc.kind}, not ${kind}`);
  return doc;
}

export function vectorDocs() {
  return readdirSync(VECTORS)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((name) => ({ name, doc: JSON.parse(readFileSync(path.join(VECTORS, name), 'utf8')) }));
}

/** JSON text of a vector's document. A whole number beyond 2^53 is a
 * double in JS, and is written as one (`1.152921504606847e+18`), as the
 * vector file writes it, not as the integer JSON.stringify would print. */
export function jsonText(value) {
  const marked = JSON.stringify(value, (_key, v) =>
    typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) ? `\u0000${v.toExponential()}` : v,
  );
  return marked.replace(/"\\u0000([^"]+)"/g, '$1');
}
