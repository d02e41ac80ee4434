// Serves the built page (dist/) on 127.0.0.1 with the strict CSP as a
// header: the header also covers the Web Worker's script, which the page's
// <meta> policy does not reach. `node serve.mjs [port]`; the test imports
// `serve()`.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * Starts the server on 127.0.0.1 (port 0: any free port); resolves with
 * { url, close }.
 * @param {string} root
 * @param {number} port
 */
export function serve(root, port = 0) {
  const server = createServer(async (req, res) => {
    let file;
    try {
      const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    } catch {
      return res.writeHead(400).end('bad request'); // a malformed %-escape
    }
    if (!file.startsWith(root + sep)) return res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[/** @type {keyof typeof TYPES} */ (extname(file))] ?? 'application/octet-stream',
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
      });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address());
      resolve({ url: `http://127.0.0.1:${address.port}/`, close: () => server.close() });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('./dist', import.meta.url));
  const { url } = await serve(root, Number(process.argv[2] ?? process.env.PORT ?? 5178));
  console.log(`playground: ${url} (Ctrl+C stops)`);
}
