// config_errors.json through `new Policy(config)`: each case's `js` config
// (as a JavaScript caller writes it), the error's class and code, and its
// field exactly as the vector spells it in the JS dialect; for `problems`
// cases, every problem in order.
import assert from 'node:assert/strict';
import { ConfigError, Policy } from '../dist/node.js';

export function runConfigErrors(name, doc) {
  let runs = 0;
  for (const c of doc.cases) {
    if (c.config.js === undefined) continue;
    const context = `${name} ${c.name}`;
    let error;
    try {
      new Policy(c.config.js);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof Error, `${context}: expected an error`);
    assert.equal(error.name, c.class, `${context}: ${error}`);
    assert.ok(error instanceof ConfigError, `${context}: ${error.name}`);
    assert.deepEqual([error.code, error.field], [c.code, c.field.js], `${context}: ${error.message}`);
    if (c.problems !== undefined) {
      const got = error.problems.map((p) => [p.code, p.field]);
      assert.deepEqual(got, c.problems.js, `${context}: every problem`);
    }
    runs += 1;
  }
  assert.ok(runs >= 30, `only ${runs} cases ran`);
  return runs;
}
