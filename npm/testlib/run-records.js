// records.json through logRecord, Metrics, mergeMetrics and metricCatalogue.
import assert from 'node:assert/strict';
import { logRecord, mergeMetrics, metricCatalogue, Metrics } from '../dist/node.js';
import { camel, snake } from './vectors.js';

export function runRecords(name, doc) {
  for (const c of doc.log_cases) {
    const input = c.input;
    const record = logRecord({
      wallNowMs: input.wall_now_unix_ms,
      operation: input.operation,
      attempt: input.attempt,
      maxAttempts: input.max_attempts,
      delayMs: input.delay_ms,
      error: input.error,
      strategy: input.strategy,
      outcome: input.outcome,
      totalDurationMs: input.total_duration_ms,
    });
    assert.equal(record.line, c.expected_json_line, `${name} ${c.name}: line`);
    assert.equal(record.text, c.expected_display, `${name} ${c.name}: text`);
    const { line, text, ...fields } = record;
    assert.deepEqual(snake(fields), JSON.parse(c.expected_json_line), `${name} ${c.name}: object`);
  }
  for (const s of doc.metrics_scenarios) {
    const metrics = new Metrics(camel(s.alert_config));
    const events = [];
    for (const step of s.steps) {
      const now = step.t_ms;
      switch (step.op) {
        case 'attempt':
          metrics.onAttempt(now, step.is_retry);
          break;
        case 'retry_scheduled':
          metrics.onRetryScheduled(now);
          break;
        case 'call_finished':
          metrics.onCallFinished(now, { retries: step.retries, outcome: step.outcome, durationMs: step.duration_ms });
          break;
        case 'breaker_state': {
          const known = ['closed', 'half_open', 'open'].includes(step.state);
          assert.equal(metrics.setBreakerState(step.state), known, `${s.name}: ${step.state}`);
          break;
        }
        case 'evaluate':
          metrics.evaluate(now);
          break;
        default:
          throw new Error(`${s.name}: unknown op ${step.op}`);
      }
      for (let e = metrics.pollEvent(); e !== undefined; e = metrics.pollEvent()) events.push(snake(e));
    }
    assert.deepEqual(snake(metrics.snapshot()), s.expected_snapshot, `${name} ${s.name}: snapshot`);
    assert.equal(events.length, s.expected_alert_events.length, `${s.name}: ${JSON.stringify(events)}`);
    events.forEach((event, i) => {
      const want = s.expected_alert_events[i];
      for (const key of ['kind', 'rule', 'from', 'to', 'at']) assert.equal(event[key], want[key], `${s.name}: ${key}`);
      for (const key of ['value', 'threshold']) {
        assert.ok(Math.abs(event[key] - want[key]) <= 1e-12, `${s.name}: ${key} ${event[key]} != ${want[key]}`);
      }
    });
  }
  for (const c of doc.merge_cases) {
    assert.deepEqual(snake(mergeMetrics(camel(c.a), camel(c.b))), c.expected, `${name} ${c.name}`);
  }
  for (const c of doc.catalogue_cases) {
    // Scope names are data, kept as given; each snapshot in the JS spelling.
    const metrics = Object.fromEntries(Object.entries(c.metrics).map(([scope, s]) => [scope, camel(s)]));
    assert.deepEqual(snake(metricCatalogue(metrics)), c.expected, `${name} ${c.name}`);
  }
  assert.deepEqual(snake(metricCatalogue()), doc.catalogue_cases[0].expected, `${name} the catalogue alone`);
  return doc.log_cases.length + doc.metrics_scenarios.length + doc.merge_cases.length + doc.catalogue_cases.length;
}
