/**
 * OpenTelemetry: a policy's metrics and decisions through
 * `@opentelemetry/api`, for whatever SDK and exporter the application set up.
 *
 * ```js
 * import { Policy } from 'stoic';
 * import { instrument } from 'stoic/opentelemetry';
 *
 * const policy = new Policy();
 * const instrumentation = instrument(policy); // the global meter provider
 * // ...
 * instrumentation.uninstrument();
 * ```
 *
 * Metrics: one instrument per entry of the engine's metric catalogue
 * (`metricCatalogue()`), with its name, unit and description, the same in
 * every language. The counters (`stoic.calls`, `stoic.attempts`,
 * `stoic.retries`, `stoic.retry.attempts`, `stoic.retry.successes`,
 * `stoic.retry.exhausted`, `stoic.gave_up`) and the `stoic.retry.duration`
 * histogram (seconds, the catalogue's bucket bounds as advice) are told each
 * call's points, with the attributes `scope`, `operation`, `outcome` and
 * `reason` where the point has them; `stoic.circuit_breaker.state` is an
 * observable gauge per `scope` (0 closed, 1 half open, 2 open). Budget
 * refusals are `stoic.gave_up{reason="budget_exhausted"}`. Which points a call
 * adds, and their attributes, are the engine's (`policy.measuring`); this
 * module hands them to the SDK.
 *
 * Traces (`traces: true`, the default): stoic makes no spans of its own.
 * Each decision worth noting (`stoic.retry`, `stoic.exhausted`,
 * `stoic.gave_up`, `stoic.success` after retries, and `stoic.hedge` as a
 * hedged call sends another copy) becomes an event on
 * the span active where the call runs, with the attempt, the delay in
 * seconds and the reason; `createFetch` sets `http.request.resend_count` on
 * it before each resend. In Node the active span follows the call through
 * `await` only with a context manager registered (the SDK's
 * `NodeTracerProvider.register()` does it).
 *
 * Needs `@opentelemetry/api` (an optional peer dependency). Import `stoic`
 * (or `stoic/full`) first: it loads the engine this module uses.
 */
import {
  metrics,
  trace,
  type Attributes,
  type Counter,
  type Histogram,
  type MeterProvider,
  type ObservableGauge,
  type ObservableResult,
} from '@opentelemetry/api';

import { metricCatalogue } from './catalogue.js';
import { knownOptions } from './guard.js';
import type { Policy } from './policy.js';
import { traceResends } from './tracing.js';
import type { StoicEvent } from './types.js';

const ENTRY = 'stoic/opentelemetry';
const RESEND_COUNT = 'http.request.resend_count';
const OPTIONS = new Set(['meterProvider', 'traces']);

/**
 * The instrumentations attached to a policy, oldest first, and whether it
 * measured before the first: measuring stays on, and resends stay marked,
 * while any of them needs it. Kept on the policy under a global symbol, as
 * the resend marker is (see tracing.ts).
 */
interface Attachments {
  list: Attached[];
  measuredBefore: boolean;
}
const ATTACHED = Symbol.for('stoic.instrumentations');

function attachments(policy: Policy): Attachments | undefined {
  return (policy as unknown as Record<symbol, Attachments | undefined>)[ATTACHED];
}

export interface InstrumentOptions {
  /** Where the instruments are made; the global meter provider by default. */
  meterProvider?: MeterProvider;
  /** Decisions as events on the active span, and resend counts (default true). */
  traces?: boolean;
}

/** What `instrument` attached to a policy. */
export interface Instrumentation {
  readonly policy: Policy;
  /** Stops feeding the instruments and spans; the policy measures again only if it did before. */
  uninstrument(): void;
}

/**
 * Publishes `policy`'s metrics through `meterProvider` and, with `traces`,
 * its decisions as events on the active span. A second instrumentation with
 * the same meter provider throws `already_instrumented` (it would count every
 * point twice); several with different ones are independent.
 */
export function instrument(policy: Policy, options: InstrumentOptions = {}): Instrumentation {
  const given = policy as Partial<Policy> | null;
  if (typeof given?.listen !== 'function' || typeof given?.metrics !== 'function') {
    throw Object.assign(new TypeError(`instrument(policy, options): policy must be a Policy from stoic`), {
      code: 'wrong_type',
      field: 'policy',
    });
  }
  if (typeof (options as Partial<MeterProvider> | null)?.getMeter === 'function') {
    throw Object.assign(new TypeError('instrument(policy, options): pass the meter provider as { meterProvider }'), {
      code: 'wrong_type',
      field: 'options',
    });
  }
  knownOptions(options, OPTIONS, 'instrument(policy, options)');
  const { meterProvider, traces = true } = options;
  if (meterProvider !== undefined && typeof (meterProvider as Partial<MeterProvider> | null)?.getMeter !== 'function') {
    throw Object.assign(
      new TypeError('instrument(policy, { meterProvider }): meterProvider must be an OpenTelemetry MeterProvider (with getMeter)'),
      { code: 'wrong_type', field: 'meterProvider' },
    );
  }
  if (typeof traces !== 'boolean') {
    throw Object.assign(new TypeError('instrument(policy, { traces }): traces must be true or false'), {
      code: 'wrong_type',
      field: 'traces',
    });
  }
  const provider = meterProvider ?? metrics.getMeterProvider();
  if (attachments(policy)?.list.some((a) => a.meterProvider === provider)) {
    throw Object.assign(
      new Error(
        'instrument(policy): this policy is already instrumented with this meter provider (its points would be counted twice); uninstrument() the first',
      ),
      { code: 'already_instrumented' },
    );
  }
  return new Attached(policy, provider, traces);
}

class Attached implements Instrumentation {
  readonly policy: Policy;
  readonly meterProvider: MeterProvider;
  readonly traces: boolean;
  readonly #counters = new Map<string, Counter>();
  readonly #histograms = new Map<string, Histogram>();
  readonly #gauges: [ObservableGauge, (result: ObservableResult) => void][] = [];
  #unlisten: (() => void) | undefined;

  constructor(policy: Policy, provider: MeterProvider, traces: boolean) {
    this.policy = policy;
    this.meterProvider = provider;
    this.traces = traces;
    const meter = provider.getMeter('stoic');
    for (const metric of metricCatalogue(ENTRY)) {
      const { otelName: name, unit, description } = metric;
      if (metric.kind === 'counter') {
        this.#counters.set(name, meter.createCounter(name, { unit, description }));
      } else if (metric.kind === 'histogram') {
        const advice = { explicitBucketBoundaries: metric.boundsSeconds ?? [] };
        this.#histograms.set(name, meter.createHistogram(name, { unit, description, advice }));
      } else {
        const gauge = meter.createObservableGauge(name, { unit, description });
        const observe = (result: ObservableResult): void => this.#observe(metric.field, result);
        gauge.addCallback(observe);
        this.#gauges.push([gauge, observe]);
      }
    }
    let attached = attachments(policy);
    if (attached === undefined) {
      attached = { list: [], measuredBefore: policy.measuring };
      (policy as unknown as Record<symbol, Attachments>)[ATTACHED] = attached;
    }
    attached.list.push(this);
    this.#unlisten = policy.listen((event) => this.#onEvent(event));
    settle(policy, attached.list);
  }

  /** A gauge's points in the policy's current metrics. */
  #observe(field: string, result: ObservableResult): void {
    const metric = metricCatalogue(ENTRY, this.policy.metrics()).find((m) => m.field === field);
    for (const point of metric?.points ?? []) result.observe(point.value ?? 0, point.attributes);
  }

  /**
   * A metric point to its instrument, a decision to the active span.
   * Telemetry that fails never fails the call it describes: an SDK that
   * throws loses the point.
   */
  #onEvent(event: StoicEvent): void {
    try {
      this.#record(event);
    } catch {
      // Dropped: see above.
    }
  }

  #record(event: StoicEvent): void {
    if (event.kind === 'metric') {
      const attributes = event.attributes as unknown as Attributes;
      const counter = this.#counters.get(event.metric);
      if (counter !== undefined) counter.add(event.value, attributes);
      else this.#histograms.get(event.metric)?.record(event.value, attributes);
    } else if (event.kind === 'decision' && this.traces) {
      const span = trace.getActiveSpan();
      if (span?.isRecording()) span.addEvent(event.name, event.attributes as unknown as Attributes);
    }
  }

  uninstrument(): void {
    if (this.#unlisten === undefined) return;
    this.#unlisten();
    this.#unlisten = undefined;
    for (const [gauge, observe] of this.#gauges) gauge.removeCallback(observe);
    const attached = attachments(this.policy);
    if (attached === undefined) return;
    attached.list = attached.list.filter((a) => a !== this);
    try {
      if (attached.list.length > 0) {
        settle(this.policy, attached.list);
      } else {
        delete (this.policy as unknown as Record<symbol, Attachments | undefined>)[ATTACHED];
        this.policy.measuring = attached.measuredBefore;
        traceResends(this.policy, undefined);
      }
    } catch {
      // A policy already freed has nothing left to measure.
    }
  }
}

/** Measuring on, and resends marked while one instrumentation traces. */
function settle(policy: Policy, list: Attached[]): void {
  policy.measuring = true;
  traceResends(policy, list.some((a) => a.traces) ? markResend : undefined);
}

function markResend(resends: number): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttribute(RESEND_COUNT, resends);
}
