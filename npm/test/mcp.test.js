// stoic/mcp with the real MCP TypeScript SDK (@modelcontextprotocol/sdk
// 1.x): an McpServer whose tool handlers run through a run (toolHandler),
// and a Client calling through one (callTool), over the SDK's in-memory
// transports and its Streamable HTTP transport on 127.0.0.1. The tools
// write to a local orders server. Asserted: what the client (the model's
// side) received and what the servers recorded. Waits go to an injected
// sleep; the one request timeout below is part of a scenario, not timed.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createFetch, idempotencyKey, Policy, Run } from '../dist/node.js';
import { callTool, META, toolHandler, ToolReplays } from 'stoic/mcp';
import { startServer } from '../testlib/server.js';
import { FAST, ordersRoute, sleep } from '../testlib/agents.js';

const serverRun = () => new Run('orders-mcp', { policyOptions: FAST, sleep });

let backend;
before(async () => {
  backend = await startServer({ '/orders': [ordersRoute()], '/http-orders': [ordersRoute()], '/down': [{ status: 503, body: 'down' }] });
});
after(() => backend.close());

function text(result) {
  return result.content.map((part) => part.text).join('');
}

/**
 * The orders MCP server: its tools write to the backend through createFetch.
 * `ran` counts each tool's handler runs; `metas` keeps each request's `_meta`.
 */
function ordersServer({ replays, path = '/orders' } = {}) {
  const server = new McpServer({ name: 'orders', version: '1.0.0' });
  const fetch = createFetch({ policy: new Policy(FAST), sleep });
  const ran = { create_order: 0, always_down: 0, slow_write: 0, read_status: 0 };
  const metas = [];
  const post = async (target, body) => {
    const response = await fetch(backend.url(target), { method: 'POST', body: JSON.stringify(body) });
    if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status });
    return response.json();
  };
  const orderSchema = { sku: z.string(), quantity: z.number() };
  server.registerTool(
    'create_order',
    { description: 'Create an order', inputSchema: orderSchema },
    toolHandler(
      'create_order',
      async (args, extra) => {
        ran.create_order += 1;
        metas.push(extra._meta);
        const order = await post(path, args);
        return { content: [{ type: 'text', text: JSON.stringify(order) }] };
      },
      { run: serverRun, replays },
    ),
  );
  server.registerTool(
    'always_down',
    { inputSchema: { n: z.number() } },
    toolHandler(
      'always_down',
      async (args) => {
        ran.always_down += 1;
        return { content: [{ type: 'text', text: JSON.stringify(await post('/down', args)) }] };
      },
      { run: () => new Run('orders-mcp', { policyOptions: { ...FAST, breaker: null }, sleep }), replays },
    ),
  );
  // Hangs on its first call until the client gives up on it.
  const hangOnce = (name) => async (extra) => {
    ran[name] += 1;
    if (ran[name] === 1) await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
    return { content: [{ type: 'text', text: `${name} ${ran[name]}` }] };
  };
  server.registerTool('slow_write', { annotations: { readOnlyHint: false } }, hangOnce('slow_write'));
  server.registerTool('read_status', { annotations: { readOnlyHint: true } }, hangOnce('read_status'));
  return { server, ran, metas };
}

async function connected(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

test('server: a transient failure inside the tool is retried there; a 422 answers isError with the observation and why', async () => {
  const { server, ran } = ordersServer();
  const client = await connected(server);
  try {
    const ok = await client.callTool({ name: 'create_order', arguments: { sku: 'tea', quantity: 2 } });
    assert.equal(ok.isError, undefined);
    assert.deepEqual(JSON.parse(text(ok)), { id: 1, sku: 'tea', quantity: 2 });

    const bad = await client.callTool({ name: 'create_order', arguments: { sku: 'tea', quantity: 0 } });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /^HTTP 422 Unprocessable Content .* Change the request/);
    assert.match(text(bad), /quantity must be positive/);
    assert.deepEqual(bad._meta, { [META.reason]: 'deterministic', [META.retryable]: false });
    assert.equal(bad.structuredContent, undefined);

    const down = await client.callTool({ name: 'always_down', arguments: { n: 1 } });
    assert.equal(down.isError, true);
    assert.match(text(down), /HTTP 503 .*Gave up after/);
    assert.equal(down._meta[META.reason], 'exhausted');
    assert.equal(down._meta[META.retryable], true);

    // The backend: the good order twice (503, then created), the bad one once.
    assert.deepEqual(
      backend.requests.filter((r) => r.path === '/orders').map((r) => JSON.parse(r.body).quantity),
      [2, 2, 0],
    );
    assert.equal(ran.create_order, 2); // createFetch retried the 503 inside one run of the handler
  } finally {
    await client.close();
  }
});

test('server: a key in _meta is honoured: a repeat replays, the tool runs once; another payload under the key is refused', async () => {
  const replays = new ToolReplays();
  const { server, ran } = ordersServer({ replays });
  const client = await connected(server);
  const before = backend.hits('/orders');
  try {
    const params = { name: 'create_order', arguments: { sku: 'jam', quantity: 3 }, _meta: { [META.idempotencyKey]: 'agent-1:call_9:abc' } };
    const first = await client.callTool(params);
    const again = await client.callTool(params);
    assert.equal(ran.create_order, 1);
    assert.deepEqual(JSON.parse(text(again)), JSON.parse(text(first)));
    assert.equal(first._meta?.[META.replayed], undefined);
    assert.equal(again._meta[META.replayed], true);

    // Two at once: the second waits for the first and replays it.
    const both = { ...params, _meta: { [META.idempotencyKey]: 'agent-1:call_10:abc' } };
    const [a, b] = await Promise.all([client.callTool(both), client.callTool(both)]);
    assert.equal(ran.create_order, 2);
    assert.equal(text(a), text(b));

    const reused = await client.callTool({ ...params, arguments: { sku: 'jam', quantity: 4 } });
    assert.equal(reused.isError, true);
    assert.equal(reused._meta[META.refusal], 'idempotency_key_reused');
    assert.equal(ran.create_order, 2);

    // A deterministic answer is replayed too; one the run would retry later frees the key.
    const badParams = { name: 'create_order', arguments: { sku: 'jam', quantity: 0 }, _meta: { [META.idempotencyKey]: 'agent-1:call_11:abc' } };
    const bad1 = await client.callTool(badParams);
    const bad2 = await client.callTool(badParams);
    assert.equal(text(bad1), text(bad2));
    assert.equal(bad2._meta[META.replayed], true);
    assert.equal(ran.create_order, 3);
    const downParams = { name: 'always_down', arguments: { n: 2 }, _meta: { [META.idempotencyKey]: 'agent-1:call_12:abc' } };
    await client.callTool(downParams);
    const down2 = await client.callTool(downParams);
    assert.equal(down2._meta[META.replayed], undefined);
    assert.equal(ran.always_down, 2);

    assert.equal(backend.hits('/orders') - before, 3); // each key's order once, its repeats never
  } finally {
    await client.close();
  }
});

test("client: callTool sends the run's key in _meta and answers with the run's ToolResult", async () => {
  const { server, metas } = ordersServer({ replays: null });
  const client = await connected(server);
  try {
    const run = new Run('agent-2', { policyOptions: FAST, sleep });
    const args = { sku: 'tea', quantity: 1 };
    const result = await callTool(client, run, 'call_1', { name: 'create_order', arguments: args });
    assert.equal(result.ok, true);
    assert.equal(result.key, idempotencyKey('agent-2', 'call_1', args));
    assert.equal(metas.at(-1)[META.idempotencyKey], result.key);
    assert.equal(result.value.isError, undefined);
    // The tool's own error result is its answer: a value, not retried by the client.
    const bad = await callTool(client, run, 'call_2', { name: 'create_order', arguments: { sku: 'tea', quantity: -1 } });
    assert.equal(bad.ok, true);
    assert.equal(bad.value.isError, true);
    assert.equal(bad.attempts, 1);
  } finally {
    await client.close();
  }
});

test('client: a request timeout is retried only for a tool declared safe to repeat', async () => {
  const { server, ran } = ordersServer();
  const client = await connected(server);
  try {
    const run = new Run('agent-3', { policyOptions: FAST, sleep });
    const write = await callTool(client, run, 'call_1', { name: 'slow_write' }, { timeoutMs: 100 });
    assert.deepEqual([write.ok, write.reason, write.attempts], [false, 'ambiguous', 1]);
    assert.match(write.observation, /may already have been applied/);
    assert.match(write.observation, /Request timed out/);
    assert.equal(ran.slow_write, 1);

    const read = await callTool(client, run, 'call_2', { name: 'read_status' }, { timeoutMs: 100 });
    assert.equal(read.ok, true);
    assert.equal(read.attempts, 2);
    assert.equal(text(read.value), 'read_status 2');
    assert.equal(ran.read_status, 2);
  } finally {
    await client.close();
  }
});

test('client: a protocol error (McpError) ends the call with an observation, not a throw, and is not retried', async () => {
  const server = new Server({ name: 'strict', version: '1.0.0' }, { capabilities: { tools: {} } });
  let calls = 0;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'get_order', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => {
    calls += 1;
    throw new McpError(ErrorCode.InvalidParams, 'no order 42');
  });
  const client = await connected(server);
  try {
    const run = new Run('agent-4', { policyOptions: FAST, sleep });
    const result = await callTool(client, run, 'call_1', { name: 'get_order', arguments: { id: 42 } });
    assert.deepEqual([result.ok, result.reason, result.attempts], [false, 'deterministic', 1]);
    assert.match(result.observation, /^the response was rejected by validation: MCP error -32602: no order 42\. This is not transient/);
    assert.doesNotMatch(result.observation, /-32602: MCP error/);
    assert.equal(calls, 1);
    await assert.rejects(callTool(client, run, 'c', { name: 'x' }, { retries: 2 }), /unknown option "retries"/);
  } finally {
    await client.close();
  }
});

/**
 * The orders MCP server over Streamable HTTP on 127.0.0.1 (stateless: a
 * server and transport per request, one ToolReplays for all). The first
 * `tools/call` whose name is in `drop` has its connection torn down once the
 * tool has run, before the answer is written.
 */
async function startHttpMcp({ drop }) {
  const replays = new ToolReplays();
  const ran = { create_order: 0 };
  const calls = [];
  const fetch = createFetch({ policy: new Policy(FAST), sleep });
  const dropped = new Set();
  const httpServer = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const message = body === '' ? undefined : JSON.parse(body);
    if (message?.method === 'tools/call') {
      calls.push(message.params);
      if (drop.has(message.params.name) && !dropped.has(message.params.name)) {
        dropped.add(message.params.name);
        res.writeHead = () => {
          req.socket.destroy();
          return res;
        };
        res.write = () => true;
        res.end = () => res;
      }
    }
    const server = new McpServer({ name: 'orders-http', version: '1.0.0' });
    server.registerTool(
      'create_order',
      { inputSchema: { sku: z.string(), quantity: z.number() } },
      toolHandler(
        'create_order',
        async (args) => {
          ran.create_order += 1;
          const response = await fetch(backend.url('/http-orders'), { method: 'POST', body: JSON.stringify(args) });
          if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status });
          return { content: [{ type: 'text', text: JSON.stringify(await response.json()) }] };
        },
        { run: serverRun, replays },
      ),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${httpServer.address().port}/mcp`);
  return {
    url,
    ran,
    calls,
    close: () =>
      new Promise((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(resolve);
      }),
  };
}

async function httpClient(url) {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

test('Streamable HTTP: a connection dropped after the tool ran; with a key the server honours the retry replays and the tool ran once', async () => {
  const mcp = await startHttpMcp({ drop: new Set(['create_order']) });
  const client = await httpClient(mcp.url);
  const before = backend.hits('/http-orders');
  try {
    const run = new Run('agent-5', { policyOptions: FAST, sleep });
    const args = { sku: 'tea', quantity: 2 };
    const result = await callTool(client, run, 'call_1', { name: 'create_order', arguments: args }, { serverDeduplicates: true });
    assert.equal(result.ok, true, result.observation);
    assert.equal(result.attempts, 2);
    assert.equal(result.value._meta[META.replayed], true);
    assert.deepEqual(JSON.parse(text(result.value)), { id: 1, ...args });
    // Two requests with one key; the handler ran once; the backend made one order (after its 503).
    assert.deepEqual(
      mcp.calls.map((p) => p._meta[META.idempotencyKey]),
      [result.key, result.key],
    );
    assert.equal(mcp.ran.create_order, 1);
    assert.equal(backend.hits('/http-orders') - before, 2);
  } finally {
    await client.close();
    await mcp.close();
  }
});

test('Streamable HTTP: without a key the server is known to honour, the dropped write is not repeated: ambiguous, with what to do', async () => {
  const mcp = await startHttpMcp({ drop: new Set(['create_order']) });
  const client = await httpClient(mcp.url);
  try {
    const run = new Run('agent-6', { policyOptions: FAST, sleep });
    const result = await callTool(client, run, 'call_1', { name: 'create_order', arguments: { sku: 'tea', quantity: 5 } });
    assert.deepEqual([result.ok, result.reason, result.attempts], [false, 'ambiguous', 1]);
    assert.match(result.observation, /Check whether it took effect/);
    assert.equal(mcp.calls.length, 1);
    assert.equal(mcp.ran.create_order, 1);
  } finally {
    await client.close();
    await mcp.close();
  }
});
