// `stoic/opentelemetry` with the real OpenTelemetry SDK: its in-memory metric
// exporter and span exporter, the async-hooks context manager, calls through
// retry() and createFetch() against a local server. The points the SDK
// aggregates, summed over their attributes, are the policy's own metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Policy, createFetch, metricCatalogue, retry } from '../dist/node.js';
import { instrument } from '../dist/opentelemetry.js';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const sleep = async () => {};

/** A meter provider whose points can be read at will. */
function meters() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    provider,
    /** Metric name -> its data points, from one collection. */
    async points() {
      const { resourceMetrics } = await reader.collect();
      const out = new Map();
      for (const scope of resourceMetrics.scopeMetrics) {
        assert.equal(scope.scope.name, 'stoic');
        for (const metric of scope.metrics) out.set(metric.descriptor.name, metric.dataPoints);
      }
      return out;
    },
  };
}

/** A tracer provider whose finished spans can be read. */
function tracers() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, spans: () => exporter.getFinishedSpans() };
}

/** `payments`: a call that succeeds after two retries and one that gives up on a 404; `search`: one success. */
async function traffic(policy) {
  let failures = 2;
  await retry(
    () => {
      if (failures-- > 0) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      return 'paid';
    },
    { policy, scope: 'payments', operation: 'pay', sleep },
  );
  await retry(() => 'found', { policy, scope: 'search', operation: 'search', sleep });
  await assert.rejects(
    retry(
      () => {
        throw Object.assign(new Error('no such order'), { status: 404 });
      },
      { policy, scope: 'payments', operation: 'lookup', sleep, classify: () => ({ kind: 'rejected', class: 'deterministic' }) },
    ),
  );
}

const key = (attributes) => JSON.stringify(Object.entries(attributes).sort());

test('each point carries its call, and the sums are the policy metrics', async () => {
  const { provider, points } = meters();
  const policy = new Policy({ seed: 7 });
  instrument(policy, { meterProvider: provider, traces: false });
  await traffic(policy);
  const got = await points();

  const calls = new Map(got.get('stoic.calls').map((p) => [key(p.attributes), p.value]));
  assert.deepEqual(
    calls,
    new Map([
      [key({ scope: 'payments', operation: 'pay', outcome: 'success' }), 1],
      [key({ scope: 'search', operation: 'search', outcome: 'success' }), 1],
      [key({ scope: 'payments', operation: 'lookup', outcome: 'gave_up', reason: 'not_retryable' }), 1],
    ]),
  );
  const retries = got.get('stoic.retries').map((p) => [p.attributes.reason, p.value]);
  assert.deepEqual(retries, [['network_connect_refused', 2]]);

  // Summed over the attributes, each counter is the policy's own metric.
  const snapshots = policy.metrics();
  for (const metric of metricCatalogue()) {
    if (metric.kind !== 'counter') continue;
    const field = metric.field.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
    for (const [scope, snapshot] of Object.entries(snapshots)) {
      const total = (got.get(metric.otelName) ?? [])
        .filter((p) => p.attributes.scope === scope)
        .reduce((sum, p) => sum + p.value, 0);
      assert.equal(total, snapshot[field], `${metric.otelName} in ${scope}`);
    }
  }
  const [duration] = got.get('stoic.retry.duration');
  assert.deepEqual(duration.attributes, { scope: 'payments', operation: 'pay', outcome: 'success' });
  const bounds = metricCatalogue().find((m) => m.kind === 'histogram').boundsSeconds;
  assert.deepEqual(duration.value.buckets.boundaries, bounds);
  assert.equal(duration.value.count, 1);
  assert.ok(Math.abs(duration.value.sum - snapshots.payments.retryDuration.sumMs / 1000) < 1e-9);
});

test('the breaker gauge is observed per scope, and a refusal is a gave_up point', async () => {
  const { provider, points } = meters();
  const policy = new Policy({
    seed: 1,
    maxAttempts: 1,
    breaker: { trip: { kind: 'consecutive_failures', threshold: 2, compare: 'ge' } },
  });
  instrument(policy, { meterProvider: provider });
  const down = () =>
    retry(
      () => {
        throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      },
      { policy, scope: 'flaky', sleep },
    );
  for (let i = 0; i < 2; i++) await assert.rejects(down());
  let got = await points();
  assert.deepEqual(
    got.get('stoic.circuit_breaker.state').map((p) => [p.attributes.scope, p.value]),
    [['flaky', 2]],
  );
  await assert.rejects(down(), (error) => error.decision?.reason === 'circuit_open');
  got = await points();
  const refused = got.get('stoic.gave_up').filter((p) => p.attributes.reason === 'circuit_open');
  assert.deepEqual(refused.map((p) => p.value), [1]);
});

test('decisions are events on the caller active span', async () => {
  const { provider, spans } = tracers();
  const policy = new Policy({ seed: 7 });
  instrument(policy);
  await provider.getTracer('test').startActiveSpan('checkout', async (span) => {
    await traffic(policy);
    span.end();
  });
  const [span] = spans();
  const events = span.events.map((e) => [e.name, e.attributes]);
  // Two retries and a success after them (pay), a stop (lookup); the clean success (search) is no event.
  assert.deepEqual(
    events.map(([name]) => name),
    ['stoic.retry', 'stoic.retry', 'stoic.success', 'stoic.gave_up'],
  );
  const first = events[0][1];
  assert.equal(first.scope, 'payments');
  assert.equal(first.operation, 'pay');
  assert.equal(first.attempt, 1);
  assert.equal(first.reason, 'network_connect_refused');
  assert.equal(typeof first.delay_seconds, 'number');
  assert.equal(events[3][1].reason, 'not_retryable');
});

test('createFetch sets http.request.resend_count on the caller span before each resend', async () => {
  let failures = 2;
  const server = http.createServer((req, res) => {
    res.writeHead(failures-- > 0 ? 503 : 200, { 'content-length': '2' });
    res.end('ok');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/orders/7`;
  try {
    const { provider, spans } = tracers();
    const policy = new Policy({ seed: 7, backoff: { strategy: 'exponential', baseMs: 1, capMs: 5 } });
    instrument(policy);
    const stoicFetch = createFetch({ policy });
    const status = await provider.getTracer('test').startActiveSpan('GET order', async (span) => {
      const response = await stoicFetch(url);
      span.end();
      return response.status;
    });
    assert.equal(status, 200);
    const [span] = spans();
    assert.equal(span.attributes['http.request.resend_count'], 2);
    assert.deepEqual(
      span.events.map((e) => e.name),
      ['stoic.retry', 'stoic.retry', 'stoic.success'],
    );
    assert.equal(span.events[0].attributes.reason, 'status_503');
  } finally {
    server.close();
  }
});

test('a hedge is a stoic.hedge event on the caller span: the copy and how long the call waited before it', async () => {
  const { provider, spans } = tracers();
  const policy = new Policy({ seed: 7 });
  instrument(policy);
  let sent = 0;
  // Copy 1 answers only when aborted (the loser); copy 2 at once.
  const read = (attempt) =>
    new Promise((resolve, reject) => {
      sent += 1;
      if (attempt.attempt === 2) resolve('fast');
      else attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason), { once: true });
    });
  const value = await provider.getTracer('test').startActiveSpan('GET user', async (span) => {
    const got = await retry(read, { policy, operation: 'get_user', hedging: { delay: { kind: 'fixed', afterMs: 20 } } });
    span.end();
    return got;
  });
  assert.equal(value, 'fast');
  assert.equal(sent, 2);
  const [span] = spans();
  const hedges = span.events.filter((e) => e.name === 'stoic.hedge').map((e) => e.attributes);
  assert.equal(hedges.length, 1);
  assert.equal(hedges[0].operation, 'get_user');
  assert.equal(hedges[0].attempt, 2);
  // Sent once the 20 ms hedge delay had passed.
  assert.ok(hedges[0].delay_seconds >= 0.02, String(hedges[0].delay_seconds));
});

test('uninstrument stops the points and restores measuring', async () => {
  const { provider, points } = meters();
  const policy = new Policy({ seed: 7 });
  assert.equal(policy.measuring, false);
  const instrumentation = instrument(policy, { meterProvider: provider });
  assert.equal(policy.measuring, true);
  instrumentation.uninstrument();
  instrumentation.uninstrument(); // twice is harmless
  assert.equal(policy.measuring, false);
  await traffic(policy);
  const got = await points();
  for (const name of ['stoic.calls', 'stoic.retries', 'stoic.circuit_breaker.state']) {
    assert.equal((got.get(name) ?? []).length, 0, name);
  }
});

test('onEvent and the instrumentation both hear every event', async () => {
  const { provider, points } = meters();
  const heard = [];
  const policy = new Policy({ seed: 7, logRecords: true, onEvent: (event) => heard.push(event) });
  instrument(policy, { meterProvider: provider });
  await traffic(policy);
  const kinds = new Set(heard.map((e) => e.kind));
  for (const kind of ['log', 'metric', 'decision']) assert.ok(kinds.has(kind), kind);
  const calls = (await points()).get('stoic.calls');
  assert.equal(calls.reduce((sum, p) => sum + p.value, 0), 3);
});

test('the global no-op providers work, and nothing is left queued', async () => {
  const policy = new Policy({ seed: 7 });
  instrument(policy);
  await traffic(policy);
  assert.equal([...policy.events()].length, 0);
});

test('two instrumentations stay independent, whichever goes first', async () => {
  const first = meters();
  const second = meters();
  const policy = new Policy({ seed: 7 });
  const a = instrument(policy, { meterProvider: first.provider, traces: false });
  const b = instrument(policy, { meterProvider: second.provider });
  a.uninstrument(); // not the last one added
  assert.equal(policy.measuring, true);
  await traffic(policy);
  assert.equal((await second.points()).get('stoic.calls').reduce((sum, p) => sum + p.value, 0), 3);
  assert.equal(((await first.points()).get('stoic.calls') ?? []).length, 0);
  b.uninstrument();
  assert.equal(policy.measuring, false);
});

test('the same meter provider twice is refused', () => {
  const { provider } = meters();
  const policy = new Policy();
  instrument(policy, { meterProvider: provider });
  assert.throws(() => instrument(policy, { meterProvider: provider }), (error) => error.code === 'already_instrumented');
});

test('a failing meter never fails the call', async () => {
  const exploding = {
    getMeter: () => ({
      createCounter: () => ({
        add() {
          throw new Error('add boom');
        },
      }),
      createHistogram: () => ({
        record() {
          throw new Error('record boom');
        },
      }),
      createObservableGauge: () => ({ addCallback() {}, removeCallback() {} }),
    }),
  };
  const policy = new Policy({ seed: 7 });
  instrument(policy, { meterProvider: exploding });
  await traffic(policy); // succeeds and fails as without telemetry
});

test('wrong arguments are named', () => {
  const cases = [
    [['policy'], 'wrong_type', 'policy'],
    [[null], 'wrong_type', 'policy'],
    [[new Policy(), null], 'wrong_type', 'options'],
    [[new Policy(), { meterProvider: {} }], 'wrong_type', 'meterProvider'],
    [[new Policy(), { traces: 'yes' }], 'wrong_type', 'traces'],
    [[new Policy(), { meterprovider: {} }], 'unknown_field', 'meterprovider'],
    [[new Policy(), new MeterProvider()], 'wrong_type', 'options'],
  ];
  for (const [args, code, field] of cases) {
    assert.throws(
      () => instrument(...args),
      (error) => error instanceof TypeError && error.code === code && error.field === field,
      field,
    );
  }
  assert.throws(
    () => {
      new Policy().measuring = 'yes';
    },
    (error) => error.code === 'wrong_type' && error.field === 'measuring',
  );
});

test('the example runs and shows the retries on the span', () => {
  const out = execFileSync(process.execPath, [new URL('../../examples/js_opentelemetry.mjs', import.meta.url).pathname], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.match(out, /^status: 200$/m);
  assert.match(out, /^span 'check stock': resend_count=2$/m);
  assert.match(out, /^stoic\.retries .*"reason":"status_503"\} 2$/m);
});
