// What the agent adapters' suites share: the orders backend's route, fast
// policy options, a sleep that does not wait, and a console.warn catcher.

/** No test waits: backoff goes to this sleep. */
export const sleep = async () => {};

/** Policy options whose waits are a few ms. */
export const FAST = { seed: 1, backoff: { strategy: 'constant', baseMs: 5, capMs: 5 } };

/** The orders backend: a bad quantity is a 422; the first good order (per route made) meets a 503, then orders are created. */
export function ordersRoute() {
  let valid = 0;
  return (req, res, body) => {
    const order = JSON.parse(body);
    if (!(order.quantity > 0)) {
      res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"quantity must be positive"}');
    } else if (++valid === 1) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
    } else {
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: valid - 1, ...order }));
    }
  };
}

/** Collects console.warn's arguments until `restore()`. */
export function captureWarnings() {
  const warned = [];
  const original = console.warn;
  console.warn = (...args) => warned.push(args);
  warned.restore = () => {
    console.warn = original;
  };
  return warned;
}
