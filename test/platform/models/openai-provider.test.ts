import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChatBody,
  type FakeOpenAI,
  type FakeOpenAIOptions,
  startFakeOpenAI,
} from '../../../fakes/openai-server.js';
import { isProviderError, revisionTurns } from '../../../src/platform/models/model-provider.js';
import {
  createOpenAIProvider,
  type OpenAIProviderOptions,
} from '../../../src/platform/models/providers/openai.js';
import { newTraceId, parseTraceparent } from '../../../src/platform/util/trace.js';
import { providerFailure } from '../../helpers/providers.js';

let server: FakeOpenAI;

async function start(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  await server.close();
  server = await startFakeOpenAI(options);
  return server;
}

function provider(overrides: Partial<OpenAIProviderOptions> = {}) {
  return createOpenAIProvider({
    baseUrl: server.baseUrl,
    apiKey: 'sk-test',
    model: 'gpt-test',
    ...overrides,
  });
}

beforeEach(async () => {
  server = await startFakeOpenAI({ apiKey: 'sk-test' });
});

afterEach(async () => {
  await server.close();
});

describe('openai provider: requests', () => {
  it('sends system and user messages, model, temperature and the Bearer key, and reads the answer', async () => {
    const result = await provider({ temperature: 0.2 }).complete({
      system: 'Be brief.',
      prompt: 'Hello <b>&"',
    });
    expect(result).toEqual({
      text: 'echo: Hello <b>&"',
      model: 'gpt-test-2024-01-01',
      usage: { promptTokens: 11, completionTokens: 7, totalTokens: 18 },
    });
    expect(result.json).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.traceparent).toBeUndefined();
    expect(request?.body).toEqual({
      model: 'gpt-test',
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello <b>&"' },
      ],
    });
  });

  it('lets the request override model and temperature, and omits an empty system message', async () => {
    await provider({ temperature: 0.2 }).complete({ prompt: 'Hi', model: 'other', temperature: 0 });
    expect(server.requests[0]?.body).toEqual({
      model: 'other',
      temperature: 0,
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('carries a round of review as turns: the earlier draft as the assistant, the reason as the user', async () => {
    const turns = revisionTurns([
      { draft: { text: 'Dear Ann, …' }, reason: 'Mention the refund.' },
      { draft: { subject: 'Refund', body: 'Yes' }, reason: 'Warmer.' },
    ]);
    await provider().complete({ system: 'Be brief.', prompt: 'Reply to Ann', turns });
    expect((server.requests[0]?.body as ChatBody | undefined)?.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Reply to Ann' },
      // A plain answer: no `tool_calls` (servers refuse an empty list); a structured draft as JSON.
      { role: 'assistant', content: 'Dear Ann, …' },
      { role: 'user', content: 'Mention the refund.' },
      { role: 'assistant', content: '{"subject":"Refund","body":"Yes"}' },
      { role: 'user', content: 'Warmer.' },
    ]);
  });

  it('sends a traceparent with the run trace id and a fresh span id per call', async () => {
    const traceId = newTraceId();
    const p = provider();
    await p.complete({ prompt: 'a', traceId });
    await p.complete({ prompt: 'b', traceId });
    const parsed = server.requests.map((r) => parseTraceparent(r.headers.traceparent as string));
    expect(parsed[0]?.traceId).toBe(traceId);
    expect(parsed[1]?.traceId).toBe(traceId);
    expect(parsed[0]?.sampled).toBe(true);
    expect(parsed[0]?.spanId).not.toBe(parsed[1]?.spanId);
  });

  it('sends no Authorization header without an api key (local servers)', async () => {
    await start({});
    await provider({ apiKey: '' }).complete({ prompt: 'x' });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('accepts a base URL with a trailing slash', async () => {
    await provider({ baseUrl: `${server.baseUrl}/` }).complete({ prompt: 'x' });
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
  });
});

describe('openai provider: JSON mode', () => {
  const schema = { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] };

  it('asks for json_schema and parses the content', async () => {
    const result = await provider().complete({ prompt: 'P', json: { schema, name: 'draft reply!' } });
    expect(result.json).toEqual({ echo: 'P' });
    expect(result.text).toBe('{"echo":"P"}');
    expect((server.requests[0]!.body as ChatBody).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'draft_reply_', schema, strict: false },
    });
  });

  it('falls back to json_object when the server rejects json_schema, and remembers it', async () => {
    await start({ rejectJsonSchema: true });
    const p = provider();
    const first = await p.complete({ system: 'S', prompt: 'P', json: { schema } });
    expect(first.json).toEqual({ echo: 'P' });
    expect(server.requests.map((r) => (r.body as ChatBody).response_format?.type)).toEqual([
      'json_schema',
      'json_object',
    ]);
    const fallback = server.requests[1]!.body as ChatBody;
    expect(fallback.messages[0]?.role).toBe('system');
    expect(fallback.messages[0]?.content).toContain('S\n\n');
    expect(fallback.messages[0]?.content).toContain(JSON.stringify(schema));

    await p.complete({ prompt: 'Q', json: { schema } });
    expect(server.requests).toHaveLength(3);
    expect((server.requests[2]!.body as ChatBody).response_format?.type).toBe('json_object');
  });

  it('does not remember the fallback when the json_object request fails too', async () => {
    const p = provider();
    server.enqueue({ status: 400, body: { error: { message: 'bad request' } } }, { status: 400, body: {} });
    const error = await providerFailure(p.complete({ prompt: 'P', json: { schema } }));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.details.status).toBe(400);
    await p.complete({ prompt: 'P', json: { schema } });
    expect((server.requests[2]!.body as ChatBody).response_format?.type).toBe('json_schema');
  });

  it('accepts JSON wrapped in a Markdown code fence', async () => {
    await start({ chatContent: () => 'Here:\n```json\n{"a": [1, 2]}\n```' });
    const result = await provider().complete({ prompt: 'P', json: { schema } });
    expect(result.json).toEqual({ a: [1, 2] });
  });

  it('fails with OUTPUT_INVALID when the answer is not JSON', async () => {
    await start({ chatContent: () => 'Sorry, I cannot do JSON today.' });
    const error = await providerFailure(provider().complete({ prompt: 'P', json: { schema } }));
    expect(error.code).toBe('OUTPUT_INVALID');
    expect(error.details.body).toBe('Sorry, I cannot do JSON today.');
  });

  it('does not parse the answer when JSON was not requested', async () => {
    await start({ chatContent: () => '{"a":1}' });
    const result = await provider().complete({ prompt: 'P' });
    expect(result.json).toBeUndefined();
    expect(result.text).toBe('{"a":1}');
  });
});

describe('openai provider: retries and failures', () => {
  it('honours Retry-After on 429, then succeeds', async () => {
    server.enqueue({
      status: 429,
      headers: { 'retry-after': '1' },
      body: { error: { message: 'slow down' } },
    });
    const result = await provider().complete({ prompt: 'x' });
    expect(result.text).toBe('echo: x');
    expect(server.requests).toHaveLength(2);
    expect(server.gaps()[0]).toBeGreaterThanOrEqual(990);
  });

  it('really waits the Retry-After-Ms the server asks for', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after-ms': '150' }, body: {} });
    const started = performance.now();
    await createOpenAIProvider({ baseUrl: server.baseUrl, apiKey: 'sk-test', model: 'm' }).complete({
      prompt: 'x',
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(server.requests).toHaveLength(2);
  });

  it('retries 5xx with exponential backoff and gives up with PROVIDER_ERROR', async () => {
    const failing = { status: 500, body: { error: { message: 'The server had an error' } } };
    server.enqueue(failing, failing, failing);
    const error = await providerFailure(provider({ maxRetries: 2 }).complete({ prompt: 'x' }));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('The server had an error');
    expect(error.details).toMatchObject({ provider: 'openai', status: 500, attempts: 3 });
    expect(server.requests).toHaveLength(3);
    // The SDK's backoff: 0.5 s · 2^n, less up to 25 % jitter.
    const [first, second] = server.gaps();
    expect(first).toBeGreaterThanOrEqual(370);
    expect(second).toBeGreaterThanOrEqual(740);
  });

  it('recovers when a 5xx is followed by success', async () => {
    server.enqueue({ status: 503, body: 'upstream overloaded' });
    const result = await provider().complete({ prompt: 'x' });
    expect(result.text).toBe('echo: x');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 400', async () => {
    server.enqueue({
      status: 400,
      body: { error: { message: 'context too long', type: 'invalid_request_error' } },
    });
    const error = await providerFailure(provider().complete({ prompt: 'x' }));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.details.status).toBe(400);
    expect(error.message).toContain('context too long');
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 408 or 409, which the SDK alone would', async () => {
    server.enqueue({ status: 408, body: { error: { message: 'request timeout' } } });
    const error = await providerFailure(provider().complete({ prompt: 'x' }));
    expect(error.details.status).toBe(408);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a wrong api key (401 from the server)', async () => {
    const error = await providerFailure(provider({ apiKey: 'sk-wrong' }).complete({ prompt: 'x' }));
    expect(error.details.status).toBe(401);
    expect(error.message).toContain('Incorrect API key');
    expect(server.requests).toHaveLength(1);
  });

  it('gives up at once when Retry-After exceeds the longest wait it honours', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '3600' }, body: {} });
    const error = await providerFailure(provider().complete({ prompt: 'x' }));
    expect(error.details.status).toBe(429);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a hanging attempt with PROVIDER_TIMEOUT and does not retry it', async () => {
    server.enqueue({ hang: true });
    const error = await providerFailure(provider({ timeoutMs: 100 }).complete({ prompt: 'x' }));
    expect(error.code).toBe('PROVIDER_TIMEOUT');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a dropped connection', async () => {
    server.enqueue({ drop: true });
    const result = await provider().complete({ prompt: 'x' });
    expect(result.text).toBe('echo: x');
    expect(server.requests).toHaveLength(2);
  });

  it('fails with PROVIDER_ERROR when the server is unreachable on every attempt', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await providerFailure(
      provider({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 2 }).complete({ prompt: 'x' }),
    );
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('unreachable');
    expect(error.details.attempts).toBe(3);
  });

  it('fails with PROVIDER_ERROR on a 200 that is not a chat completion', async () => {
    server.enqueue({ status: 200, body: { hello: 'world' } });
    const error = await providerFailure(provider().complete({ prompt: 'x' }));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('unexpected body');
  });

  it('reports a refusal as PROVIDER_ERROR', async () => {
    server.enqueue({
      status: 200,
      body: {
        model: 'm',
        choices: [{ message: { content: null, refusal: 'I cannot help' }, finish_reason: 'stop' }],
      },
    });
    const error = await providerFailure(provider().complete({ prompt: 'x' }));
    expect(error.message).toContain('I cannot help');
  });

  it("rejects with the caller's abort reason, not a ProviderError, when the run is cancelled", async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    const pending = provider().complete({ prompt: 'x', signal: controller.signal });
    // Abort once the request has reached the server, so the in-flight fetch is what gets cancelled.
    await server.waitForRequests(1);
    controller.abort(reason);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(isProviderError(error)).toBe(false);
  });
});
