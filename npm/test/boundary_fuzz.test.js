// Arbitrary values at every export of every entry in package.json's
// "exports" (functions, constructors, static and prototype methods, getters):
// each call returns, or throws an Error with a string `code`, or throws the
// very error a hostile argument (a throwing getter, Proxy trap, toJSON)
// raised. Never a wasm trap, a code-less error, a hang, or a module that
// stops answering afterwards. Half of the arguments follow the parameter's
// type as the package's .d.ts declares it, so calls get past the first check.
// Every failure of a run is collected and reported together, each with the
// case that reproduces it:
//   STOIC_FUZZ_SEED=<seed> STOIC_FUZZ_CASE=<case> node --test test/boundary_fuzz.test.js
// STOIC_FUZZ_CASES sets how many cases run (default 1500, about 3000 calls).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { types } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const SEED = BigInt(process.env.STOIC_FUZZ_SEED ?? '0x5701c');
const CASES = Number(process.env.STOIC_FUZZ_CASES ?? 1500);
const ONLY = process.env.STOIC_FUZZ_CASE === undefined ? undefined : Number(process.env.STOIC_FUZZ_CASE);
/** How long an async call may take: every fetch, fn and sleep it gets answers at once. */
const BOUND_MS = 3000;

import { Policy as NodePolicy } from '../dist/node.js';
const npm = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', npm), 'utf8'));
const wasmBytes = readFileSync(new URL(pkg.exports['./wasm'], npm));

// ---- the declared API, read from the .d.ts files -------------------------

const dts = readdirSync(new URL('dist/', npm))
  .filter((f) => f.endsWith('.d.ts'))
  .map((f) => readFileSync(new URL(`dist/${f}`, npm), 'utf8'));

/** `text` split at `sep` outside brackets (the `>` of `=>` is not one). */
function splitTop(text, sep) {
  const parts = [];
  let depth = 0;
  let from = 0;
  const flat = text.replaceAll('=>', '=~');
  for (let i = 0; i < flat.length; i++) {
    const c = flat[i];
    if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c)) depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  parts.push(text.slice(from).trim());
  return parts.filter((p) => p !== '');
}

/** The text between the parenthesis at `open` and its match. */
function parenthesised(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return '';
}

function params(list) {
  return splitTop(list, ',').map((p) => {
    const m = /^(?:\.\.\.)?(\w+)(\??):\s*([\s\S]*)$/.exec(p);
    return m ? { name: m[1], optional: m[2] === '?', type: m[3] } : { name: p, optional: true, type: 'unknown' };
  });
}

const signatures = new Map(); // "name" or "Class.member" -> parameters
const shapes = new Map(); // type name -> variants: [{ member: { optional, type } }]
const aliases = new Map(); // type name -> its type text
const literals = new Set();
let anonymous = 0;
for (const text of dts) {
  for (const m of text.matchAll(/export declare function (\w+)(?:<[^(]*>)?\(/g)) {
    if (!signatures.has(m[1])) signatures.set(m[1], params(parenthesised(text, m.index + m[0].length - 1)));
  }
  for (const m of text.matchAll(/export declare class (\w+)[^{]*\{\n([\s\S]*?)\n\}/g)) {
    const bodyAt = m.index + m[0].indexOf('{') + 2;
    for (const member of m[2].matchAll(/^ {4}(?:static )?(?:get )?(\w+)(?:<[^(]*>)?\(/gm)) {
      signatures.set(`${m[1]}.${member[1]}`, params(parenthesised(text, bodyAt + member.index + member[0].length - 1)));
    }
  }
  for (const m of text.matchAll(/'([^'\s/]{1,40})'/g)) literals.add(m[1]);
  for (const m of text.matchAll(/^export type (\w+)(?:<[^=]*>)? = ([^{\n]+);$/gm)) aliases.set(m[1], m[2]);
  // Object types, line by line: interfaces, `type X = {` variants, nested member objects.
  const stack = [];
  let last;
  for (const line of text.split('\n')) {
    const open = /^export (?:declare )?(?:interface|type) (\w+)[^{]*\{$/.exec(line);
    const member = /^\s+(?:readonly )?(\w+)(\??): (.*?);?$/.exec(line);
    if (open) {
      last = open[1];
      stack.push({ name: last, members: {} });
    } else if (/^\s*\| \{$/.test(line) && stack.length === 0 && last !== undefined) {
      stack.push({ name: last, members: {} });
    } else if (/^\s*\} \| \{$/.test(line) && stack.length > 0) {
      const done = stack.pop();
      shapes.set(done.name, [...(shapes.get(done.name) ?? []), done.members]);
      stack.push({ ...done, members: {} });
    } else if (/^\s*\}/.test(line) && stack.length > 0) {
      const done = stack.pop();
      if (Object.keys(done.members).length > 0) shapes.set(done.name, [...(shapes.get(done.name) ?? []), done.members]);
      if (done.member !== undefined) {
        const rest = line.trim().replace(/^\}\s*/, '').replace(/;$/, '');
        stack.at(-1).members[done.member.name] = { optional: done.member.optional, type: `${done.name} ${rest}`.trim() };
      }
    } else if (member && stack.length > 0 && !line.trimStart().startsWith('*')) {
      if (member[3].endsWith('{')) {
        stack.push({ name: `{anonymous ${anonymous++}}`, members: {}, member: { name: member[1], optional: member[2] === '?' } });
      } else {
        stack.at(-1).members[member[1]] = { optional: member[2] === '?', type: member[3] };
      }
    }
  }
}
const keyPool = [...new Set([...shapes.values()].flat().flatMap((s) => Object.keys(s)))];
const literalPool = [...literals];

// ---- a seeded generator of arbitrary values -----------------------------

const MASK = (1n << 64n) - 1n;

/** SplitMix64. */
class Random {
  #state;
  constructor(seed) {
    this.#state = seed & MASK;
  }
  next() {
    this.#state = (this.#state + 0x9e3779b97f4a7c15n) & MASK;
    let z = this.#state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  }
  float() {
    return Number(this.next() >> 11n) / 2 ** 53;
  }
  int(n) {
    return Math.floor(this.float() * n);
  }
  chance(p) {
    return this.float() < p;
  }
  pick(list) {
    return list[this.int(list.length)];
  }
}

const NUMBERS = [
  0, -0, 1, -1, 0.5, -0.5, 1.5, 2, 3, 7, 100, 200, 429, 503, 999, 1000, 65535, 65536, 2 ** 31, 2 ** 32 - 1, 2 ** 32,
  2 ** 53, 2 ** 53 + 1, 2 ** 53 + 2, -(2 ** 53 + 2), 2 ** 63, 2 ** 64, 1e21, 1e308, -1e308, Number.MAX_VALUE,
  Number.MIN_VALUE, Number.EPSILON, NaN, Infinity, -Infinity,
];
const BIGINTS = [0n, 1n, -1n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 64n, -(2n ** 63n) - 1n, 10n ** 30n];
const STRINGS = [
  '', ' ', 'a', 'GET', 'POST', 'default', '\uD800', '\uDC00', 'a\uD800b', '\u0000', 'é', '🙂', 'line\nbreak',
  '"quoted"', '{"seed":1}', '{}', '[]', 'null', '1', '-1', '1.5', '1e400', 'NaN', '{"a":1,"a":2}', '[1,2',
  '{"version":1,"latest":0,"scopes":{}}', 'Wed, 21 Oct 2015 07:28:00 GMT', '120', 'retry-after', ':::',
  'http://127.0.0.1:9/fuzz',
];

/** Labels of values whose shape says more than their contents would. */
const labels = new WeakMap();
function labelled(value, label) {
  labels.set(value, label);
  return value;
}

/** A short description that touches no getter, trap or toJSON. */
function show(value, depth = 0) {
  if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
    if (labels.has(value)) return labels.get(value);
    if (types.isProxy(value)) return 'a Proxy';
  }
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'string':
      return value.length > 40 ? `${JSON.stringify(value.slice(0, 16))}...(${value.length} chars)` : JSON.stringify(value);
    case 'symbol':
      return value.toString();
    case 'function':
      return `function ${value.name || '(anonymous)'}`;
    case 'object':
      break;
    default:
      return String(value);
  }
  if (value === null) return 'null';
  if (depth > 3) return '...';
  if (Array.isArray(value)) {
    const items = value.slice(0, 5).map((v) => show(v, depth + 1));
    return `[${items.join(', ')}${value.length > 5 ? ', ...' : ''}]`;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return `a ${value.constructor?.name ?? 'object'}`;
  const parts = Object.entries(Object.getOwnPropertyDescriptors(value))
    .slice(0, 8)
    .map(([k, d]) => `${k}: ${'get' in d ? 'getter' : show(d.value, depth + 1)}`);
  const text = `${Object.isFrozen(value) && parts.length > 0 ? 'frozen ' : ''}{${parts.join(', ')}}`;
  return text.length > 240 ? `${text.slice(0, 240)}...}` : text;
}

/** The values of one case: its random stream, its hostile errors, what to clean up. */
class Values {
  constructor(random, kit) {
    this.r = random;
    this.kit = kit;
    this.marks = new Set();
    this.cleanup = [];
    this.controller = new AbortController();
  }

  /** An error a hostile value throws; the package may let exactly it through. */
  mark(what) {
    const error = new Error(`fuzz: ${what} throws`);
    this.marks.add(error);
    return error;
  }

  number() {
    const r = this.r;
    if (r.chance(0.6)) return r.pick(NUMBERS);
    if (r.chance(0.5)) return r.int(2006) - 5;
    return (r.float() - 0.5) * 10 ** r.int(20);
  }

  string() {
    const r = this.r;
    const roll = r.float();
    if (roll < 0.4) return r.pick(STRINGS);
    if (roll < 0.7) return r.pick(literalPool);
    if (roll < 0.85) return this.kit.snapshot(r);
    if (roll < 0.97) return r.pick(keyPool);
    return r.pick(HUGE_STRINGS);
  }

  func() {
    const r = this.r;
    const mark = this.mark('a function argument');
    const fns = [
      () => labelled(() => undefined, 'fn -> undefined'),
      () => labelled(() => 42, 'fn -> 42'),
      () => labelled(() => NaN, 'fn -> NaN'),
      () => labelled(() => 'text', 'fn -> "text"'),
      () => labelled(() => { throw mark; }, 'fn throws'),
      () => labelled(async () => undefined, 'async fn'),
      // Rejects, but a caller may drop the promise (a void callback) without an unhandled rejection.
      () => labelled(() => rejected(mark), 'async fn rejects'),
      () => labelled(() => this.hostile(0), 'fn -> Proxy'),
      () => labelled(() => new Response('', { status: 503 }), 'fn -> Response 503'),
      () => labelled(function* generator() {}, 'generator fn'),
      () => labelled(class Thing {}, 'a class'),
    ];
    return r.pick(fns)();
  }

  builtin() {
    const r = this.r;
    const makers = [
      () => new Date(0),
      () => new Date(NaN),
      () => new Date(8.64e15),
      () => new Map([['kind', 'status']]),
      () => new Set(['a']),
      () => Uint8Array.from({ length: 16 }, () => r.int(256)),
      () => new Uint8Array(0),
      () => new Uint8Array(17),
      () => new Float64Array([NaN, -0]),
      () => new BigInt64Array(2),
      () => new Int32Array([-1]),
      () => new DataView(new ArrayBuffer(8)),
      () => new ArrayBuffer(16),
      () => /re/g,
      () => new Headers({ 'retry-after': r.pick(['0', '1', '-1', '1e9', 'soon']) }),
      () => new Response('x', { status: r.pick([200, 429, 503]) }),
      () => new URL('http://127.0.0.1:9/u'),
      () => labelled(AbortSignal.abort(this.mark('an aborted signal')), 'an aborted AbortSignal'),
      () => new Error('a plain error'),
      () => Promise.resolve(1),
      () => labelled(Object.assign(Object.create(null), { kind: 'success' }), '{kind: "success"} without prototype'),
    ];
    return r.pick(makers)();
  }

  /** A live object of the entry's own (or a used-up one). */
  instance() {
    const r = this.r;
    const m = this.kit.loaded;
    const policy = () => {
      const p = new m.Policy({ seed: 2 });
      this.cleanup.push(() => p.free());
      return p;
    };
    const makers = [
      () => labelled(policy(), 'a Policy'),
      () => {
        const p = policy();
        p.free();
        return labelled(p, 'a freed Policy');
      },
      () => {
        const call = policy().start({ operation: 'fuzz' });
        this.cleanup.push(() => call.close());
        return labelled(call, 'a Call');
      },
      () => {
        const call = policy().start();
        call.close();
        return labelled(call, 'a closed Call');
      },
      () => labelled(new m.CircuitBreaker(), 'a CircuitBreaker'),
      () => labelled(new m.CircuitBreaker().tryAcquire(1000).permit, 'a permit'),
      () => labelled(new m.RetryBudget(), 'a RetryBudget'),
      () => labelled(this.controller.signal, 'our AbortSignal'),
    ];
    return r.pick(makers)();
  }

  /** Hostile: throwing getters, Proxy traps, toJSON, valueOf. */
  hostile(depth) {
    const r = this.r;
    const trapAll = (what) => {
      const mark = this.mark(what);
      const trap = () => {
        throw mark;
      };
      return Object.fromEntries(
        ['get', 'set', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'defineProperty', 'deleteProperty', 'apply', 'construct'].map((t) => [t, trap]),
      );
    };
    const makers = [
      () => {
        const o = this.shaped(r.pick([...shapes.keys()]), depth + 1);
        const key = r.pick(keyPool);
        const mark = this.mark(`getter ${key}`);
        Object.defineProperty(o, key, { enumerable: true, get: () => { throw mark; } });
        return o;
      },
      () => labelled(new Proxy(r.pick([{}, [], () => {}]), trapAll('a Proxy trap')), 'a Proxy whose traps throw'),
      () => {
        const target = this.shaped(r.pick([...shapes.keys()]), depth + 1);
        const mark = this.mark('a Proxy get');
        return labelled(new Proxy(target, { get: () => { throw mark; } }), `a Proxy of ${show(target)} whose get throws`);
      },
      () => {
        const mark = this.mark('toJSON');
        const o = this.shaped(r.pick([...shapes.keys()]), depth + 1);
        o.toJSON = () => { throw mark; };
        return o;
      },
      () => {
        const mark = this.mark('valueOf');
        return labelled({ valueOf: () => { throw mark; }, toString: () => { throw mark; } }, 'an object whose valueOf and toString throw');
      },
    ];
    return r.pick(makers)();
  }

  /** A chain `{k: {k: ...}}` or `[[...]]`, built without recursion. */
  deep() {
    const r = this.r;
    const depth = r.chance(0.1) ? 10_000 : 1 + r.int(30);
    const key = r.pick(keyPool);
    const array = r.chance(0.4);
    let value = this.leaf();
    for (let i = 0; i < depth; i++) value = array ? [value] : { [key]: value };
    return labelled(value, array ? `an array nested ${depth} deep` : `{${key}: {${key}: ...}} nested ${depth} deep`);
  }

  cyclic() {
    const r = this.r;
    if (r.chance(0.3)) {
      const a = [1];
      a.push(a);
      return labelled(a, 'a cyclic array');
    }
    const o = this.shaped(r.pick([...shapes.keys()]), 1);
    const inner = Object.values(o).find((v) => typeof v === 'object' && v !== null && !Object.isFrozen(v) && !types.isProxy(v));
    if (inner === undefined || !Reflect.set(inner, 'back', o)) o.back = o;
    return labelled(o, `cyclic ${show(o)}`);
  }

  leaf() {
    const r = this.r;
    const roll = r.float();
    if (roll < 0.15) return r.pick([undefined, null, true, false]);
    if (roll < 0.45) return this.number();
    if (roll < 0.5) return r.pick(BIGINTS);
    if (roll < 0.85) return this.string();
    if (roll < 0.9) return r.pick([Symbol('fuzz'), Symbol.iterator]);
    return this.func();
  }

  /** Anything at all. */
  any(depth = 0) {
    const r = this.r;
    if (depth > 3) return this.leaf();
    const roll = r.float();
    if (roll < 0.4) return this.leaf();
    if (roll < 0.48) return this.builtin();
    if (roll < 0.53) return this.instance();
    if (roll < 0.6) return Array.from({ length: r.int(5) }, () => this.any(depth + 1));
    if (roll < 0.75) return this.shaped(r.pick([...shapes.keys()]), depth + 1);
    if (roll < 0.8) {
      const o = {};
      for (let i = r.int(4); i > 0; i--) {
        const key = r.pick([...keyPool, '__proto__', 'constructor', 'toString', '0', '']);
        Object.defineProperty(o, key, { value: this.any(depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return o;
    }
    if (roll < 0.84) return this.deep();
    if (roll < 0.87) return this.cyclic();
    if (roll < 0.96) return this.hostile(depth);
    return Object.freeze(this.shaped(r.pick([...shapes.keys()]), depth + 1));
  }

  /** An object of a declared shape: its members (some left out) typed, sometimes a stranger. */
  shaped(name, depth) {
    const variants = shapes.get(name);
    return variants === undefined ? this.any(depth + 1) : this.members(this.r.pick(variants), depth);
  }

  /** An object with (some of) `members`, each of its declared type. */
  members(members, depth) {
    const r = this.r;
    const o = {};
    for (const [key, member] of Object.entries(members)) {
      if (r.chance(member.optional ? 0.4 : 0.9)) o[key] = this.typed(member.type, depth + 1);
    }
    if (r.chance(0.1)) o[r.pick(keyPool)] = this.any(depth + 1);
    return o;
  }

  /** A value of a declared type (sometimes anything). */
  typed(type, depth = 0) {
    const r = this.r;
    const t = type.trim();
    if (depth > 6 || r.chance(0.15)) return this.any(depth);
    const alternatives = splitTop(t, '|');
    if (alternatives.length > 1) return this.typed(r.pick(alternatives), depth);
    const parts = splitTop(t, '&');
    if (parts.length > 1) {
      const members = parts.map((p) => shapes.get(p)).filter((v) => v !== undefined).map((v) => r.pick(v));
      return this.members(Object.assign({}, ...members), depth);
    }
    if (/^'.*'$/.test(t)) return t.slice(1, -1);
    if (/^\(.*\)$/.test(t) && !t.includes('=>')) return this.typed(t.slice(1, -1), depth);
    if (t.includes('=>')) return this.func();
    if (t.endsWith('[]')) return Array.from({ length: r.int(4) }, () => this.typed(t.slice(0, -2), depth + 1));
    const base = t.replace(/<[\s\S]*>$/, '').replace(/^readonly /, '');
    switch (base) {
      case 'number':
        return this.number();
      case 'string':
        return this.string();
      case 'boolean':
        return r.chance(0.5);
      case 'bigint':
        return r.pick(BIGINTS);
      case 'null':
        return null;
      case 'undefined':
      case 'void':
        return undefined;
      case 'Uint8Array':
      case 'BufferSource':
        return Uint8Array.from({ length: r.pick([16, 16, 0, 15, 32]) }, () => r.int(256));
      case 'AbortSignal':
        return this.controller.signal;
      case 'Headers':
        return new Headers({ 'retry-after': r.pick(['0', '2', 'Wed, 21 Oct 2015 07:28:00 GMT']) });
      case 'Response':
        return new Response('x', { status: r.pick([200, 429, 503]) });
      case 'Record':
      case 'Partial': {
        const o = {};
        for (let i = r.int(3); i > 0; i--) o[r.pick(['404', '503', '200', ...literalPool])] = r.pick(literalPool);
        return o;
      }
      case 'Iterable':
        return [[r.pick(['retry-after', 'ratelimit', 'x-ms-retry-after-ms']), this.string()]];
      default:
        break;
    }
    if (this.kit.loaded[base] !== undefined && /^[A-Z]/.test(base) && r.chance(0.5)) return this.instance();
    if (shapes.has(base)) return this.shaped(base, depth);
    if (aliases.has(base)) return this.typed(aliases.get(base), depth + 1);
    return this.any(depth);
  }

  /** Arguments for a function with declared `params` (or none known). */
  args(params = []) {
    const r = this.r;
    const n = params.length === 0 ? r.int(4) : r.chance(0.7) ? params.length : r.int(params.length + 2);
    return Array.from({ length: n }, (_, i) => (params[i] !== undefined && r.chance(0.5) ? this.typed(params[i].type) : this.any()));
  }
}

const MB = 1 << 20;
const HUGE_STRINGS = [
  'x'.repeat(MB),
  '\uD800'.repeat(MB / 2),
  'é'.repeat(MB / 2),
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
];

// ---- the calls -----------------------------------------------------------

function isThenable(value) {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && !types.isProxy(value) && typeof value.then === 'function';
}

/** What is wrong with `error` as something the package threw, or null if nothing. */
function wrong(error, marks) {
  if (marks.has(error)) return null;
  if (types.isProxy(error)) return 'threw a Proxy, not an Error';
  if (error instanceof WebAssembly.RuntimeError) return 'a wasm trap';
  if (!(error instanceof Error)) return `threw a ${typeof error}, not an Error`;
  for (let cause = error.cause, i = 0; !types.isProxy(cause) && cause instanceof Error && i < 5; cause = cause.cause, i++) {
    if (cause instanceof WebAssembly.RuntimeError) return 'a wasm trap (as the cause)';
  }
  if (typeof error.code !== 'string') return 'an Error without a code';
  return null;
}

function summary(error) {
  if (types.isProxy(error)) return 'a Proxy';
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n')[0].slice(0, 160)}`;
  return show(error);
}

/** The package's frame nearest the throw, for the report. */
function origin(error) {
  if (types.isProxy(error) || !(error instanceof Error)) return '';
  const frame = String(error.stack).split('\n').find((line) => line.includes('/dist/'));
  return frame === undefined ? '' : frame.trim().replace(/^at /, '').replace(/file:\/\/\S*\/dist\//, 'dist/');
}

const LATE = Symbol('late');

function rejected(error) {
  const promise = Promise.reject(error);
  promise.catch(() => undefined);
  return promise;
}

/** Runs one call; a failure is recorded on `run`. `mayWait`: still pending at the bound is no hang. */
async function call(run, name, args, thunk, mayWait = false) {
  const before = run.history.length > 0 ? `after ${run.history.join(', ')}: ` : '';
  const where = { name, args: `${before}${args.map((a) => show(a)).join(', ')}`, index: run.index, entry: run.entry };
  run.calls += 1;
  let value;
  try {
    value = thunk();
    if (isThenable(value)) {
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(() => resolve(LATE), BOUND_MS)));
      const settled = await Promise.race([value, late]).finally(() => clearTimeout(timer));
      if (settled === LATE) {
        run.values.controller.abort(new Error('fuzz: bound reached'));
        if (!mayWait) run.fail(where, `did not settle within ${BOUND_MS} ms`, 'a hang');
        return;
      }
      value = settled;
    }
    if (typeof value?.next === 'function' && typeof value[Symbol.iterator] === 'function' && !types.isProxy(value)) {
      for (let i = 0; i < 1000 && !value.next().done; i++);
    }
  } catch (error) {
    run.threw = true;
    const why = wrong(error, run.values.marks);
    if (why !== null) run.fail({ ...where, at: origin(error) }, why, summary(error));
  }
}

/** A fake `fn` for retry(): answers at once, one way or another, each attempt. */
function fakeFn(values) {
  const r = values.r;
  const mark = values.mark('fn');
  const ways = [
    () => 'ok',
    () => values.any(),
    () => new Response('busy', { status: r.pick([429, 500, 503]), headers: { 'retry-after': r.pick(['0', '1', 'x']) } }),
    () => { throw mark; },
    () => { throw values.any(); },
    () => { throw Object.assign(new Error('busy'), { status: r.pick([429, 503, 504, 1e308]) }); },
    () => { throw new TypeError('fetch failed', { cause: { code: r.pick(['ECONNREFUSED', 'ECONNRESET', 'EAI_AGAIN']) } }); },
    () => rejected(mark),
    async (attempt) => [attempt.attempt, attempt.timeoutMs, attempt.idempotencyKey, attempt.signal.aborted],
  ];
  const chosen = Array.from({ length: 3 }, () => r.pick(ways));
  let n = 0;
  return labelled(
    (attempt) => chosen[Math.min(n++, chosen.length - 1)](attempt),
    `fn(${chosen.map((w) => ways.indexOf(w)).join(',')})`,
  );
}

/** Options of a declared interface with our fake sleep, fetch and signal where the draw left them out. */
function options(values, shape, fakes) {
  const r = values.r;
  if (r.chance(0.15)) return values.any();
  const o = values.shaped(shape, 1);
  for (const [key, fake] of Object.entries(fakes)) if (!(key in o)) o[key] = fake;
  return r.chance(0.1) ? Object.freeze(o) : o;
}

const fakeSleep = labelled(async () => undefined, 'a sleep that returns at once');

/** The calls of one case against `m`, the entry's module. */
async function exercise(run, m, target) {
  const values = run.values;
  const r = values.r;
  switch (target.kind) {
    case 'function': {
      const args = values.args(signatures.get(target.name));
      return call(run, target.name, args, () => m[target.name](...args));
    }
    case 'retry': {
      const opts = options(values, 'RetryOptions', { sleep: fakeSleep, signal: values.controller.signal });
      // Only with our sleep may fn fail in ways that are retried: the package's own sleeps for real.
      const ours = typeof opts === 'object' && opts !== null && !types.isProxy(opts) && Object.getOwnPropertyDescriptor(opts, 'sleep')?.value === fakeSleep;
      const mark = values.mark('fn');
      const fn = !ours ? labelled(r.chance(0.5) ? () => 'ok' : () => { throw mark; }, 'fn -> "ok" or throws') : r.chance(0.15) ? values.any() : fakeFn(values);
      return call(run, 'retry', [fn, opts], () => m.retry(fn, opts));
    }
    case 'sleep': {
      // sleep() waits as long as asked: a wait past the bound is no hang, and gets our signal to end it.
      const args = values.args(signatures.get('sleep'));
      const ms = (() => { try { return Number(args[0]); } catch { return 0; } })();
      const long = ms >= BOUND_MS && ms < 2 ** 31;
      if (long) args[1] = values.controller.signal;
      return call(run, 'sleep', args, () => m.sleep(...args), long);
    }
    case 'fetch': {
      const mark = values.mark('fetch');
      const answers = [
        () => new Response('ok'),
        () => new Response('busy', { status: r.pick([429, 503]), headers: { 'retry-after': r.pick(['0', '1', 'x']) } }),
        () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } })),
        () => values.any(),
        () => { throw mark; },
      ];
      const fetch = labelled(() => r.pick(answers)(), 'a fake fetch');
      const factory = options(values, 'FetchOptions', { fetch, sleep: fakeSleep });
      const input = r.pick([
        () => 'http://127.0.0.1:9/fuzz',
        () => (r.chance(0.5) ? new Request('http://127.0.0.1:9/fuzz') : new Request('http://127.0.0.1:9/fuzz', { method: r.pick(['POST', 'PUT']), body: 'x' })),
        () => values.any(),
      ])();
      const init = r.chance(0.3) ? undefined : options(values, 'StoicRequestInit', { signal: values.controller.signal });
      let fetchWithRetries;
      await call(run, 'createFetch', [factory], () => (fetchWithRetries = m.createFetch(factory)));
      if (typeof fetchWithRetries !== 'function') return undefined;
      run.history.push(`createFetch(${show(factory)})`);
      const args = init === undefined ? [input] : [input, init];
      return call(run, 'createFetch(options)(input, init)', args, () => fetchWithRetries(...args));
    }
    case 'construct': {
      const args = values.args(signatures.get(`${target.cls}.constructor`));
      let made;
      await call(run, `new ${target.cls}`, args, () => (made = new m[target.cls](...args)));
      if (made instanceof m.Policy) {
        const policy = made;
        values.cleanup.push(() => policy.free());
      }
      made = undefined;
      // A finalizer of what was built runs now, while this case is still the one to blame.
      gc();
      await new Promise(setImmediate);
      return undefined;
    }
    case 'static': {
      const args = values.args(signatures.get(`${target.cls}.${String(target.member)}`));
      return call(run, `${target.cls}.${String(target.member)}`, args, () => m[target.cls][target.member](...args));
    }
    case 'method': {
      let instance;
      try {
        instance = validInstance(m, target.cls, values);
      } catch (error) {
        run.fail({ name: `a valid ${target.cls}`, args: '', index: run.index, entry: run.entry }, 'could not build one to call methods on', summary(error));
        return undefined;
      }
      const members = methodsOf(m[target.cls]);
      const sequence = [target.member, ...Array.from({ length: r.int(3) }, () => r.pick(members))];
      for (const member of sequence) {
        const name = `${target.cls}.prototype.${String(member)}`;
        const getter = Object.getOwnPropertyDescriptor(m[target.cls].prototype, member).get;
        const args = getter ? [] : values.args(signatures.get(`${target.cls}.${String(member)}`));
        await call(run, name, args, () => (getter ? getter.call(instance) : instance[member](...args)));
        run.history.push(`${String(member)}(${args.length} args)`);
      }
      return undefined;
    }
    default:
      throw new Error(`unknown target kind ${target.kind}`);
  }
}

/** A valid instance to call methods on. */
function validInstance(m, cls, values) {
  if (cls === 'Call' || cls === 'Policy') {
    const policy = new m.Policy({ seed: 1 });
    values.cleanup.push(() => policy.free());
    if (cls === 'Policy') return policy;
    const started = policy.start();
    values.cleanup.push(() => started.close());
    return started;
  }
  if (cls === 'Backoff') return new m.Backoff({ seed: 1 });
  if (cls === 'ToolFailure') {
    const failed = { ok: false, value: undefined, observation: 'HTTP 422', reason: 'deterministic', key: 'run:step:0', attempts: 1, retryAfterMs: undefined, error: undefined };
    return new m.ToolFailure(failed);
  }
  if (cls === 'Run') return new m.Run('fuzz-run', { policyOptions: { seed: 1 }, sleep: fakeSleep });
  if (cls === 'FleetSync') {
    // A store that is never there: every exchange fails (and says so).
    const policy = new NodePolicy({ seed: 1 });
    const absent = async () => {
      throw new Error('no store in the fuzz test');
    };
    const sync = new m.FleetSync(policy, { time: absent, eval: absent }, { intervalMs: 1000 });
    values.cleanup.push(() => void sync.close().finally(() => policy.free()));
    return sync;
  }
  return new m[cls]();
}

const isClass = (f) => typeof f === 'function' && /^class\b/.test(Function.prototype.toString.call(f));

/** Own methods and getters of a class's prototype (string and symbol keys). */
function methodsOf(cls) {
  return Reflect.ownKeys(cls.prototype).filter((k) => {
    const d = Object.getOwnPropertyDescriptor(cls.prototype, k);
    return k !== 'constructor' && (typeof d.value === 'function' || d.get !== undefined);
  });
}

/** Every target of one entry's module: async ones weigh half as much. */
function targetsOf(m) {
  const targets = [];
  for (const name of Object.keys(m)) {
    const value = m[name];
    if (isClass(value)) {
      targets.push({ kind: 'construct', cls: name, weight: 1 });
      for (const member of Reflect.ownKeys(value)) {
        if (typeof Object.getOwnPropertyDescriptor(value, member).value === 'function') targets.push({ kind: 'static', cls: name, member, weight: 1 });
      }
      for (const member of methodsOf(value)) targets.push({ kind: 'method', cls: name, member, weight: 1 });
    } else if (typeof value === 'function') {
      const kind = ['retry', 'sleep'].includes(name) ? name : 'function';
      targets.push({ kind, name, weight: kind === 'function' ? 1 : 0.5 });
      if (name === 'createFetch') targets.push({ kind: 'fetch', name, weight: 0.5 });
    }
  }
  return targets;
}

function weighted(r, targets) {
  const total = targets.reduce((s, t) => s + t.weight, 0);
  let x = r.float() * total;
  for (const t of targets) if ((x -= t.weight) < 0) return t;
  return targets.at(-1);
}

/** The entries of package.json "exports" that Node resolves to JavaScript. */
function entries() {
  const resolve = (spec) => (typeof spec === 'string' ? spec : resolve(spec.node ?? spec.import ?? spec.default));
  return Object.entries(pkg.exports)
    .map(([name, spec]) => ({ name, file: resolve(spec) }))
    .filter((e) => e.file.endsWith('.js'));
}

/** What is wrong with the engine after a case, or null if it still answers. */
function sickness(m) {
  try {
    const policy = new m.Policy({ seed: 1 });
    const started = policy.start({ operation: 'health' });
    const kind = started.beforeAttempt().kind;
    started.close();
    policy.free();
    const text = m.canonicalizeJsonText('{"b":1,"a":[2]}');
    return kind === 'proceed' && text === '{"a":[2],"b":1}' ? null : `answered ${kind} and ${text}`;
  } catch (error) {
    return summary(error);
  }
}

test('every export answers arbitrary arguments, or refuses them with a coded Error', { timeout: 900_000 }, async () => {
  const list = entries();
  const main = await import(new URL(list.find((e) => e.name === '.').file, npm));
  const kits = [];
  for (const entry of list) {
    const url = new URL(entry.file, npm);
    const m = await import(url);
    // An entry that loads nothing by itself (`stoic/init`) gets a fresh copy per case, loaded or not.
    const lazy = typeof m.initFrom === 'function';
    kits.push({ entry: entry.name, url, module: m, lazy, targets: targetsOf(m), weight: entry.name === '.' ? 3 : 1 });
  }
  const snapshots = (() => {
    const policy = new main.Policy({ seed: 1, breaker: { trip: { kind: 'consecutive_failures', threshold: 1 } } });
    const c = policy.start({ operation: 'op', scope: 'api' });
    c.beforeAttempt(1000);
    c.onOutcome({ kind: 'status', status: 503 }, 1001);
    c.close();
    const text = policy.snapshot();
    policy.free();
    return [text, text.slice(0, text.length >> 1), text.replace(/\d+/, '1e999'), text.replace(/\d+/, '99999999999999999999999'), text.replace('"version":1', '"version":2')];
  })();

  const failures = [];
  const uncaught = [];
  let current;
  process.setUncaughtExceptionCaptureCallback((error) => uncaught.push({ error, index: current?.index, entry: current?.entry }));
  const realFetch = globalThis.fetch;
  // Nothing reaches the network: a fetch the package falls back to answers 404 here.
  globalThis.fetch = async () => new Response('no network in the fuzz test', { status: 404 });
  let calls = 0;
  let ran = 0;
  try {
    for (let index = 0; index < CASES; index++) {
      if (ONLY !== undefined && index !== ONLY) continue;
      const r = new Random(SEED ^ ((BigInt(index) + 1n) * 0xd1342543de82ef95n));
      const kit = weighted(r, kits);
      let m = main;
      let loaded = true;
      if (kit.lazy) {
        m = await import(`${kit.url}?case=${index}`);
        loaded = r.chance(0.5);
        if (loaded) m.initFrom(wasmBytes);
      }
      const target = weighted(r, loaded ? kit.targets : kit.targets.filter((t) => t.kind !== 'method'));
      const values = new Values(r, { loaded: loaded ? m : main, snapshot: (rr) => rr.pick(snapshots) });
      // A class or function of an entry of its own (`stoic/redis`, `stoic/prometheus`) is exercised from that entry.
      const own = target.cls ?? target.name;
      if (own !== undefined && m[own] === undefined) m = { ...main, [own]: kit.module[own] };
      const run = {
        index,
        entry: kit.entry,
        values,
        threw: false,
        calls: 0,
        history: [],
        fail: (where, why, error) => failures.push({ ...where, why, error }),
      };
      current = run;
      const before = failures.length;
      try {
        await exercise(run, m, target);
      } catch (error) {
        // Only a poisoned engine may break the test's own code (building values of the package's own).
        if (sickness(main) === null) throw error;
        run.threw = true;
      }
      for (const clean of values.cleanup) {
        await call(run, 'cleanup (free/close)', [], clean);
      }
      values.controller.abort(new Error('fuzz: case over'));
      calls += run.calls;
      ran += 1;
      const sick = run.threw || failures.length > before ? sickness(main) : null;
      if (sick !== null) {
        const what = `${target.kind} ${target.name ?? target.cls}${target.member ? `.${String(target.member)}` : ''}`;
        failures.push({ name: 'the module', args: `after ${what}`, index, entry: kit.entry, why: 'stopped answering (poisoned), the run stops here', error: sick });
        break;
      }
    }
    gc();
    await new Promise(setImmediate);
  } finally {
    globalThis.fetch = realFetch;
    process.setUncaughtExceptionCaptureCallback(null);
  }
  for (const u of uncaught) {
    const why = 'thrown outside any call (a timer or finalizer; the case is the one running then)';
    failures.push({ name: 'an uncaught exception', args: '', index: u.index, entry: u.entry, why, error: summary(u.error), at: origin(u.error) });
  }

  // One entry per distinct failure: where, what was wrong, the error (without the value a short
  // prefix like "unknown class: " quotes, and without numbers); its first case reproduces it.
  const distinct = new Map();
  for (const f of failures) {
    const error = f.error.replace(/^(\w+: [^:(]{1,30}): .*$/s, '$1: ...').replace(/\d+/g, 'N');
    const key = `${f.name} | ${f.why} | ${error}`;
    const seen = distinct.get(key);
    if (seen) {
      seen.count += 1;
      seen.entries.add(f.entry);
    } else {
      distinct.set(key, { ...f, count: 1, entries: new Set([f.entry]) });
    }
  }
  const seed = `0x${SEED.toString(16)}`;
  const report = [...distinct.values()].map(
    (f, i) =>
      `${i + 1}. ${f.name}: ${f.why}${f.error ? `: ${f.error}` : ''}\n` +
      `   x${f.count} in ${[...f.entries].join(', ')}; first: case ${f.index} (${f.entry}) args (${f.args})\n` +
      (f.at ? `   at ${f.at}\n` : '') +
      `   STOIC_FUZZ_SEED=${seed} STOIC_FUZZ_CASE=${f.index} node --test test/boundary_fuzz.test.js`,
  );
  assert.ok(ran > 0, 'no case ran');
  console.log(`boundary fuzz: ${ran} cases, ${calls} calls, seed ${seed}, ${failures.length} failures (${distinct.size} distinct)`);
  assert.equal(distinct.size, 0, `${distinct.size} distinct failures (${failures.length} in all) in ${ran} cases (${calls} calls), seed ${seed}:\n${report.join('\n')}`);
});
