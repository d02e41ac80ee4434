// canonical_json (jcs.json), es6_number (jcs_numbers.json) and
// idempotency_key (idempotency_keys.json) through the package's helpers:
// the Node entry's by default, or the entry passed as `api` (the client
// build's, in test/client_build.test.js).
import assert from 'node:assert/strict';
import * as nodeEntry from '../dist/node.js';
import { expectError } from './vectors.js';

export function runCanonicalJson(name, doc, api = nodeEntry) {
  const { canonicalJson, canonicalizeJsonText, InputError } = api;
  for (const c of doc.cases) {
    const got = canonicalizeJsonText(c.input);
    assert.equal(got, c.expected, `${name} ${c.name}`);
    assert.equal(canonicalizeJsonText(got), got, `${name} ${c.name}: fixed point`);
    // The value form, as a JavaScript caller passes it.
    assert.equal(canonicalJson(JSON.parse(c.input)), c.expected, `${name} ${c.name}: value form`);
  }
  for (const c of doc.error_cases) {
    const error = expectError(`${name} ${c.name}`, () => canonicalizeJsonText(c.input), c.code);
    assert.ok(error instanceof InputError, `${c.name}: ${error.name}`);
  }
  return doc.cases.length + doc.error_cases.length;
}

function fromBits(hex) {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

export function runEs6Numbers(name, doc, api = nodeEntry) {
  const { canonicalJson, canonicalizeJsonText } = api;
  assert.equal(doc.cases.length, 1000);
  for (const c of doc.cases) {
    const value = fromBits(c.bits);
    if (Number.isInteger(value) && Math.abs(value) > 2 ** 53 && Math.abs(value) < 1e21) {
      // A JS number past 2^53 may be an id the parser rounded: the value
      // helper refuses it (pass ids as strings); the text form below still
      // canonicalizes it as RFC 8785 says.
      assert.throws(() => canonicalJson(value), { code: 'number_out_of_range' }, `${name} bits ${c.bits}`);
    } else {
      assert.equal(canonicalJson(value), c.expected, `${name} bits ${c.bits}`);
    }
    assert.equal(canonicalizeJsonText(c.expected), c.expected, `${name} bits ${c.bits}: text`);
  }
  return doc.cases.length;
}

function bytesOf(hex) {
  return Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16));
}

export function runIdempotencyKeys(name, doc, api = nodeEntry) {
  const { canonicalizeJsonText, idempotencyKey, idempotencyKeyFromText, keyHeaderValue, parseKeyHeader, randomKey } = api;
  for (const c of doc.cases) {
    assert.equal(canonicalizeJsonText(c.args_text), c.canonical, `${name} ${c.name}`);
    assert.equal(idempotencyKeyFromText(c.run_id, c.step, c.args_text), c.expected, `${name} ${c.name}`);
    assert.equal(idempotencyKey(c.run_id, c.step, c.args), c.expected, `${name} ${c.name}: value form`);
  }
  for (const c of doc.error_cases) {
    expectError(`${name} ${c.name}`, () => idempotencyKeyFromText(c.run_id, c.step, c.args_text), c.code);
  }
  for (const c of doc.random_cases) {
    assert.equal(randomKey(bytesOf(c.bytes_hex)), c.expected, `${name} ${c.bytes_hex}`);
  }
  for (const c of doc.header_cases) {
    assert.equal(keyHeaderValue(c.key, c.form), c.expected, `${name} ${JSON.stringify(c.key)} ${c.form}`);
  }
  for (const c of doc.parse_header_cases) {
    assert.equal(parseKeyHeader(c.value), c.expected, `${name} parse ${JSON.stringify(c.value)}`);
  }
  return (
    doc.cases.length +
    doc.error_cases.length +
    doc.random_cases.length +
    doc.header_cases.length +
    doc.parse_header_cases.length
  );
}
