// Helpers for the vector runner: loading the shared files and converting
// keys between the vectors' snake_case and the package's camelCase.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

export const VECTORS = fileURLToPath(new URL('../../tests/vectors/', import.meta.url));

/** Every JSON file in tests/vectors, parsed, sorted by name. */
export function vectorFiles() {
  return readdirSync(VECTORS)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, doc: JSON.parse(readFileSync(VECTORS + name, 'utf8')) }));
}

export const toSnake = (key) => key.replace(/[A-Z]/g, (c, i) => (i > 0 ? '_' : '') + c.toLowerCase());
export const toCamel = (key) => key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

function mapKeys(value, convert) {
  if (Array.isArray(value)) return value.map((v) => mapKeys(v, convert));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [convert(k), mapKeys(v, convert)]));
  }
  return value;
}

/** The package's camelCase output in the vectors' snake_case, to compare. */
export const snake = (value) => mapKeys(value, toSnake);
/** A vector's snake_case input as a JavaScript caller writes it. */
export const camel = (value) => mapKeys(value, toCamel);

/** Asserts each field of `expect` (snake_case) against `actual` (camelCase). */
export function checkFields(context, actual, expect) {
  const got = snake(actual);
  for (const [key, want] of Object.entries(expect ?? {})) {
    assert.deepEqual(got?.[key] ?? null, want, `${context}: field ${key} of ${JSON.stringify(got)}`);
  }
}

/** Runs `body`, expecting it to throw an error with `code` (and `field`, snake_case). */
export function expectError(context, body, code, field) {
  let error;
  try {
    body();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error, `${context}: expected an Error, got ${error}`);
  assert.equal(error.code, code, `${context}: code of ${error}`);
  if (field !== undefined) assert.equal(toSnake(error.field ?? ''), field, `${context}: field of ${error}`);
  return error;
}
