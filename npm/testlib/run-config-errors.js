// config_errors.json through `new Policy(config)`: the config as a
// JavaScript caller writes it (camelCase keys), the error's field as the
// caller spelled it, compared in the vectors' snake_case.
import assert from 'node:assert/strict';
import { ConfigError, Policy } from '../dist/node.js';
import { camel, expectError } from './vectors.js';

export function runConfigErrors(name, doc) {
  for (const c of doc.cases) {
    const context = `${name} ${c.name}`;
    const error = expectError(context, () => new Policy(camel(c.config)), c.code, c.field);
    // A value the core rejects is a ConfigError; a wrong shape is a TypeError.
    const shape = c.code === 'wrong_type';
    assert.equal(error instanceof TypeError, shape, `${context}: ${error.name}`);
    assert.equal(error instanceof ConfigError, !shape, `${context}: ${error.name}`);
  }
  return doc.cases.length;
}
