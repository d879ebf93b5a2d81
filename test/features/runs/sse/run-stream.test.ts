/**
 * GET /runs/:id/stream on one process: replay, resume with Last-Event-ID (header or query), live
 * events through the outbox and the bus, terminal close (live and when the replay holds it), 204
 * for a finished stream, gap filling and duplicate dropping, heartbeats, a slow client closed and
 * resumed, the per-token cap, tenancy and scope.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEventPayload } from '../../../../src/features/runs/run-kinds.js';
import { runEventSubject } from '../../../../src/platform/bus/subjects.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { createSkillRun, orgIdOf } from '../../../helpers/runs.js';
import { openSse, type SseClient } from '../../../helpers/sse.js';
import { withTimeout } from '../../../helpers/wait.js';

let t: TestApp;
let org: number;
let reader: string;

beforeAll(async () => {
  t = await startTestApp({
    R3_WORKER_CONCURRENCY: '0',
    R3_SSE_HEARTBEAT: '100ms',
    R3_SSE_MAX_STREAMS_PER_TOKEN: '3',
    R3_SSE_QUEUE_LIMIT: '4',
  });
  reader = (await t.token({ scopes: ['read:all'] })).token;
  org = await orgIdOf(t.app);
});
afterAll(() => t?.close());

const stream = (runId: number, options: Parameters<typeof openSse>[2] = {}) =>
  openSse(t.url, `/api/v1/runs/${runId}/stream`, { token: reader, ...options });

const names = (client: SseClient) => client.events.items.map((e) => e.event);
const ids = (client: SseClient) => client.events.items.map((e) => Number(e.id));

/** A skill run that ran to completion: started, step_started, step_completed, completed. */
async function completedRun(): Promise<number> {
  const { actor } = await createSkillRun(t.app, org);
  await t.app.jobs.drain();
  return actor.row.id;
}

/** Appends run events straight to the log (rows only), as a transition would have. */
async function appendEvents(runId: number, from: number, count: number, output: unknown = { n: 1 }) {
  const at = new Date(t.clock.now()).toISOString();
  for (let seq = from; seq < from + count; seq++) {
    await t.app.db.sql.query(
      `insert into run_events (run_id, seq, org_id, event, status, step, output, at)
       values ($1, $2, $3, 'step_completed', 'running', 'summarize', $4, $5)`,
      [runId, seq, org, JSON.stringify(output), at],
    );
  }
  await t.app.db.sql.query('update runs set last_seq = $2 where id = $1', [runId, from + count - 1]);
}

/** Publishes a run event on the bus as the outbox relay would. */
async function publish(runId: number, seq: number, output: unknown = { n: 1 }, event = 'step_completed') {
  const payload: RunEventPayload = {
    eventId: randomUUID(),
    orgId: org,
    runId,
    kind: 'skill',
    slug: 'summarize',
    seq,
    event,
    status: 'running',
    step: 'summarize',
    output,
    workspaceSha: 'abc1234',
    at: new Date(t.clock.now()).toISOString(),
  };
  await t.app.bus.publish(runEventSubject(String(org), runId, event), payload, { msgId: payload.eventId });
}

describe('replay', () => {
  it('replays a finished run with ids, names and data, then ends the stream', async () => {
    const runId = await completedRun();
    const client = await stream(runId);
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(client.headers['cache-control']).toBe('no-store, no-transform');
    await withTimeout(client.ended, 'the stream to end');
    expect(names(client)).toEqual(['started', 'step_started', 'step_completed', 'completed']);
    expect(ids(client)).toEqual([1, 2, 3, 4]);
    const completed = client.events.items[3]?.json;
    expect(Object.keys(completed)).toEqual(['runId', 'seq', 'event', 'status', 'step', 'output', 'at']);
    expect(completed).toMatchObject({ runId, seq: 4, event: 'completed', status: 'completed', step: null });
    expect(completed.output).toEqual({ text: 'Summarize: hello' });
    expect(client.events.items[2]?.json).toMatchObject({
      step: 'summarize',
      output: { text: 'Summarize: hello' },
    });
    expect(new Date(completed.at).toISOString()).toBe(completed.at);
  });

  it('resumes after Last-Event-ID (header) and after ?lastEventId= (query)', async () => {
    const runId = await completedRun();
    const byHeader = await stream(runId, { lastEventId: '2' });
    await withTimeout(byHeader.ended, 'the resumed stream to end');
    expect(ids(byHeader)).toEqual([3, 4]);
    const byQuery = await openSse(t.url, `/api/v1/runs/${runId}/stream?lastEventId=3`, { token: reader });
    await withTimeout(byQuery.ended, 'the resumed stream to end');
    expect(ids(byQuery)).toEqual([4]);
  });

  it('answers 204 once the client has seen the terminal event (EventSource stops reconnecting)', async () => {
    const runId = await completedRun();
    const client = await stream(runId, { lastEventId: '4' });
    expect(client.status).toBe(204);
    expect(await client.text()).toBe('');
  });

  it('refuses a malformed Last-Event-ID with 400', async () => {
    const runId = await completedRun();
    const header = await t.request('GET', `/api/v1/runs/${runId}/stream`, {
      token: reader,
      headers: { 'last-event-id': 'abc' },
    });
    expect(header.status).toBe(400);
    expect(header.body.error.details.issues[0].field).toBe('headers.last-event-id');
    const query = await t.request('GET', `/api/v1/runs/${runId}/stream?lastEventId=-1`, { token: reader });
    expect(query.status).toBe(400);
    expect(query.body.error.details.issues[0].field).toBe('query.lastEventId');
  });
});

describe('live', () => {
  it('streams live events after the replay and ends after the terminal one', async () => {
    const { actor } = await createSkillRun(t.app, org);
    const runId = actor.row.id;
    const client = await stream(runId);
    await client.events.untilCount(2, 'the replayed events');
    expect(names(client)).toEqual(['started', 'step_started']);
    await t.app.jobs.drain();
    await withTimeout(client.ended, 'the stream to end after completed');
    expect(names(client)).toEqual(['started', 'step_started', 'step_completed', 'completed']);
    expect(ids(client)).toEqual([1, 2, 3, 4]);
  });

  it('ends a skill run stream after approved, and a review-gated run streams paused_for_review', async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const runId = actor.row.id;
    const client = await stream(runId);
    await t.app.jobs.drain();
    await client.events.until((all) => all.some((e) => e.event === 'paused_for_review'), 'paused_for_review');
    const paused = client.events.items.find((e) => e.event === 'paused_for_review')?.json;
    expect(paused).toMatchObject({ status: 'pending', output: { text: 'Summarize: hello' } });
    const owner = (await t.token({ scopes: ['read:all', 'run:approve'] })).token;
    expect(
      (await t.request('POST', `/api/v1/runs/${runId}/approve`, { token: owner, body: {} })).status,
    ).toBe(200);
    await withTimeout(client.ended, 'the stream to end after approved');
    expect(names(client)).toEqual([
      'started',
      'step_started',
      'step_completed',
      'paused_for_review',
      'approved',
    ]);
  });

  it('drops duplicate live events and fills a gap from the database', async () => {
    const { actor } = await createSkillRun(t.app, org);
    const runId = actor.row.id;
    const client = await stream(runId);
    await client.events.untilCount(2, 'the replayed events');
    // Seq 3 and 4 are in the log, but only 4 arrives live (twice): 3 comes from the database.
    await appendEvents(runId, 3, 2);
    await publish(runId, 4);
    await publish(runId, 4);
    await client.events.untilCount(4, 'the gap filled');
    await publish(runId, 5, { n: 5 }, 'completed');
    await withTimeout(client.ended, 'the stream to end');
    expect(ids(client)).toEqual([1, 2, 3, 4, 5]);
  });

  it('sends heartbeat comments while idle', async () => {
    const { actor } = await createSkillRun(t.app, org);
    const client = await stream(actor.row.id);
    expect(await client.comments.until((c) => c.includes('heartbeat'), 'a heartbeat')).toContain('heartbeat');
    client.close();
  });
});

describe('a slow client', () => {
  it('is closed when its queue overflows, and resumes with Last-Event-ID', async () => {
    const { actor } = await createSkillRun(t.app, org);
    const runId = actor.row.id;
    const client = await stream(runId, { paused: true });
    // 40 events of 512 KiB: far more than the socket buffers hold, so uWS reports backpressure and
    // the live events queue up behind it until the fifth one closes the stream.
    const big = { text: 'x'.repeat(512 * 1024) };
    const count = 40;
    await appendEvents(runId, 3, count, big);
    for (let seq = 3; seq < 3 + count; seq++) await publish(runId, seq, big);
    client.resume();
    await withTimeout(client.ended, 'the server to close the slow client', 15_000);
    const got = ids(client);
    const last = got.at(-1) ?? 0;
    expect(last).toBeLessThan(2 + count);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 1));

    const resumed = await stream(runId, { lastEventId: String(last) });
    await resumed.events.until(
      (all) => all.at(-1)?.id === String(2 + count),
      'the rest after resuming',
      15_000,
    );
    expect(ids(resumed)).toEqual(Array.from({ length: 2 + count - last }, (_, i) => last + 1 + i));
    resumed.close();
  });
});

describe('access', () => {
  it('is 404 for another org, an unknown id and a non-numeric id; 403 without read:all', async () => {
    const runId = await completedRun();
    const stranger = (await t.token({ org: 'other', scopes: ['read:all'] })).token;
    expect((await stream(runId, { token: stranger })).status).toBe(404);
    expect((await stream(99_999_999)).status).toBe(404);
    const word = await t.request('GET', '/api/v1/runs/abc/stream', { token: reader });
    expect(word.status).toBe(404);
    const invoker = (await t.token({ scopes: ['run:invoke'] })).token;
    const forbidden = await t.request('GET', `/api/v1/runs/${runId}/stream`, { token: invoker });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    expect((await t.request('GET', `/api/v1/runs/${runId}/stream`)).status).toBe(401);
  });

  it('serves any Accept header', async () => {
    const runId = await completedRun();
    const client = await stream(runId, { headers: { accept: 'application/json' } });
    expect(client.status).toBe(200);
    await withTimeout(client.ended, 'the stream to end');
    expect(client.events.items).toHaveLength(4);
  });

  it('caps open streams per token with 429 and Retry-After, and frees a slot when one closes', async () => {
    const token = (await t.token({ scopes: ['read:all'] })).token;
    const { actor } = await createSkillRun(t.app, org);
    const open = await Promise.all([1, 2, 3].map(() => stream(actor.row.id, { token })));
    expect(open.map((c) => c.status)).toEqual([200, 200, 200]);
    const refused = await t.request('GET', `/api/v1/runs/${actor.row.id}/stream`, { token });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another token is not affected.
    const other = await stream(actor.row.id);
    expect(other.status).toBe(200);
    other.close();
    open[0]?.close();
    await withTimeout(open[0]?.ended as Promise<void>, 'the client to close');
    let again: SseClient | undefined;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      // The server learns of the close when uWS reports the abort: a few event-loop turns.
      again?.close();
      again = await stream(actor.row.id, { token });
    }
    expect(again?.status).toBe(200);
    for (const c of [...open, again]) c?.close();
  });
});
