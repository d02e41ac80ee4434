// A local HTTP server (127.0.0.1, ephemeral port) whose routes answer from
// a script: each request to a path takes the next step of that path's list
// (the last step repeats). A key ending in `/*` matches a path prefix. Requests are recorded for assertions.
import http from 'node:http';

/**
 * Steps: { status, headers, body } | 'reset' (destroy the socket) |
 * 'hang' (never answer) | (req, res) => void.
 */
export async function startServer(routes = {}) {
  const requests = [];
  const counters = new Map();
  const hanging = new Set();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method, path: url.pathname, headers: req.headers, body });
      const prefix = Object.keys(routes).find((k) => k.endsWith('/*') && url.pathname.startsWith(k.slice(0, -1)));
      const steps = routes[url.pathname] ?? routes[prefix];
      if (steps === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
        return;
      }
      const n = counters.get(url.pathname) ?? 0;
      counters.set(url.pathname, n + 1);
      // A path served from a folder answers every request the same way.
      const step = steps[Math.min(n, steps.length - 1)];
      if (step === 'reset') {
        req.socket.destroy();
      } else if (step === 'hang') {
        hanging.add(res);
      } else if (typeof step === 'function') {
        step(req, res, body);
      } else {
        res.writeHead(step.status ?? 200, { 'content-type': 'text/plain', ...step.headers }).end(step.body ?? '');
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    hits: (path) => requests.filter((r) => r.path === path).length,
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections?.();
        server.close(resolve);
      }),
  };
}
