// The official model SDKs, the real packages (openai 7.x, @anthropic-ai/sdk
// 1.x), against a local model API that does not cooperate.
//
// Under createFetch (the recipe): the SDK's own retries off and stoic's fetch
// under it, handing the SDK the final response so its typed errors stay:
//
//   new OpenAI({ baseURL, apiKey, maxRetries: 0, fetch: createFetch({ returnFailedResponses: true }) })
//
// Around the SDK with retry(): the SDK's `APIError` carries the answer's
// status and headers, and retry() reads it as that answer (a 429's
// `retry-after-ms` is the wait, `x-should-retry: false` a refusal).
//
// What is asserted is what the **server** counted, against stoic's attempts.
// Neither SDK sends an idempotency key on these calls (`x-stainless-retry-count`
// is what they add per attempt): createFetch's automatic `Idempotency-Key`
// is the one key of a call. No waiting is timed: stoic's waits go to a
// recording `sleep`; the SDKs' own, in the set-ups that keep them, follow
// the storm's `retry-after-ms: 20` (and once, after a refused call, their
// default backoff of about a second).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { createFetch, Policy, RetryError, retry } from '../dist/node.js';

/** The connection torn down once the request was read (the model may be running it). */
const DROP = 'drop';

/** The error `type` each status gets in the APIs' error bodies. */
const ERROR_TYPES = { 404: 'not_found_error', 429: 'rate_limit_error', 529: 'overloaded_error' };

/**
 * A model API on 127.0.0.1: `/t/<token>/v1/chat/completions` (OpenAI's
 * shape) and `/t/<token>/v1/messages` (Anthropic's), each request taking
 * the next reply of its token's script (`{ status, headers }` with the API's
 * error body, or DROP; an endless iterable for a storm), and a success in
 * the API's shape once the script runs out. Every request's headers are kept
 * per token.
 */
async function startModelApi() {
  const scripts = new Map();
  const seen = new Map();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const [, prefix, token] = url.pathname.split('/');
    req.resume(); // read the whole request before answering (or dropping)
    req.on('end', () => {
      if (prefix !== 't' || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
        return;
      }
      if (!seen.has(token)) seen.set(token, []);
      seen.get(token).push(req.headers);
      const anthropic = url.pathname.endsWith('/v1/messages');
      const next = scripts.get(token)?.next();
      const reply = next === undefined || next.done ? undefined : next.value;
      if (reply === DROP) {
        req.socket.destroy();
        return;
      }
      if (reply === undefined) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(success(anthropic)));
        return;
      }
      const error = { type: ERROR_TYPES[reply.status] ?? 'api_error', message: `scripted ${reply.status}` };
      const body = anthropic ? { type: 'error', error } : { error };
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(body));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  let tokens = 0;
  return {
    /** Scripts a fresh token's replies; the API's root URL. */
    script(replies) {
      const token = `t${++tokens}`;
      scripts.set(token, replies[Symbol.iterator]());
      return { root: `http://127.0.0.1:${port}/t/${token}`, token };
    },
    /** The headers of each request the token's API received. */
    requests: (token) => seen.get(token) ?? [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

function success(anthropic) {
  if (anthropic) {
    return {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  }
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  };
}

/** Endless 503s, each with a short hinted wait (what the SDKs' own retries wait, when on). */
function* storm(status = 503) {
  for (;;) yield { status, headers: { 'retry-after-ms': '20' } };
}

const MESSAGES = [{ role: 'user', content: 'hi' }];

/** One SDK: how to make its client on an API root and make one logical call. */
const SDKS = [
  {
    name: 'openai',
    module: OpenAI,
    client: (root, options) => new OpenAI({ baseURL: `${root}/v1`, apiKey: 'test', ...options }),
    ask: (client, options) => client.chat.completions.create({ model: 'gpt-test', messages: MESSAGES }, options),
    /** The typed error of a 503. */
    unavailable: OpenAI.InternalServerError,
  },
  {
    name: 'anthropic',
    module: Anthropic,
    client: (root, options) => new Anthropic({ baseURL: root, apiKey: 'test', ...options }),
    ask: (client, options) => client.messages.create({ model: 'claude-test', max_tokens: 16, messages: MESSAGES }, options),
    unavailable: Anthropic.ServiceUnavailableError,
  },
];

let api;
before(async () => {
  api = await startModelApi();
});
after(() => api.close());

/** A recording `sleep`: stoic's waits are decided, recorded and skipped. */
function recorder() {
  const sleeps = [];
  return { sleeps, sleep: async (ms) => void sleeps.push(ms) };
}

/**
 * The recipe: the SDK's retries off, stoic's fetch under it returning the
 * last response it gave up on (so the SDK raises its typed error). Small
 * backoff; the waits are recorded, not slept.
 */
function recipe(sdk, root, { policy, sdkOptions = {}, ...fetchOptions } = {}) {
  const record = recorder();
  const decisions = { retries: [], giveUps: [] };
  const fetch = createFetch({
    policy: policy ?? new Policy({ seed: 7, backoff: { strategy: 'exponential', baseMs: 5, capMs: 20 } }),
    returnFailedResponses: true,
    sleep: record.sleep,
    onRetry: ({ decision }) => void decisions.retries.push(decision),
    onGiveUp: ({ decision }) => void decisions.giveUps.push(decision),
    ...fetchOptions,
  });
  const client = sdk.client(root, { maxRetries: 0, fetch, ...sdkOptions });
  return { client, sleeps: record.sleeps, decisions };
}

const retryCounts = (requests) => requests.map((h) => h['x-stainless-retry-count']);
const keys = (requests) => requests.map((h) => h['idempotency-key']);

for (const sdk of SDKS) {
  test(`${sdk.name}: a 503 storm ends with the SDK's typed error after stoic's attempts, one request each`, async () => {
    const { root, token } = api.script(storm());
    const { client, decisions } = recipe(sdk, root);
    const error = await sdk.ask(client).catch((e) => e);
    assert.ok(error instanceof sdk.unavailable, String(error));
    assert.equal(error.status, 503);
    const [decision] = decisions.giveUps;
    assert.equal(decision.reason, 'attempts_exhausted');
    const requests = api.requests(token);
    assert.equal(requests.length, decision.attempts);
    assert.equal(requests.length, 5);
    // The SDK made one attempt: stoic made the retries.
    assert.deepEqual(retryCounts(requests), ['0', '0', '0', '0', '0']);
  });

  test(`${sdk.name}: one call keeps one idempotency key across stoic's retries`, async () => {
    const { root, token } = api.script([{ status: 503 }, { status: 503 }]);
    const { client, sleeps } = recipe(sdk, root);
    await sdk.ask(client);
    const requests = api.requests(token);
    assert.equal(requests.length, 3);
    assert.equal(sleeps.length, 2);
    const sent = new Set(keys(requests));
    assert.equal(sent.size, 1);
    // createFetch's automatic key (a UUID): the SDK sends none of its own.
    assert.match([...sent][0], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(retryCounts(requests), ['0', '0', '0']);
  });

  for (const [header, value, wait, source] of [
    ['retry-after-ms', '20', 20, 'retry_after_ms'],
    ['retry-after', '2', 2000, 'retry_after'],
  ]) {
    test(`${sdk.name}: a 429 with ${header} is retried after the server's wait`, async () => {
      const { root, token } = api.script([{ status: 429, headers: { [header]: value } }]);
      const { client, sleeps, decisions } = recipe(sdk, root);
      const answer = await sdk.ask(client);
      assert.ok(answer.id);
      assert.deepEqual(sleeps, [wait]);
      assert.equal(decisions.retries[0].delayMs, wait);
      assert.equal(decisions.retries[0].matched, 'status_429');
      assert.equal(decisions.retries[0].source, source);
      assert.equal(api.requests(token).length, 2);
    });
  }

  test(`${sdk.name}: a 404 is sent once and surfaces as the SDK's NotFoundError`, async () => {
    const { root, token } = api.script([{ status: 404 }]);
    const { client, decisions } = recipe(sdk, root);
    const error = await sdk.ask(client).catch((e) => e);
    assert.ok(error instanceof sdk.module.NotFoundError, String(error));
    assert.equal(error.status, 404);
    assert.equal(decisions.giveUps[0].reason, 'not_retryable');
    assert.equal(api.requests(token).length, 1);
  });

  test(`${sdk.name}: x-should-retry: false on a 503 is one request`, async () => {
    // What both SDKs obey (their shouldRetry); the core reads it as the
    // server refusing a retry.
    const { root, token } = api.script([{ status: 503, headers: { 'x-should-retry': 'false' } }]);
    const { client, decisions } = recipe(sdk, root);
    const error = await sdk.ask(client).catch((e) => e);
    assert.ok(error instanceof sdk.unavailable, String(error));
    assert.equal(decisions.giveUps.length, 1);
    assert.equal(decisions.giveUps[0].reason, 'server_refused_retry');
    assert.equal(api.requests(token).length, 1);
  });

  test(`${sdk.name}: a 529 (overloaded) is retried`, async () => {
    const { root, token } = api.script([{ status: 529 }]);
    const { client, decisions } = recipe(sdk, root);
    await sdk.ask(client);
    assert.equal(decisions.retries[0].matched, 'status_529');
    assert.equal(api.requests(token).length, 2);
  });

  if (sdk.name === 'anthropic') {
    test("anthropic: 529s to the end are stoic's attempts, then the SDK's OverloadedError", async () => {
      const { root, token } = api.script(storm(529));
      const { client, decisions } = recipe(sdk, root);
      const error = await sdk.ask(client).catch((e) => e);
      assert.ok(error instanceof Anthropic.OverloadedError, String(error));
      assert.equal(error.status, 529);
      assert.equal(error.type, 'overloaded_error');
      assert.equal(decisions.giveUps[0].reason, 'attempts_exhausted');
      assert.equal(api.requests(token).length, decisions.giveUps[0].attempts);
      assert.equal(api.requests(token).length, 5);
    });
  }

  test(`${sdk.name}: a dropped connection is not repeated without a key the server honours`, async () => {
    // The request was read: the model may be running it. The automatic key
    // alone does not make the POST safe to send again; the SDK gets no
    // response, so it raises its connection error, stoic's decision inside.
    const { root, token } = api.script([DROP]);
    const { client } = recipe(sdk, root);
    const error = await sdk.ask(client).catch((e) => e);
    assert.ok(error instanceof sdk.module.APIConnectionError, String(error));
    assert.ok(error.cause instanceof RetryError, String(error.cause));
    assert.equal(error.cause.code, 'not_idempotent');
    assert.equal(api.requests(token).length, 1);
  });

  test(`${sdk.name}: a caller's key is kept and lets stoic repeat after a drop`, async () => {
    const { root, token } = api.script([DROP]);
    const { client } = recipe(sdk, root);
    await sdk.ask(client, { headers: { 'Idempotency-Key': 'chat-7' } });
    assert.deepEqual(keys(api.requests(token)), ['chat-7', 'chat-7']);
  });

  test(`${sdk.name}: without returnFailedResponses the SDK sees a failed fetch, not its typed error`, async () => {
    // Why the recipe passes it: stoic's RetryError reaches the SDK as a
    // failed fetch, which it reports as a connection error (and, with its
    // own retries on, retries: a 404 would be sent three times).
    const { root, token } = api.script([{ status: 404 }]);
    const { client } = recipe(sdk, root, { returnFailedResponses: false });
    const error = await sdk.ask(client).catch((e) => e);
    assert.ok(error instanceof sdk.module.APIConnectionError, String(error));
    assert.equal(error.status, undefined);
    assert.ok(error.cause instanceof RetryError);
    assert.equal(error.cause.code, 'not_retryable');
    assert.equal(error.cause.response.status, 404);
    assert.equal(api.requests(token).length, 1);
  });

  test(`${sdk.name}: retries multiply unless the SDK's are off (one call under a 503 storm)`, async () => {
    /** One call that fails: what the caller got. */
    async function callOnce(client) {
      const error = await sdk.ask(client).catch((e) => e);
      assert.ok(error instanceof Error);
      return error;
    }
    const noBreaker = () => new Policy({ seed: 7, breaker: null, backoff: { strategy: 'exponential', baseMs: 5, capMs: 20 } });

    // The SDK alone (its fetch, its defaults): 1 + maxRetries 2.
    let run = api.script(storm());
    let error = await callOnce(sdk.client(run.root));
    assert.ok(error instanceof sdk.unavailable);
    const alone = api.requests(run.token);
    assert.equal(alone.length, 3);
    assert.deepEqual(retryCounts(alone), ['0', '1', '2']);

    // The SDK's defaults over createFetch: each SDK attempt is a stoic call
    // of 5 attempts with a key of its own (breaker off to show the product).
    run = api.script(storm());
    error = await callOnce(recipe(sdk, run.root, { policy: noBreaker(), sdkOptions: { maxRetries: 2 } }).client);
    assert.ok(error instanceof sdk.unavailable);
    const multiplied = api.requests(run.token);
    assert.equal(multiplied.length, 15);
    assert.equal(new Set(keys(multiplied)).size, 3);
    assert.deepEqual(retryCounts(multiplied), [...'000001111122222']);

    // With the default breaker, the first stoic call's 5 failures open it:
    // the SDK's retries are refused without being sent (circuit_open, no
    // response), and the caller gets the SDK's connection error around
    // stoic's RetryError instead of its typed 503.
    run = api.script(storm());
    error = await callOnce(recipe(sdk, run.root, { policy: new Policy({ seed: 7 }), sdkOptions: { maxRetries: 2 } }).client);
    assert.equal(api.requests(run.token).length, 5);
    assert.ok(error instanceof sdk.module.APIConnectionError, String(error));
    assert.ok(error.cause instanceof RetryError);
    assert.equal(error.cause.code, 'circuit_open');

    // The recipe: stoic's attempts, and the SDK's typed error.
    run = api.script(storm());
    error = await callOnce(recipe(sdk, run.root).client);
    assert.ok(error instanceof sdk.unavailable);
    assert.equal(api.requests(run.token).length, 5);
  });

  // ---------------------------------------------------------------- retry() around an SDK call

  /** The SDK with its own fetch and no retries of its own, inside retry(). */
  function around(root, options = {}) {
    const record = recorder();
    const decisions = { retries: [], giveUps: [] };
    const client = sdk.client(root, { maxRetries: 0 });
    const call = () =>
      retry(() => sdk.ask(client), {
        policy: new Policy({ seed: 7, breaker: null }),
        sleep: record.sleep,
        onRetry: ({ decision, error }) => void decisions.retries.push({ decision, error }),
        onGiveUp: ({ decision }) => void decisions.giveUps.push(decision),
        ...options,
      });
    return { call, sleeps: record.sleeps, decisions };
  }

  test(`${sdk.name}: retry() reads the SDK's 429 as the answer it was: retry-after-ms is the wait`, async () => {
    const { root, token } = api.script([{ status: 429, headers: { 'retry-after-ms': '30' } }]);
    const { call, sleeps, decisions } = around(root);
    const answer = await call();
    assert.ok(answer.id);
    const [{ decision, error }] = decisions.retries;
    assert.ok(error instanceof sdk.module.RateLimitError);
    assert.equal(decision.matched, 'status_429');
    assert.equal(decision.source, 'retry_after_ms');
    assert.equal(decision.delayMs, 30);
    assert.deepEqual(sleeps, [30]);
    assert.equal(api.requests(token).length, 2);
  });

  test(`${sdk.name}: retry() waits the SDK error's Retry-After`, async () => {
    const { root, token } = api.script([{ status: 429, headers: { 'retry-after': '3' } }]);
    const { call, decisions } = around(root);
    await call();
    assert.equal(decisions.retries[0].decision.delayMs, 3000);
    assert.equal(api.requests(token).length, 2);
  });

  test(`${sdk.name}: retry() does not retry the SDK's 404`, async () => {
    const { root, token } = api.script([{ status: 404 }]);
    const { call, decisions } = around(root);
    const error = await call().catch((e) => e);
    assert.ok(error instanceof RetryError, String(error));
    assert.equal(error.code, 'not_retryable');
    assert.ok(error.cause instanceof sdk.module.NotFoundError);
    assert.equal(decisions.retries.length, 0);
    assert.equal(api.requests(token).length, 1);
  });

  test(`${sdk.name}: retry() obeys x-should-retry: false on the SDK's 503`, async () => {
    const { root, token } = api.script(storm());
    const refused = api.script([{ status: 503, headers: { 'x-should-retry': 'false' } }]);
    // A plain 503 is retried to the end; the refused one is one request.
    const error = await around(root, { maxAttempts: 3 }).call().catch((e) => e);
    assert.equal(error.code, 'attempts_exhausted');
    assert.equal(api.requests(token).length, 3);
    const stopped = await around(refused.root, { maxAttempts: 3 }).call().catch((e) => e);
    assert.ok(stopped instanceof RetryError, String(stopped));
    assert.equal(stopped.code, 'server_refused_retry');
    assert.ok(stopped.cause instanceof sdk.unavailable);
    assert.equal(api.requests(refused.token).length, 1);
  });

  test(`${sdk.name}: retry() reads the SDK's connection error by what it wraps`, async () => {
    // The connection dropped once the request was read: the SDK's
    // APIConnectionError wraps fetch's error, whose cause says so.
    const { root, token } = api.script([DROP]);
    const { call, decisions } = around(root);
    await call();
    const [{ decision, error }] = decisions.retries;
    assert.ok(error instanceof sdk.module.APIConnectionError, String(error));
    assert.equal(decision.matched, 'network_reset_after_send');
    assert.equal(api.requests(token).length, 2);
  });

  test(`${sdk.name}: retry() keeps its classify option first`, async () => {
    const { root, token } = api.script([{ status: 429, headers: { 'retry-after-ms': '30' } }]);
    const { call, decisions } = around(root, {
      classify: (e) => (e instanceof sdk.module.RateLimitError ? { class: 'deterministic' } : undefined),
    });
    const error = await call().catch((e) => e);
    assert.ok(error instanceof RetryError);
    assert.equal(error.code, 'not_retryable');
    assert.equal(decisions.retries.length, 0);
    assert.equal(api.requests(token).length, 1);
  });
}

test("retry() reads any error's own status and headers: Headers, a plain object or a Map", async () => {
  const shapes = [
    new Headers({ 'retry-after-ms': '40' }),
    { 'Retry-After-Ms': '40' },
    new Map([['retry-after-ms', '40']]),
    new Map([['Retry-After-Ms', ['40']]]),
  ];
  for (const headers of shapes) {
    const record = recorder();
    let n = 0;
    const value = await retry(
      () => {
        if (++n === 1) throw Object.assign(new Error('rate limited'), { status: 429, headers });
        return 'done';
      },
      { policy: new Policy({ seed: 7, breaker: null }), sleep: record.sleep },
    );
    assert.equal(value, 'done');
    assert.deepEqual(record.sleeps, [40], String(headers));
  }
  // A response's status goes with the response's headers, not the error's.
  const record = recorder();
  let n = 0;
  await retry(
    () => {
      if (++n === 1) {
        throw Object.assign(new Error('ky'), {
          headers: { 'retry-after': '9' },
          response: { status: 503, headers: new Headers({ 'retry-after': '2' }) },
        });
      }
    },
    { policy: new Policy({ seed: 7, breaker: null }), sleep: record.sleep },
  );
  assert.deepEqual(record.sleeps, [2000]);
});
