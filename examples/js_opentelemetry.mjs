// OpenTelemetry with stoic/opentelemetry: a flaky inventory call through
// createFetch, inside a span of the caller's; prints the span (the retries
// as its events, the resend count) and the metric points the SDK aggregated.
// Run: node examples/js_opentelemetry.mjs (after `make js-build`).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { Policy, createFetch } from '../npm/dist/node.js';
import { instrument } from '../npm/dist/opentelemetry.js';

// The OpenTelemetry SDK is the npm package's dev dependency here; in an app, import it.
const require = createRequire(new URL('../npm/package.json', import.meta.url));
const { context, trace } = require('@opentelemetry/api');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } =
  require('@opentelemetry/sdk-metrics');
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');

// What an app's tracing set-up does: a context manager (the active span
// follows `await`), a tracer provider, a meter provider.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
const reader = new PeriodicExportingMetricReader({
  exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });

const policy = new Policy({ backoff: { baseMs: 10, capMs: 50 } });
instrument(policy, { meterProvider });
const stoicFetch = createFetch({ policy });

let failures = 2; // 503 twice, then 200
const server = createServer((req, res) => {
  res.writeHead(failures-- > 0 ? 503 : 200, { 'content-length': '2' });
  res.end('ok');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
try {
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/stock/tea`;
  await trace.getTracer('inventory-app').startActiveSpan('check stock', async (span) => {
    const response = await stoicFetch(url);
    console.log(`status: ${response.status}`);
    span.end();
  });
} finally {
  server.close();
}

const [span] = spans.getFinishedSpans();
console.log(`span '${span.name}': resend_count=${span.attributes['http.request.resend_count']}`);
for (const event of span.events) console.log(`  event ${event.name} ${JSON.stringify(event.attributes)}`);
const { resourceMetrics } = await reader.collect();
for (const metric of resourceMetrics.scopeMetrics[0].metrics) {
  for (const point of metric.dataPoints) {
    const value = typeof point.value === 'number' ? point.value : `count=${point.value.count}`;
    console.log(`${metric.descriptor.name} ${JSON.stringify(point.attributes)} ${value}`);
  }
}
await meterProvider.shutdown();
