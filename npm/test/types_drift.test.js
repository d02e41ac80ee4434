// src/types.ts (and the standalone parts' types in src/components.ts)
// against the core, as the built package shows it at runtime.
//
// The declarations are read with the TypeScript compiler API; the core's side
// comes from the package itself: the resolved config it writes, the keys and
// codes its errors list when given an unknown one (the schema's own lists), the
// code lists the module exports (networkKinds, classes), and the objects a short
// scripted run returns. No list of fields or codes is copied into this file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  Backoff,
  CircuitBreaker,
  InputError,
  Metrics,
  Policy,
  RetryBudget,
  ServerIdempotency,
  createFetch,
  logRecord,
  metricCatalogue,
  serverHint,
  toolReasonOf,
} from '../dist/node.js';
import { classes, hedgingConfig, networkKinds } from '../dist/wasm/stoic_wasm.js';

const ts = createRequire(import.meta.url)('typescript');
const TYPES = fileURLToPath(new URL('../src/types.ts', import.meta.url));
const COMPONENTS = fileURLToPath(new URL('../src/components.ts', import.meta.url));

// ------------------------------------------------------------ the declarations

const program = ts.createProgram([TYPES, COMPONENTS], {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
});
const checker = program.getTypeChecker();
const exportsOf = (file) =>
  checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file))).map((s) => [s.name, s]);
const exported = new Map([...exportsOf(COMPONENTS), ...exportsOf(TYPES)]);

/** The type `name` declares in src/types.ts (or src/components.ts). */
function declared(name) {
  const symbol = exported.get(name);
  assert.ok(symbol, `src/types.ts and src/components.ts no longer export ${name}`);
  return checker.getDeclaredTypeOfSymbol(symbol);
}

const NULLISH = ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void;
const members = (t) => (t.isUnion() ? t.types : [t]);
const solid = (t) => members(t).filter((m) => !(m.flags & NULLISH));
const allowsNull = (t) => members(t).some((m) => m.flags & ts.TypeFlags.Null);
const isObject = (t) => (t.flags & ts.TypeFlags.Object) !== 0 || (t.flags & ts.TypeFlags.Intersection) !== 0;

/** A string-literal union's codes (`boolean`-free unions of literals only), else null. */
function literals(t) {
  const parts = solid(t);
  if (parts.length === 0 || !parts.every((m) => m.isStringLiteral())) return null;
  return parts.map((m) => m.value);
}

/** The codes of a declared string-literal union, in declaration order. */
function codesOf(name) {
  const codes = literals(declared(name));
  assert.ok(codes, `${name} in src/types.ts is not a union of string literals`);
  return codes;
}

const typeOf = (symbol) => checker.getTypeOfSymbol(symbol);
const optional = (symbol) => (symbol.flags & ts.SymbolFlags.Optional) !== 0;
const show = (t) => checker.typeToString(t);

/** The `kind` codes an object type declares, if it has a `kind` property. */
function kindsOf(t) {
  const kind = checker.getPropertyOfType(t, 'kind');
  return kind === undefined ? null : literals(typeOf(kind));
}

/**
 * The object type of `t` that describes `value`: the union member whose `kind`
 * matches, the only object member, or null (with a problem) when none does.
 */
function objectTypeFor(t, value, path, problems) {
  const objects = solid(t).filter(isObject);
  if (objects.length === 0) {
    problems.push(`${path}: the core writes an object, src/types.ts declares ${show(t)}`);
    return null;
  }
  if (objects.length === 1) return objects[0];
  if (typeof value.kind === 'string') {
    const match = objects.find((m) => kindsOf(m)?.includes(value.kind));
    if (match === undefined) {
      const known = objects.flatMap((m) => kindsOf(m) ?? []);
      problems.push(`${path}.kind: the core writes kind "${value.kind}", src/types.ts declares only ${JSON.stringify(known)}`);
      return null;
    }
    return match;
  }
  // No discriminant: the member that declares every key written.
  return objects.find((m) => Object.keys(value).every((k) => checker.getPropertyOfType(m, k))) ?? objects[0];
}

function leafMatches(t, value) {
  let literal;
  if (typeof value === 'string') literal = checker.getStringLiteralType(value);
  else if (typeof value === 'number') literal = checker.getNumberLiteralType(value);
  else if (typeof value === 'boolean') literal = value ? checker.getTrueType() : checker.getFalseType();
  else if (typeof value === 'bigint') literal = checker.getBigIntType();
  else return false;
  return checker.isTypeAssignableTo(literal, t);
}

/**
 * Walks `value` (what the package returned) against the declared type `t`:
 * every key present must be declared, every required key must be present,
 * every leaf must be assignable. `visit(t, value, path)` sees each node.
 */
function walk(t, value, path, problems, visit = () => {}) {
  visit(t, value, path);
  if (value === null) {
    if (!allowsNull(t)) problems.push(`${path}: the core writes null, src/types.ts declares ${show(t)} (not nullable)`);
    return;
  }
  if (Array.isArray(value)) {
    const arrays = solid(t).filter((m) => checker.isArrayType(m));
    if (arrays.length === 0) {
      problems.push(`${path}: the core writes an array, src/types.ts declares ${show(t)}`);
      return;
    }
    const element = checker.getTypeArguments(arrays[0])[0];
    value.forEach((item, i) => walk(element, item, `${path}[${i}]`, problems, visit));
    return;
  }
  if (typeof value !== 'object') {
    if (!leafMatches(t, value)) {
      problems.push(`${path}: the core writes ${JSON.stringify(typeof value === 'bigint' ? String(value) : value)}, which src/types.ts's ${show(t)} does not allow`);
    }
    return;
  }
  const object = objectTypeFor(t, value, path, problems);
  if (object === null) return;
  const index = checker.getIndexInfosOfType(object);
  const properties = checker.getPropertiesOfType(object);
  if (index.length > 0 && properties.length === 0) {
    for (const [key, item] of Object.entries(value)) walk(index[0].type, item, `${path}.${key}`, problems, visit);
    return;
  }
  const names = new Set(properties.map((p) => p.name));
  for (const [key, item] of Object.entries(value)) {
    const property = checker.getPropertyOfType(object, key);
    if (property === undefined) {
      problems.push(`${path}.${key}: written by the core, not declared in src/types.ts (${show(object)} has ${[...names].join(', ')})`);
      continue;
    }
    walk(typeOf(property), item, `${path}.${key}`, problems, visit);
  }
  for (const property of properties) {
    if (!optional(property) && !(property.name in value)) {
      problems.push(`${path}.${property.name}: declared required in src/types.ts, absent from what the core returned`);
    }
  }
}

function assertShape(typeName, value, what) {
  const problems = [];
  walk(declared(typeName), value, what, problems);
  assert.deepEqual(problems, [], `${what} drifted from ${typeName} in src/types.ts:\n  ${problems.join('\n  ')}`);
}

/** Two code lists compared as sets, naming each code only one side has. */
function assertSameCodes(name, declaredCodes, coreCodes, source) {
  const missing = coreCodes.filter((c) => !declaredCodes.includes(c));
  const extra = declaredCodes.filter((c) => !coreCodes.includes(c));
  assert.ok(
    missing.length === 0 && extra.length === 0,
    `${name} in src/types.ts drifted from the core (${source}):` +
      (missing.length > 0 ? ` the core has ${JSON.stringify(missing)}, not declared;` : '') +
      (extra.length > 0 ? ` declared ${JSON.stringify(extra)}, which the core does not know;` : ''),
  );
}

// ------------------------------------------------------------ the core's lists

/**
 * The codes or keys a core message lists: `expected one of "a", "b"`,
 * `` (expected one of `a`, `b`) `` or `must be one of "a", "b"`.
 */
function listed(message) {
  const match = /(?:expected|must be) one of ((?:[`"][^`"]*[`"](?:, )?)+)/.exec(message);
  assert.ok(match, `no list of codes in the core's message: ${message}`);
  return [...match[1].matchAll(/[`"]([^`"]*)[`"]/g)].map((m) => m[1]);
}

/** The core's list for the problem at `field` when `body` throws. */
function listedAt(body, field) {
  let error;
  try {
    body();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error, `expected the core to refuse ${field}, got ${error}`);
  const problems = error.problems ?? [{ field: error.field, message: error.message }];
  const problem = problems.find((p) => p.field === field) ?? (problems.length === 1 ? problems[0] : undefined);
  assert.ok(problem, `the core named no problem at ${field}: ${error.message}`);
  return listed(problem.message);
}

function setAt(object, path, value) {
  let node = object;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path.at(-1)] = value;
}

/**
 * Configs that together select every variant: both trip rules, both windows,
 * slow calls on and off, every budget on and off, the breaker off,
 * classification overrides in both maps.
 */
const CONFIGS = [
  {},
  {
    breaker: {
      trip: {
        kind: 'failure_rate',
        window: { kind: 'count', size: 20 },
        failureRate: 0.5,
        minimumThroughput: 10,
        slowCall: { durationMs: 1000, rate: 0.5 },
      },
    },
    budget: { runCap: {}, tokenBucket: {}, grpc: {} },
    classify: { status: { 404: 'transient' }, network: { reset_after_send: 'transient' } },
  },
  {
    breaker: {
      trip: { kind: 'failure_rate', window: { kind: 'time', durationMs: 10_000, buckets: 10 }, failureRate: 0.5, minimumThroughput: 10 },
    },
    budget: { ratio: null, tokenBucket: { profile: 'aws_2026' } },
  },
  { breaker: null, timeouts: { connectMs: null, readMs: null, totalMs: null } },
];

const resolve = (config) => new Policy({ ...config, seed: 1 }).config();

test('every key the core writes in a resolved config is declared in Config, with an allowed value', () => {
  for (const config of CONFIGS) assertShape('ResolvedConfig', resolve(config), `config(${JSON.stringify(config)})`);
});

test("every object of Config declares exactly the keys the core reads there (the core's unknown_field list)", () => {
  const problems = [];
  for (const config of CONFIGS) {
    const resolved = resolve(config);
    const objects = [];
    walk(declared('ResolvedConfig'), resolved, '', [], (t, value, path) => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) objects.push({ t, value, path });
    });
    for (const { t, value, path } of objects) {
      const object = objectTypeFor(t, value, path, problems);
      if (object === null) continue;
      const segments = path.split('.').slice(1);
      const properties = checker.getPropertiesOfType(object).map((p) => p.name);
      // A map (status -> class) has no fixed keys to compare.
      if (properties.length === 0) continue;
      const probe = structuredClone(resolved);
      setAt(probe, [...segments, 'zz_drift'], 1);
      const field = [...segments, 'zz_drift'].join('.');
      const reads = listedAt(() => new Policy(probe), field);
      const where = path === '' ? 'Config' : `Config${path}`;
      for (const key of properties.filter((k) => !reads.includes(k))) problems.push(`${where}.${key}: declared in src/types.ts, the core does not read it (it reads ${reads.join(', ')})`);
      for (const key of reads.filter((k) => !properties.includes(k))) problems.push(`${where}.${key}: read by the core, not declared in src/types.ts`);
    }
  }
  assert.deepEqual([...new Set(problems)], [], problems.join('\n'));
});

test("every code field of Config declares exactly the codes the core accepts there (the core's invalid_value list)", () => {
  const problems = [];
  let probed = 0;
  for (const config of CONFIGS) {
    const resolved = resolve(config);
    const leaves = [];
    walk(declared('ResolvedConfig'), resolved, '', [], (t, value, path) => {
      if (typeof value === 'string' && literals(t) !== null) leaves.push({ t, path });
    });
    for (const { t, path } of leaves) {
      const segments = path.split('.').slice(1);
      const probe = structuredClone(resolved);
      setAt(probe, segments, 'zz_drift');
      // A kind selects a variant: every variant's kind is a code of the field.
      const codes = segments.at(-1) === 'kind' ? kindCodes(segments, resolved) : literals(t);
      const accepted = listedAt(() => new Policy(probe), segments.join('.'));
      probed += 1;
      for (const code of codes.filter((c) => !accepted.includes(c))) problems.push(`Config${path}: declares "${code}", the core accepts ${JSON.stringify(accepted)}`);
      for (const code of accepted.filter((c) => !codes.includes(c))) problems.push(`Config${path}: the core accepts "${code}", not declared in src/types.ts`);
    }
  }
  assert.ok(probed >= 6, `only ${probed} code fields found in the resolved configs`);
  assert.deepEqual([...new Set(problems)], [], problems.join('\n'));
});

/** The `kind` codes of every variant of the union declared at `segments`. */
function kindCodes(segments, resolved) {
  let t = declared('ResolvedConfig');
  let value = resolved;
  for (const key of segments.slice(0, -1)) {
    const object = objectTypeFor(t, value, key, []);
    t = typeOf(checker.getPropertyOfType(object, key));
    value = value[key];
  }
  return solid(t).filter(isObject).flatMap((m) => kindsOf(m) ?? []);
}

test("the map keys of Config.classify are the core's codes", () => {
  const network = listedAt(() => new Policy({ classify: { network: { zz_drift: 'transient' } } }), 'classify.network.zz_drift');
  const classify = declared('ClassifyConfig');
  const networkType = typeOf(checker.getPropertyOfType(classify, 'network'));
  const keys = checker.getPropertiesOfType(solid(networkType)[0]).map((p) => p.name);
  assertSameCodes('ClassifyConfig.network (keys)', keys, network, 'the core\'s list for an unknown network kind');
  const statusClasses = listedAt(() => new Policy({ classify: { status: { 404: 'zz_drift' } } }), 'classify.status.404');
  assertSameCodes('OutcomeClass (ClassifyConfig.status values)', codesOf('OutcomeClass'), statusClasses, 'classify.status');
});

test('HedgingConfig and HedgeDelay declare exactly the keys and kinds the core reads, with the values it writes', () => {
  assertSameCodes('HedgingConfig (keys)', keysOf('HedgingConfig'), listedAt(() => hedgingConfig({ zz_drift: 1 }), 'zz_drift'), "hedging's unknown_field list");
  const delay = solid(declared('HedgeDelay')).filter(isObject);
  const kinds = delay.flatMap((m) => kindsOf(m) ?? []);
  assertSameCodes('HedgeDelay (kinds)', kinds, listedAt(() => hedgingConfig({ delay: { kind: 'zz_drift' } }), 'delay.kind'), 'delay.kind');
  const given = { fixed: { afterMs: 50 }, quantile: {} };
  for (const member of delay) {
    const [kind] = kindsOf(member);
    const keys = checker.getPropertiesOfType(member).map((p) => p.name);
    const reads = listedAt(() => hedgingConfig({ delay: { kind, ...given[kind], zz_drift: 1 } }), 'delay.zz_drift');
    assertSameCodes(`HedgeDelay (${kind})`, keys, reads, "the delay's unknown_field list");
    assertShape('HedgingConfig', hedgingConfig({ delay: { kind, ...given[kind] } }), `hedgingConfig(${kind})`);
  }
});

// ------------------------------------------------------------ code lists

test('NetworkErrorKind and OutcomeClass are the lists the module exports', () => {
  assertSameCodes('NetworkErrorKind', codesOf('NetworkErrorKind'), networkKinds().map(String), 'networkKinds()');
  assertSameCodes('OutcomeClass', codesOf('OutcomeClass'), classes().map(String), 'classes()');
});

test('FailureClass is every class the core takes as a failure', () => {
  const failures = [];
  for (const cls of classes().map(String)) {
    const policy = new Policy({ seed: 1 });
    const call = policy.start({}, 0);
    call.beforeAttempt(0);
    try {
      call.onOutcome({ kind: 'rejected', class: cls }, 0);
      failures.push(cls);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
    } finally {
      policy.free();
    }
  }
  assertSameCodes('FailureClass', codesOf('FailureClass'), failures, 'the classes a rejected outcome may carry');
});

test('BackoffStrategy is the list of strategies the core accepts', () => {
  const core = listedAt(() => new Policy({ backoff: { strategy: 'zz_drift' } }), 'backoff.strategy');
  assertSameCodes('BackoffStrategy', codesOf('BackoffStrategy'), core, 'backoff.strategy');
});

/** A standalone breaker's snapshot with one transition queued. */
function breakerSnapshot() {
  const breaker = new CircuitBreaker({ trip: { kind: 'consecutive_failures', threshold: 1 } });
  const admit = breaker.tryAcquire(0);
  breaker.onFailure(0, admit.permit, 1);
  const snapshot = JSON.parse(breaker.snapshot());
  breaker.free();
  assert.ok(snapshot.state && Array.isArray(snapshot.transitions) && snapshot.transitions.length > 0, 'breaker snapshot shape changed');
  return snapshot;
}

test('BreakerStateCode and TransitionReason are the codes a breaker snapshot may hold', () => {
  const snapshot = breakerSnapshot();
  const state = structuredClone(snapshot);
  state.state.kind = 'zz_drift';
  const states = listedAt(() => CircuitBreaker.fromSnapshot(JSON.stringify(state)), undefined);
  assertSameCodes('BreakerStateCode', codesOf('BreakerStateCode'), states, 'a breaker snapshot\'s state.kind');
  const kinds = solid(declared('BreakerState')).flatMap((m) => kindsOf(m) ?? []);
  assertSameCodes('BreakerState (kinds)', kinds, states, 'a breaker snapshot\'s state.kind');
  const reason = structuredClone(snapshot);
  reason.transitions[0].reason = 'zz_drift';
  const reasons = listedAt(() => CircuitBreaker.fromSnapshot(JSON.stringify(reason)), undefined);
  assertSameCodes('TransitionReason', codesOf('TransitionReason'), reasons, 'a breaker snapshot\'s transitions[].reason');
});

/** A policy snapshot with one scope, its budget exhausted once and its alert rules written. */
function policySnapshot() {
  const policy = new Policy({ seed: 1, budget: { runCap: { maxRetries: 0 } } });
  const call = policy.start({ scope: 'api' }, 0);
  call.beforeAttempt(0);
  call.onOutcome({ kind: 'status', status: 503 }, 0);
  const snapshot = JSON.parse(policy.snapshot());
  return { policy, snapshot, scope: snapshot.scopes.api };
}

test('BudgetKind, AlertRule and AlertLevel are the codes a policy snapshot may hold', () => {
  const { policy, snapshot, scope } = policySnapshot();
  assert.ok(Array.isArray(scope.budget.exhausted) && Array.isArray(scope.metrics.alerts.rules), 'policy snapshot shape changed');
  const restoring = (edit) => () => {
    const copy = structuredClone(snapshot);
    edit(copy.scopes.api);
    policy.restore(JSON.stringify(copy));
  };
  const budgets = listedAt(restoring((s) => (s.budget.exhausted = ['zz_drift'])), undefined);
  assertSameCodes('BudgetKind', codesOf('BudgetKind'), budgets, 'a snapshot\'s budget.exhausted');
  const rules = listedAt(restoring((s) => (s.metrics.alerts.rules[0].rule = 'zz_drift')), undefined);
  assertSameCodes('AlertRule', codesOf('AlertRule'), rules, 'a snapshot\'s alerts.rules[].rule');
  const levels = listedAt(restoring((s) => (s.metrics.alerts.rules[0].level = 'zz_drift')), undefined);
  assertSameCodes('AlertLevel', codesOf('AlertLevel'), levels, 'a snapshot\'s alerts.rules[].level');
  policy.free();
});

test('every declared LogOutcome is one logRecord() accepts, and an undeclared one is refused', () => {
  // The package exposes no list of log outcomes: each declared code is tried,
  // and the run below checks that every outcome the core writes is declared.
  const input = (outcome) => ({
    wallNowMs: 0,
    operation: 'op',
    attempt: 1,
    maxAttempts: 2,
    delayMs: 0,
    error: null,
    strategy: 'none',
    outcome,
    totalDurationMs: 0,
  });
  for (const outcome of codesOf('LogOutcome')) {
    assertShape('LogRecord', logRecord(input(outcome)), `logRecord(outcome: ${outcome})`);
  }
  assert.throws(() => logRecord(input('zz_drift')), /outcome/);
});

test('every declared StopReason is one the core knows (toolReasonOf maps each)', () => {
  // No list of stop reasons is reachable from the package; toolReasonOf maps
  // every one the core has and refuses any other.
  const unknown = codesOf('StopReason').filter((reason) => {
    try {
      return toolReasonOf(reason) === undefined;
    } catch {
      return true;
    }
  });
  assert.deepEqual(unknown, [], `StopReason in src/types.ts declares codes the core does not know: ${JSON.stringify(unknown)}`);
});

// ------------------------------------------------------------ results

/** A short run touching every result the package hands out. */
function scriptedRun() {
  let t = 0;
  const events = [];
  const decisions = [];
  const admissions = [];
  const policy = new Policy({
    seed: 7,
    now: () => t,
    wallNow: () => 1_800_000_000_000 + t,
    logRecords: true,
    maxAttempts: 3,
    backoff: { strategy: 'constant', baseMs: 10, capMs: 10 },
    breaker: { trip: { kind: 'consecutive_failures', threshold: 4 }, cooldownMs: 1000 },
    budget: { runCap: { maxRetries: 2 }, tokenBucket: {}, grpc: {} },
    alerts: { minRequests: 1 },
    onEvent: (e) => events.push(e),
  });
  policy.measuring = true;
  // Each call's outcomes in turn, while the core says retry.
  const run = (spec, outcomes) => {
    const call = policy.start(spec, t);
    for (const outcome of outcomes) {
      const admission = call.beforeAttempt(t);
      admissions.push(admission);
      if (admission.kind === 'reject') return;
      const decision = call.onOutcome(outcome, t);
      decisions.push(decision);
      if (decision.kind !== 'retry') return;
      t += decision.delayMs;
    }
    decisions.push(call.cancel(t));
  };
  // A retry on a hinted 503, a read timeout, then the server's refusal.
  run({ scope: 'api', operation: 'get', method: 'GET' }, [
    { kind: 'status', status: 503, headers: { 'retry-after': '0' } },
    { kind: 'network', network: 'read_timeout' },
    { kind: 'status', status: 429, headers: { 'x-should-retry': 'false' } },
  ]);
  // The run cap is spent: the budget refuses the retry.
  run({ scope: 'api', operation: 'post', method: 'POST', idempotencyKey: 'k-1' }, [
    { kind: 'rejected', class: 'transient', detail: 'busy' },
    { kind: 'error', class: 'transient', detail: 'Error: x' },
    { kind: 'status', status: 502 },
  ]);
  // Another failure opens the breaker; the next call is refused at admission.
  run({ scope: 'api' }, [{ kind: 'status', status: 503 }]);
  run({ scope: 'api' }, [{ kind: 'success' }]);
  // The cooldown passes: a probe succeeds; another scope succeeds after a retry.
  t += 2000;
  run({ scope: 'api', idempotent: true }, [{ kind: 'success' }]);
  run({ scope: 'other' }, [{ kind: 'status', status: 500 }, { kind: 'success' }]);
  // Attempts exhausted.
  run({ scope: 'more', idempotent: true }, [500, 502, 504].map((status) => ({ kind: 'status', status })));
  // Cancelled while waiting.
  run({ scope: 'other' }, [{ kind: 'status', status: 503 }]);
  policy.flush();
  return { policy, events, decisions, admissions, t };
}

test('decisions and admissions have the fields Decision, Admission and GiveUp declare', () => {
  const { policy, decisions, admissions } = scriptedRun();
  decisions.forEach((d, i) => assertShape('Decision', d, `decision ${i} (${d.kind})`));
  admissions.forEach((a, i) => assertShape('Admission', a, `admission ${i} (${a.kind})`));
  assert.deepEqual(
    [...new Set(decisions.map((d) => d.kind))].sort(),
    ['done', 'give_up', 'retry'],
    'the run made every kind of decision',
  );
  assert.deepEqual([...new Set(admissions.map((a) => a.kind))].sort(), ['proceed', 'reject']);
  const sources = decisions.filter((d) => d.kind === 'retry').map((d) => d.source);
  assert.ok(sources.some((s) => codesOf('HintSource').includes(s)), `no retry took a server hint: ${sources}`);
  policy.free();
});

test('events have the fields their StoicEvent variant declares', () => {
  const { policy, events } = scriptedRun();
  events.forEach((e, i) => assertShape('StoicEvent', e, `event ${i} (${e.kind})`));
  const kinds = new Set(events.map((e) => e.kind));
  for (const kind of ['breaker_transition', 'budget_exhausted', 'alert_changed', 'log', 'metric', 'decision']) {
    assert.ok(kinds.has(kind), `the scripted run produced no ${kind} event (it produced ${[...kinds].join(', ')})`);
  }
  const outcomes = new Set(events.filter((e) => e.kind === 'log').map((e) => e.record.outcome));
  const unseen = codesOf('LogOutcome').filter((o) => !outcomes.has(o));
  assert.deepEqual(unseen, [], `declared LogOutcome codes no log record of the run carried (the run makes each): ${unseen}`);
  policy.free();
});

test('a nested_retries event has the fields its StoicEvent variant declares', async () => {
  const events = [];
  const policy = new Policy({ seed: 1, onEvent: (e) => events.push(e) });
  const fetch = createFetch({ fetch: async () => new Response('ok'), policy });
  await fetch('http://example.test/x', { headers: { 'x-stainless-retry-count': '2' } });
  policy.flush();
  const nested = events.filter((e) => e.kind === 'nested_retries');
  assert.ok(nested.length > 0, `no nested_retries event (got ${events.map((e) => e.kind)})`);
  nested.forEach((e, i) => assertShape('StoicEvent', e, `event ${i} (${e.kind})`));
  policy.free();
});

test('budget status, metrics, restore reports and the catalogue have the declared fields', () => {
  const { policy, t } = scriptedRun();
  assertShape('BudgetStatus', policy.budgetStatus('api', t), 'budgetStatus("api")');
  const metrics = policy.metrics();
  assert.ok(Object.keys(metrics).length > 0, 'no metrics from the run');
  for (const [scope, snapshot] of Object.entries(metrics)) assertShape('MetricsSnapshot', snapshot, `metrics().${scope}`);
  assertShape('MetricsSnapshot', policy.metricsTotal(), 'metricsTotal()');
  const catalogue = metricCatalogue(metrics);
  catalogue.forEach((m, i) => assertShape('MetricDescription', m, `metricCatalogue()[${i}] (${m.otelName})`));
  const other = new Policy({ seed: 7, maxAttempts: 2 });
  assertShape('RestoreReport', other.restore(policy.snapshot()), 'restore(snapshot)');
  other.free();
  policy.free();
});

test('a standalone breaker states and transitions have the declared fields', () => {
  const breaker = new CircuitBreaker({ trip: { kind: 'consecutive_failures', threshold: 1 }, cooldownMs: 10 });
  const seen = new Set();
  const look = (what) => {
    const state = breaker.state();
    seen.add(state.kind);
    assertShape('BreakerState', state, `state() ${what}`);
    assert.ok(codesOf('BreakerStateCode').includes(breaker.stateAt(0)), `stateAt() wrote an undeclared code ${breaker.stateAt(0)}`);
  };
  look('closed');
  const admit = breaker.tryAcquire(0);
  breaker.onFailure(0, admit.permit, 1);
  look('after a failure');
  const probe = breaker.tryAcquire(20);
  look('after the cooldown');
  breaker.onSuccess(20, probe.permit, 1);
  for (let transition = breaker.pollTransition(); transition !== undefined; transition = breaker.pollTransition()) {
    assertShape('BreakerTransition', transition, 'pollTransition()');
  }
  assertSameCodes('BreakerState (kinds seen)', codesOf('BreakerStateCode'), [...seen], 'the states a breaker went through');
  breaker.free();
});

test('server hints have the fields ServerHint declares', () => {
  const hints = [
    serverHint({ 'retry-after': '3' }, { wallNowMs: 0 }),
    serverHint({ 'x-should-retry': 'false' }, { wallNowMs: 0 }),
    serverHint({ 'retry-after-ms': '1500' }, { wallNowMs: 0, backoffMs: 100 }),
    serverHint({ 'x-amz-retry-after': '1500' }, { wallNowMs: 0 }),
  ];
  for (const [i, hint] of hints.entries()) {
    assert.ok(hint !== null, `hint ${i} not read`);
    const { delayWithBackoffMs: _, ...rest } = hint;
    assertShape('ServerHint', rest, `serverHint ${i} (${hint.kind})`);
  }
  const kinds = solid(declared('ServerHint')).flatMap((m) => kindsOf(m) ?? []);
  const seen = hints.map((h) => h.kind);
  assert.deepEqual(kinds.filter((k) => !seen.includes(k)), [], 'a declared ServerHint kind the run did not produce');
});

// ------------------------------------------------------------ the standalone parts

/** The keys an object type declares. */
function keysOf(name) {
  return checker.getPropertiesOfType(declared(name)).map((p) => p.name);
}

test("the standalone parts' option types declare exactly the keys their constructors read", () => {
  const parts = [
    ['BackoffOptions', (o) => new Backoff(o)],
    ['BreakerConfig', (o) => new CircuitBreaker(o)],
    ['RetryBudgetConfig', (o) => new RetryBudget(o)],
    ['AlertConfig', (o) => new Metrics(o)],
    ['ServerIdempotencyConfig', (o) => new ServerIdempotency(o)],
  ];
  for (const [name, make] of parts) {
    const reads = listedAt(() => make({ zz_drift: 1 }), 'zz_drift');
    assertSameCodes(`${name} (keys)`, keysOf(name), reads, 'the constructor\'s unknown_field list');
  }
});

test('RetryCost is the list of costs the core accepts', () => {
  const budget = new RetryBudget({});
  budget.onFirstAttempt(0);
  const costs = listedAt(() => budget.tryRetry(0, 'zz_drift'), 'cost');
  assertSameCodes('RetryCost (src/components.ts)', codesOf('RetryCost'), costs, 'tryRetry\'s refusal');
  budget.free();
});

test("the standalone parts' results have the declared fields", () => {
  const breaker = new CircuitBreaker({ trip: { kind: 'consecutive_failures', threshold: 1 } });
  const admitted = breaker.tryAcquire(0);
  assertShape('Admit', admitted, 'tryAcquire (admitted)');
  breaker.onFailure(0, admitted.permit, 1);
  assertShape('Admit', breaker.tryAcquire(1), 'tryAcquire (open)');
  breaker.free();

  const budget = new RetryBudget({ ratio: null, runCap: { maxRetries: 1 }, tokenBucket: {} });
  budget.onFirstAttempt(0);
  const granted = budget.tryRetry(0, 'timeout');
  assertShape('BudgetAnswer', granted, 'tryRetry (allowed)');
  const refused = budget.tryRetry(0);
  assertShape('BudgetAnswer', refused, 'tryRetry (refused)');
  assertShape('BudgetStatus', budget.status(0), 'RetryBudget.status');
  budget.free();

  const metrics = new Metrics({ minRequests: 1 });
  metrics.onAttempt(0, false);
  metrics.onCallFinished(0, { retries: 0, outcome: 'exhausted', durationMs: 5 });
  metrics.evaluate(0);
  const alert = metrics.pollEvent();
  assert.ok(alert !== undefined, 'no alert from an exhausted call');
  assertShape('AlertEvent', alert, 'Metrics.pollEvent');
  assertShape('MetricsSnapshot', metrics.snapshot(), 'Metrics.snapshot');
  metrics.free();

  const server = new ServerIdempotency({});
  const proceed = server.decide(0, 'k-1', 'fp', null);
  assertShape('ServerDecision', proceed, 'decide (proceed)');
  assertShape('ServerDecision', server.decide(0, null, 'fp', null), 'decide (refuse)');
  server.free();
});

test("a standalone budget's events have the fields BudgetEvent declares", () => {
  const budget = new RetryBudget({ ratio: null, runCap: { maxRetries: 0 } });
  budget.onFirstAttempt(0);
  budget.tryRetry(0);
  const event = budget.pollEvent();
  assert.ok(event !== undefined, 'no budget event from a refused retry');
  assertShape('BudgetEvent', event, 'RetryBudget.pollEvent');
  budget.free();
});
