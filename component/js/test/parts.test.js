// backoff.json, breaker_scenarios.json, budget.json, records.json and
// server_idempotency.json through the component's `backoff`, `parts` and
// `server` interfaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { big, engine, failure, load, plain, snake } from './engine.js';

const { Breaker, Budget, Metrics } = engine.parts;

test('component backoff', () => {
  const doc = load('backoff.json', 'backoff');
  for (const c of doc.cases) {
    const backoff = engine.backoff.Backoff.create(JSON.stringify(c.spec), BigInt(c.seed));
    assert.deepEqual(c.retries.map((k) => plain(backoff.delayMs(k))), c.expected_ms, c.name);
  }
  for (const c of doc.invalid_cases) {
    const error = failure(() => engine.backoff.Backoff.create(JSON.stringify(c.spec), 0n));
    assert.deepEqual([error.code, error.field], [c.code, c.field], c.name);
  }
});

function breakerStep(b, step, permits) {
  const now = BigInt(step.t_ms);
  const duration = BigInt(step.duration_ms ?? 0);
  const seen = {};
  switch (step.op) {
    case 'acquire':
    case 'call_success':
    case 'call_failure': {
      const admit = b.tryAcquire(now);
      seen.admitted = admit.tag === 'admitted';
      if (seen.admitted) {
        if (step.permit) permits.set(step.permit, admit.val);
        if (step.op === 'call_success') seen.counted = b.onSuccess(now, admit.val, duration);
        if (step.op === 'call_failure') seen.counted = b.onFailure(now, admit.val, duration);
      } else {
        seen.rejection = plain(admit.val);
      }
      break;
    }
    case 'success':
      seen.counted = b.onSuccess(now, permits.get(step.permit), duration);
      break;
    case 'failure':
      seen.counted = b.onFailure(now, permits.get(step.permit), duration);
      break;
    case 'release':
      seen.counted = b.release(permits.get(step.permit));
      break;
    default:
      assert.equal(step.op, 'observe');
  }
  return seen;
}

for (const restoreEveryStep of [false, true]) {
  test(`component breaker scenarios (restore every step: ${restoreEveryStep})`, () => {
    const doc = load('breaker_scenarios.json', 'breaker');
    assert.ok(doc.scenarios.length >= 29);
    for (const scenario of doc.scenarios) {
      let b = Breaker.create(JSON.stringify(scenario.config));
      const permits = new Map();
      scenario.steps.forEach((step, n) => {
        const ctx = `${scenario.id} step ${n}`;
        if (restoreEveryStep) b = Breaker.fromSnapshot(b.snapshot());
        let seen = {};
        for (let r = 0; r < (step.repeat ?? 1); r++) seen = breakerStep(b, step, permits);
        const drained = [];
        for (let t = b.pollTransition(); t !== undefined; t = b.pollTransition()) {
          const got = plain(t);
          drained.push({ from: snake(got.from), to: snake(got.to), at_ms: got.at, reason: got.reason });
        }
        const now = BigInt(step.t_ms);
        const state = JSON.parse(b.stateJson());
        for (const [key, want] of Object.entries(step.expect ?? {})) {
          let got;
          if (key === 'admitted' || key === 'counted') got = seen[key];
          else if (key === 'reject_reason') got = seen.rejection.reason;
          else if (key === 'retry_at_ms') got = seen.rejection.retry_at;
          else if (key === 'state') {
            got = snake(b.stateAt(now));
            assert.equal(got, state.kind, ctx);
          } else if (['consecutive_failures', 'probes_in_flight', 'successes'].includes(key)) got = state[key];
          else if (key === 'window') {
            const text = b.windowCountsJson(now);
            got = text === undefined ? null : JSON.parse(text);
          } else if (key === 'next_timeout_ms') got = plain(b.nextTimeout());
          else if (key === 'transitions') got = drained;
          else assert.fail(`${ctx}: unknown expect key ${key}`);
          assert.deepEqual(got, want, `${ctx}: ${key}`);
        }
      });
    }
  });
}

const COSTS = { retry: 'normal', retry_timeout: 'timeout', retry_throttling: 'throttling' };

test('component budget scenarios', () => {
  const doc = load('budget.json', 'budget');
  let total = 0;
  for (const scenario of doc.scenarios) {
    const budget = Budget.create(JSON.stringify(scenario.config));
    const tickets = new Map();
    const ended = new Map();
    const run = (steps, at) => {
      steps.forEach((step, index) => {
        const here = `${at}[${index}]`;
        if ('repeat' in step) {
          for (let r = 0; r < step.repeat; r++) run(step.steps, `${here}#${r}`);
          return;
        }
        total += 1;
        const now = BigInt(step.t_ms);
        const name = step.call ?? '';
        let grant;
        switch (step.op) {
          case 'first_attempt':
            tickets.delete(name);
            budget.onFirstAttempt(now);
            break;
          case 'failure':
            budget.onAttemptFailure(now);
            break;
          case 'success':
            budget.onAttemptSuccess(now, undefined);
            break;
          case 'success_after_retry':
            ended.set(name, tickets.get(name));
            tickets.delete(name);
            budget.onAttemptSuccess(now, ended.get(name));
            break;
          case 'success_after_retry_again':
            budget.onAttemptSuccess(now, ended.get(name));
            break;
          case 'reconfigure':
            budget.reconfigure(JSON.stringify(step.config));
            break;
          default:
            assert.ok(COSTS[step.op], `${here}: unknown op ${step.op}`);
            grant = budget.tryRetry(now, COSTS[step.op]);
            if (grant.tag === 'allowed') tickets.set(name, grant.val);
        }
        const events = [];
        for (let e = budget.pollEvent(); e !== undefined; e = budget.pollEvent()) {
          const { message, ...rest } = plain(e);
          assert.ok(message, here);
          events.push(rest);
        }
        const snapshot = budget.snapshot();
        assert.equal(Budget.fromSnapshot(snapshot).snapshot(), snapshot, here);
        const status = JSON.parse(budget.statusJson(now));
        const allowed = grant?.tag === 'allowed';
        for (const [key, want] of Object.entries(step.expect ?? {})) {
          let got;
          if (key === 'allowed') got = allowed;
          else if (key === 'refused_by') got = grant && !allowed ? grant.val : null;
          else if (key === 'cost') got = allowed ? plain(grant.val).token_cost : null;
          else if (key === 'tokens') got = status.token_bucket && status.token_bucket.tokens;
          else if (key === 'grpc_milli_tokens') got = status.grpc && status.grpc.milli_tokens;
          else if (key === 'run_cap_used') got = status.run_cap && status.run_cap.used;
          else if (key === 'ratio') got = status.ratio;
          else if (key === 'events') got = events;
          else assert.fail(`${here}: unknown expect key ${key}`);
          assert.deepEqual(got, want, `${here}: ${key}`);
        }
      });
    };
    run(scenario.steps, scenario.id);
  }
  assert.ok(total > 1000);
  for (const c of doc.config_errors) {
    const error = failure(() => Budget.create(JSON.stringify(c.config)));
    // Fields are named as the caller wrote them: relative to the part.
    assert.deepEqual([error.code, error.field], [c.code, c.field.replace(/^budget\./, '')], JSON.stringify(c));
  }
});

test('component log records', () => {
  const doc = load('records.json', 'records');
  for (const c of doc.log_cases) {
    const i = c.input;
    const log = plain(
      engine.parts.formatLogRecord({
        wallNowUnixMs: BigInt(i.wall_now_unix_ms),
        operation: i.operation,
        attempt: i.attempt,
        maxAttempts: i.max_attempts,
        delayMs: BigInt(i.delay_ms),
        error: i.error ?? undefined,
        strategy: i.strategy,
        outcome: i.outcome,
        totalDurationMs: BigInt(i.total_duration_ms),
      }),
    );
    assert.equal(log.line, c.expected_json_line, c.name);
    assert.equal(log.text, c.expected_display, c.name);
  }
});

function closeEnough(actual, expected) {
  if (Object.keys(actual).sort().join() !== Object.keys(expected).sort().join()) return false;
  return Object.entries(expected).every(([k, want]) =>
    k === 'value' || k === 'threshold' ? Math.abs(actual[k] - want) <= 1e-12 : actual[k] === want,
  );
}

test('component metrics, alerts and merges', () => {
  const doc = load('records.json', 'records');
  for (const s of doc.metrics_scenarios) {
    const metrics = Metrics.create(JSON.stringify(s.alert_config));
    const events = [];
    for (const step of s.steps) {
      const now = BigInt(step.t_ms);
      if (step.op === 'attempt') metrics.onAttempt(now, step.is_retry);
      else if (step.op === 'retry_scheduled') metrics.onRetryScheduled(now);
      else if (step.op === 'call_finished') {
        metrics.onCallFinished(now, step.retries, step.outcome, BigInt(step.duration_ms));
      } else if (step.op === 'breaker_state') {
        const known = metrics.setBreakerState(step.state);
        assert.equal(known, ['closed', 'half_open', 'open'].includes(step.state));
      } else if (step.op === 'evaluate') metrics.evaluate(now);
      else assert.fail(step.op);
      for (let e = metrics.pollEvent(); e !== undefined; e = metrics.pollEvent()) {
        events.push({ kind: 'alert_changed', ...plain(e) });
      }
    }
    assert.deepEqual(JSON.parse(metrics.snapshotJson()), s.expected_snapshot, s.name);
    assert.equal(events.length, s.expected_alert_events.length, s.name);
    events.forEach((e, n) => assert.ok(closeEnough(e, s.expected_alert_events[n]), `${s.name}: ${JSON.stringify(e)}`));
  }
  for (const c of doc.merge_cases) {
    const merged = engine.parts.mergeMetrics(JSON.stringify(c.a), JSON.stringify(c.b));
    assert.deepEqual(JSON.parse(merged), c.expected, c.name);
  }
  for (const c of doc.catalogue_cases) {
    const given = Object.entries(c.metrics).map(([scope, m]) => [scope, JSON.stringify(m)]);
    assert.deepEqual(JSON.parse(engine.parts.metricCatalogue(given)), c.expected, c.name);
  }
});

function entry(stored) {
  const { kind, ...state } = stored.state;
  const val = Object.fromEntries(
    Object.entries(state).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), k === 'status' ? v : BigInt(v)]),
  );
  return { fingerprint: stored.fingerprint, state: { tag: kind.replaceAll('_', '-'), val } };
}

test('component server idempotency', () => {
  const doc = load('server_idempotency.json', 'server_idempotency');
  assert.ok(doc.cases.length >= 10);
  for (const c of doc.cases) {
    const server = engine.server.ServerIdempotency.create(JSON.stringify(c.config ?? {}));
    const stored = c.stored === null ? undefined : entry(c.stored);
    const decision = server.decide(BigInt(c.now_unix_ms), c.key ?? undefined, c.fingerprint, stored);
    assert.deepEqual(plain(decision), c.expected, c.name);
  }
  for (const c of doc.fingerprint_cases) assert.equal(engine.server.fingerprint(c.body), c.expected);
  void big;
});
