// Serves a folder (the package) under /pkg/ and extra routes, on 127.0.0.1.
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json' };

/** A route step for startServer that serves `root` below `prefix`. */
export function serveFolder(root, prefix) {
  return async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname.slice(prefix.length)));
    if (path.startsWith('..')) return res.writeHead(403).end();
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  };
}
