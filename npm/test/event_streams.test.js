// A stream of events (text/event-stream: how the model APIs stream a
// completion) passes through createFetch unbuffered: the caller reads the
// first event while the server still holds the rest. The server sends one
// event, then waits until the test has read it (or a safety bound passes):
// had createFetch buffered the body, nothing would reach the test before the
// bound, and the server would report it was never released. A stream that
// goes quiet for longer than the attempt's timeout ends with a TimeoutError.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createFetch, Policy } from '../dist/node.js';

const SAFETY_BOUND_MS = 10_000;
let server;
let url;
let release;
const releasedInTime = [];

before(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.write('data: {"delta":"Hel"}\n\n');
      if (req.url === '/stall') return; // then nothing, ever
      const released = await Promise.race([
        release.promise.then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), SAFETY_BOUND_MS).unref()),
      ]);
      releasedInTime.push(released);
      res.end('data: {"delta":"lo"}\n\ndata: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

test('an event stream is handed over as it arrives, without stream: true', async () => {
  release = deferred();
  releasedInTime.length = 0;
  const fetch = createFetch({ policy: new Policy({ seed: 1 }) });
  const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const first = decoder.decode((await reader.read()).value);
  release.resolve();
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += decoder.decode(value);
  }
  assert.match(first, /"Hel"/);
  assert.match(rest, /\[DONE\]/);
  assert.deepEqual(releasedInTime, [true]);
});

test("a stream that goes quiet for longer than the attempt's timeout ends with a TimeoutError", async () => {
  const fetch = createFetch({ policy: new Policy({ seed: 1, timeouts: { readMs: 150 } }) });
  const response = await fetch(`${url}/stall`, { method: 'POST', body: '{}' });
  const reader = response.body.getReader();
  assert.match(new TextDecoder().decode((await reader.read()).value), /"Hel"/);
  await assert.rejects(reader.read(), (e) => e.name === 'TimeoutError' && /no data arrived/.test(e.message));
});
