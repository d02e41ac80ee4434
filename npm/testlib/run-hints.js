// retry_after.json and server_hints.json through parseRetryAfter,
// parseHttpDate and serverHint.
import assert from 'node:assert/strict';
import { parseHttpDate, parseRetryAfter, serverHint } from '../dist/node.js';
import { snake } from './vectors.js';

export function runRetryAfter(name, doc) {
  for (const c of doc.cases) {
    const got = parseRetryAfter(c.input, c.now_unix_ms);
    assert.equal(got, c.expected_ms, `${name} ${JSON.stringify(c.input)} at ${c.now_unix_ms}`);
    if (c.policy_max_ms !== undefined && c.policy_max_ms !== null) {
      const clamped = got === null ? null : Math.min(got, c.policy_max_ms);
      assert.equal(clamped, c.expected_clamped_ms, `${name} ${JSON.stringify(c.input)} clamped`);
    }
    if (c.saturates === true) assert.equal(got, 2 ** 64, `${name} ${c.input} saturates`);
  }
  for (const c of doc.http_date_cases) {
    const got = parseHttpDate(c.input, c.now_unix_s ?? undefined);
    assert.equal(got, c.expected_unix_s, `${name} date ${JSON.stringify(c.input)}`);
  }
  return doc.cases.length + doc.http_date_cases.length;
}

export function runServerHints(name, doc) {
  for (const c of doc.cases) {
    const context = `${name} ${c.description}`;
    const hint = serverHint(c.headers, { wallNowMs: c.wall_now_unix_ms, backoffMs: c.backoff_ms });
    const expected = c.expected;
    if (expected.kind === 'none') {
      assert.equal(hint, null, context);
    } else {
      const got = snake(hint);
      assert.equal(got.kind, expected.kind, context);
      assert.equal(got.source, expected.source, context);
      if (expected.kind === 'delay') assert.equal(got.delay_ms, expected.delay_ms, context);
      if (expected.kind === 'bounded') assert.equal(got.hint_ms, expected.hint_ms, context);
      assert.equal(got.delay_with_backoff_ms, expected.delay_ms ?? null, `${context}: delay with backoff`);
    }
    const effective = hint === null ? c.backoff_ms : hint.delayWithBackoffMs;
    assert.equal(effective, c.effective_delay_ms, `${context}: effective delay`);
  }
  return doc.cases.length;
}
