// The framework adapters' types against the frameworks' own (the pinned ai,
// @modelcontextprotocol/sdk and @openai/agents): testlib/adapters-typed.ts,
// what a TypeScript user writes with each adapter, compiles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('..', import.meta.url));

test('stoic/ai, stoic/mcp and stoic/openai-agents type-check with the frameworks\' own types', () => {
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
  // The frameworks' own .d.ts are theirs to check.
  args.push('--skipLibCheck', '--types', 'node', 'testlib/adapters-typed.ts');
  try {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', ...args], { cwd: pkg, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    assert.fail(`${error.stdout}${error.stderr}`);
  }
});
