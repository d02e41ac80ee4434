// The packed package works: `npm pack`, install the tarball into a fresh
// project (no registry needed: the package has no dependencies), import it
// from ESM and from CommonJS, run a call, and type-check a consumer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('..', import.meta.url));

const consumer = `
let n = 0;
const value = await stoic.retry(() => (++n < 2 ? Promise.reject(Object.assign(new Error('flaky'), { status: 503 })) : 'ok'), {
  policy: new stoic.Policy({ backoff: { strategy: 'constant', baseMs: 1, capMs: 1 } }),
});
console.log(JSON.stringify({ value, attempts: n, key: stoic.idempotencyKey('run', 'step', { a: 1 }) }));
`;

test('npm pack, install the tarball, import from ESM and CJS, type-check a consumer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stoic-pack-'));
  try {
    execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: pkg, stdio: 'pipe' });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote no tarball');
    const listing = execFileSync('tar', ['-tzf', join(dir, tarball)], { encoding: 'utf8' });
    assert.match(listing, /package\/dist\/wasm\/stoic_wasm_bg\.wasm/);
    assert.match(listing, /package\/dist\/wasm\/stoic_client_bg\.wasm/);
    assert.match(listing, /package\/dist\/full\.js/);
    assert.match(listing, /package\/dist\/wasm\/stoic_client_inline\.js/);
    assert.match(listing, /package\/dist\/inline-client\.js/);
    assert.doesNotMatch(listing, /stamp/);
    assert.doesNotMatch(listing, /package\/(src|test|node_modules)\//);

    const project = join(dir, 'project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    execFileSync(
      'npm',
      ['install', '--silent', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', join(dir, tarball)],
      { cwd: project, stdio: 'pipe' },
    );
    writeFileSync(join(project, 'esm.mjs'), `import * as stoic from 'stoic';\n${consumer}`);
    writeFileSync(join(project, 'cjs.cjs'), `const stoic = require('stoic');\n(async () => {${consumer}})();`);
    const expected = { value: 'ok', attempts: 2, key: 'run:step:015abd7f5cc57a2d' };
    for (const file of ['esm.mjs', 'cjs.cjs']) {
      const out = execFileSync(process.execPath, [file], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
      assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1)), expected, file);
    }

    // The framework adapters' subpaths use the engine the package's entry loaded.
    writeFileSync(
      join(project, 'adapters.mjs'),
      `import { Run } from 'stoic';
import { stoicTools, ToolFailure } from 'stoic/ai';
import { callTool, toolHandler, ToolReplays, META } from 'stoic/mcp';
import { runTool, errorFunction } from 'stoic/openai-agents';
const run = new Run('run');
const agentsTool = runTool(run, { name: 'u', execute: async (input) => input.n * 10 });
const tenfold = await agentsTool.execute({ n: 3 }, {}, { toolCall: { callId: 'c9' } });
const words = await errorFunction(run)({}, Object.assign(new Error('HTTP 422'), { status: 422 }));
const tools = stoicTools(run, { t: { execute: async (input) => input.n + 1 } });
const value = await tools.t.execute({ n: 1 }, { toolCallId: 'c1', messages: [] });
const handler = toolHandler('t', async (args) => ({ content: [{ type: 'text', text: String(args.n) }] }), { run, replays: new ToolReplays() });
const answer = await handler({ n: 2 }, { requestId: 1, _meta: { [META.idempotencyKey]: 'k1' } });
console.log(JSON.stringify({ value, text: answer.content[0].text, failure: typeof ToolFailure, callTool: typeof callTool, tenfold, words: words.slice(0, 8) }));
`,
    );
    const adapters = execFileSync(process.execPath, ['adapters.mjs'], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
    assert.deepEqual(JSON.parse(adapters.trim().split('\n').at(-1)), { value: 2, text: '2', failure: 'function', callTool: 'function', tenfold: 30, words: 'HTTP 422' });

    // TypeScript consumers, as each resolution mode and module kind sees the
    // package: ESM under node16, nodenext and bundler; CommonJS under
    // nodenext (require of an ES module, TS >= 5.8) and under node16 through
    // `import()` (node16 refuses require of an ES module: TS1479).
    const typed = `import { retry, createFetch, Policy, Run, type Decision } from 'stoic';
import { init } from 'stoic/init';
import { parseRetryAfter } from 'stoic/inline';
import { CircuitBreaker } from 'stoic/full';
import { stoicTools, type ToolFailure } from 'stoic/ai';
import { toolHandler, ToolReplays } from 'stoic/mcp';
import { runTool } from 'stoic/openai-agents';
export const breaker = new CircuitBreaker();
const policy = new Policy({ maxAttempts: 3, timeouts: { totalMs: 10_000 } });
const fetchWithRetries = createFetch({ policy });
const d: Decision = policy.start({ method: 'GET' }).onOutcome({ kind: 'status', status: 503 });
const delay: number = d.kind === 'retry' ? d.delayMs : 0;
export const loaded: Promise<void> = init(new URL('https://cdn.example/stoic.wasm'));
export const hint: number | null = parseRetryAfter('5');
export const run = () => retry(async () => (await fetchWithRetries('http://127.0.0.1:1/')).status + delay, { policy });
export const tools = stoicTools(new Run('r'), { t: { execute: async (input: { n: number }) => input.n } });
export const handler = toolHandler('t', async (args: { n: number }, _extra, call) => ({ content: [{ type: 'text', text: \`\${args.n} \${call.key}\` }] }), {
  run: () => new Run('srv'),
  replays: new ToolReplays(),
});
export const reason = (error: ToolFailure): string | undefined => error.reason;
export const agentsTool = runTool(new Run('r'), { name: 'u', execute: async (input: { n: number }) => input.n });
`;
    const dynamic = `export async function run(): Promise<number> {
  const { retry } = await import('stoic');
  return retry(() => 1);
}
`;
    const cases = [
      { name: 'esm-node16', type: 'module', module: 'node16', moduleResolution: 'node16', source: typed },
      { name: 'esm-nodenext', type: 'module', module: 'nodenext', moduleResolution: 'nodenext', source: typed },
      { name: 'esm-bundler', type: 'module', module: 'esnext', moduleResolution: 'bundler', source: typed },
      { name: 'cjs-nodenext', type: 'commonjs', module: 'nodenext', moduleResolution: 'nodenext', source: typed },
      { name: 'cjs-node16-import', type: 'commonjs', module: 'node16', moduleResolution: 'node16', source: dynamic },
    ];
    for (const c of cases) {
      const dir = join(project, c.name);
      execFileSync('mkdir', ['-p', dir]);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: c.name, private: true, type: c.type }));
      writeFileSync(join(dir, 'typed.ts'), c.source);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: c.module,
            moduleResolution: c.moduleResolution,
            target: 'es2022',
            strict: true,
            noEmit: true,
            lib: ['es2022', 'dom'],
            types: [],
            typeRoots: [],
          },
          files: ['typed.ts'],
        }),
      );
      try {
        execFileSync(process.execPath, [join(pkg, 'node_modules/typescript/bin/tsc'), '-p', dir], { stdio: 'pipe', encoding: 'utf8' });
      } catch (error) {
        assert.fail(`${c.name}: ${error.stdout}${error.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
