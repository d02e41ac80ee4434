// Runs a worker in workerd (the npm package's binary): copies the package's
// dist and the worker into a temporary folder, writes a config that lists
// every module, and serves it on a free 127.0.0.1 port. The worker gets a
// writable folder as the service STORE and as the KV namespace KV.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const npmDir = fileURLToPath(new URL('..', import.meta.url));

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** A capnp module entry for a file in the worker's folder. */
const moduleEntry = (f) => (f.endsWith('.wasm') ? `(name = "${f}", wasm = embed "${f}")` : `(name = "${f}", esModule = embed "${f}")`);

/**
 * The config of one worker on 127.0.0.1 (local network allowed), with a
 * disk service (STORE, KV) if `store` is given and `v8Flags` for workerd's V8.
 */
function config(modules, store, v8Flags = []) {
  const disk = store ? `\n    (name = "store", disk = (path = "${store}", writable = true)),` : '';
  const binding = store ? '\n  bindings = [(name = "STORE", service = "store"), (name = "KV", kvNamespace = "store")],' : '';
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  v8Flags = [${v8Flags.map((f) => JSON.stringify(f)).join(', ')}],
  services = [
    (name = "main", worker = .worker),
    (name = "net", network = (allow = ["local"])),${disk}
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [
    ${modules.join(',\n    ')}
  ],
  compatibilityDate = "2025-01-01",${binding}
  globalOutbound = "net",
);
`;
}

/**
 * Runs `workerFile` with the package's dist beside it (`stoic` names its
 * workerd entry). `modules` maps more module names to files; `v8Flags` go to V8.
 */
export async function startWorkerd(workerFile, { modules: more = {}, v8Flags } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'stoic-workerd-'));
  cpSync(join(npmDir, 'dist'), join(dir, 'stoic'), { recursive: true });
  cpSync(workerFile, join(dir, 'worker.js'));
  for (const [name, file] of Object.entries(more)) cpSync(file, join(dir, name));
  mkdirSync(join(dir, 'store'));
  const modules = files(join(dir, 'stoic'))
    .map((f) => relative(dir, f))
    .filter((f) => f.endsWith('.js') || f.endsWith('.wasm'))
    .concat(Object.keys(more))
    .map(moduleEntry);
  const main = ['(name = "worker.js", esModule = embed "worker.js")', `(name = "stoic", esModule = "export * from './stoic/workerd.js';")`];
  return serve(dir, config([...main, ...modules], join(dir, 'store'), v8Flags));
}

/**
 * Runs a build tool's output as it wrote it: `files` (in `from`; the first
 * is the main module) become the worker's modules under the same names.
 */
export async function startWorkerdConfig(from, files) {
  const dir = mkdtempSync(join(tmpdir(), 'stoic-workerd-'));
  for (const f of files) cpSync(join(from, f), join(dir, f));
  const handle = await serve(dir, config(files.map(moduleEntry)));
  return { ...handle, close: handle.stop };
}

async function serve(dir, config) {
  writeFileSync(join(dir, 'config.capnp'), config);
  const port = await freePort();
  const bin = join(npmDir, 'node_modules/.bin/workerd');
  const child = spawn(bin, ['serve', join(dir, 'config.capnp'), '--socket-addr', `http=127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`workerd exited: ${log}`);
    try {
      await fetch(`${url}/__ready`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (i > 100) throw new Error(`workerd did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    pid: child.pid,
    log: () => log,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
