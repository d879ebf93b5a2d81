/**
 * The typed client end to end against a live r3: typed calls (their answers checked against the
 * OpenAPI document like every test's), a run's events through `runEvents` resumed after a
 * disconnect with Last-Event-ID, and a webhook delivery verified with the client's `verifySignature`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createR3Client,
  type R3Client,
  type RunEvent,
  runEvents,
  verifySignature,
} from '../../client/index.js';
import { type Receiver, startReceiver } from '../../fakes/webhook-receiver.js';
import { skillBody } from '../helpers/api.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../helpers/app.js';
import { openApiChecker } from '../helpers/openapi-check.js';

let t: TestApp;
let token: string;
let r3: R3Client;
let receiver: Receiver;
const SECRET = 'whsec_client-test-secret-0123456789';

beforeAll(async () => {
  t = await startTestApp({ R3_WEBHOOK_ALLOW_PRIVATE: 'true' });
  token = (await t.token({ org: 'client', scopes: ALL_SCOPES })).token;
  const check = openApiChecker(t.app);
  r3 = createR3Client({
    baseUrl: t.url,
    token,
    fetch: async (request) => {
      const response = await fetch(request);
      const type = response.headers.get('content-type') ?? '';
      const body = type.includes('json') ? await response.clone().json() : null;
      check(request.method, new URL(request.url).pathname, response.status, type, body);
      return response;
    },
  });
  receiver = await startReceiver();
});

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('the typed client', () => {
  it('runs a skill, streams its events with a resume, and verifies the webhook it sent', async () => {
    const webhook = await r3.POST('/api/v1/webhooks', {
      body: { url: `${receiver.url}/hook`, events: ['run.completed'], secret: SECRET },
    });
    expect(webhook.response.status).toBe(201);
    expect(webhook.data?.events).toEqual(['run.completed']);

    const skill = await r3.POST('/api/v1/skills', { body: skillBody('echo') });
    expect(skill.response.status, JSON.stringify(skill.error)).toBe(201);

    const started = await r3.POST('/api/v1/skills/{slug}/runs', {
      params: { path: { slug: 'echo' } },
      body: { input: { text: 'hello' } },
    });
    expect(started.response.status).toBe(202);
    const runId = started.data?.runId as number;
    expect(runId).toBeGreaterThan(0);

    // The first event, then the connection is dropped; the rest come from a resumed stream.
    let first: RunEvent | undefined;
    for await (const event of runEvents({ baseUrl: t.url, token, runId })) {
      first = event;
      break;
    }
    expect(first).toMatchObject({ runId, seq: 1, event: 'started' });
    const rest: RunEvent[] = [];
    for await (const event of runEvents({ baseUrl: t.url, token, runId, lastEventId: first?.seq })) {
      rest.push(event);
    }
    expect(rest.map((e) => e.seq)).toEqual(rest.map((_, i) => i + 2));
    expect(rest.at(-1)?.event).toBe('completed');

    // Resuming after the terminal event: r3 answers 204 and the iterator ends at once.
    const after: RunEvent[] = [];
    for await (const event of runEvents({ baseUrl: t.url, token, runId, lastEventId: rest.at(-1)?.seq })) {
      after.push(event);
    }
    expect(after).toEqual([]);

    const run = await r3.GET('/api/v1/runs/{id}', { params: { path: { id: String(runId) } } });
    expect(run.data?.status).toBe('completed');

    const [delivery] = await receiver.received.untilCount(1, 'run.completed delivered');
    const header = delivery?.headers['x-service-signature'] as string;
    expect(verifySignature(delivery?.raw ?? '', header, SECRET)).toEqual({ ok: true });
    expect(verifySignature(`${delivery?.raw} `, header, SECRET)).toEqual({ ok: false, reason: 'no_match' });
    expect(verifySignature(delivery?.raw ?? '', header, `${SECRET}x`)).toEqual({
      ok: false,
      reason: 'no_match',
    });
  });

  it('gives typed errors', async () => {
    const missing = await r3.GET('/api/v1/runs/{id}', { params: { path: { id: '999999' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('NOT_FOUND');
  });
});
