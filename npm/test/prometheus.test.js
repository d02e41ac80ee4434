// `stoic/prometheus` with the real prom-client: a scrape's exposition text
// holds every metric of the engine's catalogue for every scope, with the
// policy's values, in both of prom-client's formats.
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { Policy, metricCatalogue, retry } from '../dist/node.js';
import { registerMetrics } from '../dist/prometheus.js';

/** Exposition lines keyed by their series (`name{labels}`), values as numbers. */
function series(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** `payments`: a call that succeeds after two retries and one that gives up on a 404; `search`: one success. */
async function traffic(policy) {
  let failures = 2;
  const sleep = async () => {};
  await retry(
    () => {
      if (failures-- > 0) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      return 'paid';
    },
    { policy, scope: 'payments', sleep },
  );
  await retry(() => 'found', { policy, scope: 'search', sleep });
  const call = policy.start({ operation: 'lookup', scope: 'payments' });
  call.beforeAttempt();
  call.onOutcome({ kind: 'status', status: 404 });
  call.close();
}

test('every catalogued metric is published for every scope, with the policy values', async () => {
  const policy = new Policy({ seed: 7 });
  const registry = new Registry();
  registerMetrics(policy, registry);
  await traffic(policy);
  const text = await registry.metrics();
  for (const metric of metricCatalogue()) {
    assert.match(text, new RegExp(`^# HELP ${metric.prometheusName} `, 'm'), metric.prometheusName);
    assert.match(text, new RegExp(`^# TYPE ${metric.prometheusName} ${metric.kind}$`, 'm'), metric.prometheusName);
  }
  const got = series(text);
  const pay = policy.metrics().payments;
  assert.equal(got.get('stoic_retry_total{scope="payments"}'), pay.retryTotal);
  assert.equal(pay.retryTotal, 2);
  assert.equal(got.get('stoic_calls_total{scope="payments"}'), 2);
  assert.equal(got.get('stoic_gave_up_total{scope="payments"}'), 1);
  assert.equal(got.get('stoic_retry_success_total{scope="payments"}'), 1);
  assert.equal(got.get('stoic_calls_total{scope="search"}'), 1);
  assert.equal(got.get('stoic_circuit_breaker_state{scope="payments"}'), 0);
  // The histogram: cumulative buckets in seconds, sum in seconds.
  assert.equal(got.get('stoic_retry_duration_seconds_count{scope="payments"}'), 1);
  assert.equal(got.get('stoic_retry_duration_seconds_sum{scope="payments"}'), pay.retryDuration.sumMs / 1000);
  assert.equal(got.get('stoic_retry_duration_seconds_bucket{le="+Inf",scope="payments"}') ?? got.get('stoic_retry_duration_seconds_bucket{scope="payments",le="+Inf"}'), 1);
  const buckets = [...got].filter(([k]) => k.startsWith('stoic_retry_duration_seconds_bucket') && k.includes('"payments"'));
  assert.equal(buckets.length, metricCatalogue().find((m) => m.kind === 'histogram').boundsSeconds.length + 1);
  assert.ok(buckets.some(([k]) => k.includes('le="0.01"')), 'the first bound is 10 ms, in seconds');
  const counts = buckets.map(([, v]) => v);
  assert.deepEqual(counts, [...counts].sort((a, b) => a - b), 'cumulative');
  policy.free();
});

test('the OpenMetrics format names counters as OpenMetrics does', async () => {
  const policy = new Policy({ seed: 1 });
  const registry = new Registry(Registry.OPENMETRICS_CONTENT_TYPE);
  registerMetrics(policy, registry);
  await retry(() => 'ok', { policy, scope: 'api' });
  const text = await registry.metrics();
  assert.match(text, /^# TYPE stoic_calls counter$/m);
  assert.match(text, /^stoic_calls_total\{scope="api"\} 1$/m);
  assert.match(text, /# EOF\n$/);
  policy.free();
});

test('an open breaker shows in the gauge', async () => {
  const policy = new Policy({ seed: 1, breaker: { trip: { kind: 'consecutive_failures', threshold: 1 } } });
  const registry = new Registry();
  registerMetrics(policy, registry);
  const call = policy.start({ operation: 'op', scope: 'api' });
  call.beforeAttempt();
  call.onOutcome({ kind: 'status', status: 503 });
  call.close();
  assert.equal(series(await registry.metrics()).get('stoic_circuit_breaker_state{scope="api"}'), 2);
  policy.free();
});

test('a policy with no calls publishes its families without samples', async () => {
  const policy = new Policy({ seed: 1 });
  const registry = new Registry();
  const registered = registerMetrics(policy, registry);
  assert.equal(registered.length, metricCatalogue().length);
  const text = await registry.metrics();
  assert.match(text, /# TYPE stoic_retry_duration_seconds histogram/);
  assert.equal(series(text).size, 0);
  policy.free();
});

test('registering twice is refused by the registry; wrong arguments are type errors', () => {
  const registry = new Registry();
  const policy = new Policy({ seed: 1 });
  registerMetrics(policy, registry);
  assert.throws(() => registerMetrics(policy, registry), /already been registered/);
  assert.throws(() => registerMetrics({}, registry), TypeError);
  assert.throws(() => registerMetrics(registry, policy), /the registry comes second/);
  assert.throws(() => registerMetrics(policy, {}), TypeError);
  assert.throws(() => registerMetrics(policy, null), TypeError);
  policy.free();
});

test('the example runs and shows the retries', () => {
  const out = execFileSync(process.execPath, [new URL('../../examples/js_prometheus.mjs', import.meta.url).pathname], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.match(out, /^stock: 7$/m);
  assert.match(out, /^stoic_retry_total\{scope="inventory"\} 2$/m);
  assert.match(out, /^stoic_retry_duration_seconds_count\{scope="inventory"\} 1$/m);
});

test('without the engine loaded, the error says to import stoic first', () => {
  // A fresh process that imports only stoic/prometheus.
  const script = `
    const { registerMetrics } = await import(${JSON.stringify(new URL('../dist/prometheus.js', import.meta.url).href)});
    const policy = { metrics: () => ({}), metricsTotal: () => ({}) };
    try { registerMetrics(policy, { registerMetric() {} }); } catch (e) { console.log(e.code, e.message); }`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.match(out, /^not_loaded stoic\/prometheus: the engine is not loaded: import 'stoic'/);
});
