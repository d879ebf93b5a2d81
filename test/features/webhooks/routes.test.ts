/**
 * The webhook endpoints through the socket: every route's success, and its 400, 401/403, 404
 * (unknown, malformed and another org's ids) and 409 answers. Secrets are never returned and are
 * stored sealed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { type Callers, callers, fields } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createObjectType, ingest, watchDispatcher } from '../../helpers/webhooks.js';

let t: TestApp;
let c: Callers;
let receiver: Receiver;

const SECRET = 'whsec_api_test_0123456789';

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0', R3_WEBHOOK_ALLOW_PRIVATE: 'true' });
  c = await callers(t, 'hooks');
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const body = (extra: Record<string, unknown> = {}) => ({
  url: `${receiver.url}/hook`,
  events: ['run.completed', 'object.created'],
  secret: SECRET,
  ...extra,
});

async function create(extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.request('POST', '/api/v1/webhooks', { token: c.writer, body: body(extra) });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

describe('POST /webhooks', () => {
  it('answers 201 with the webhook, never the secret, and stores the secret sealed', async () => {
    const res = await t.request('POST', '/api/v1/webhooks', {
      token: c.writer,
      body: body({ filter: { skillSlug: 'summarize' } }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      url: `${receiver.url}/hook`,
      events: ['run.completed', 'object.created'],
      filter: { skillSlug: 'summarize', workflowSlug: null },
      active: true,
      createdAt: expect.any(String),
    });
    expect(res.text).not.toContain(SECRET);
    expect(res.body).not.toHaveProperty('secret');
    const row = await t.app.db.sql.one<{ secret_sealed: string }>(
      'select secret_sealed from webhooks where id = $1',
      [res.body.id],
    );
    expect(row.secret_sealed).toMatch(/^v1:/);
    expect(row.secret_sealed).not.toContain(SECRET);
    const audit = await t.app.db.sql.query(
      `select 1 from audit_log where action = 'webhook.create' and target_id = $1`,
      [String(res.body.id)],
    );
    expect(audit).toHaveLength(1);
  });

  it('defaults the filter to both keys null', async () => {
    const id = await create();
    const res = await t.request('GET', `/api/v1/webhooks/${id}`, { token: c.reader });
    expect(res.body.filter).toEqual({ skillSlug: null, workflowSlug: null });
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ events: ['run.exploded'] }, 'body.events.0'],
      [{ events: [] }, 'body.events'],
      [{ events: ['run.failed', 'run.failed'] }, 'body.events'],
      [{ secret: 'short' }, 'body.secret'],
      [{ secret: 'has spaces in it 0123' }, 'body.secret'],
      [{ filter: { agentSlug: 'x' } }, 'body.filter'],
      [{ url: 'not a url' }, 'body.url'],
      [{ extra: true }, 'body'],
    ];
    for (const [extra, field] of cases) {
      const res = await t.request('POST', '/api/v1/webhooks', { token: c.writer, body: body(extra) });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(fields(res.body), JSON.stringify(extra)).toContain(field);
    }
    const missing = await t.request('POST', '/api/v1/webhooks', {
      token: c.writer,
      body: { url: body().url },
    });
    expect(fields(missing.body)).toEqual(expect.arrayContaining(['body.events', 'body.secret']));
  });

  it('needs write:resources (403) and a token (401)', async () => {
    for (const token of [c.reader, c.invoker]) {
      const res = await t.request('POST', '/api/v1/webhooks', { token, body: body() });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect((await t.request('POST', '/api/v1/webhooks', { body: body() })).status).toBe(401);
  });
});

describe('GET /webhooks and /webhooks/:id', () => {
  it('lists the org’s webhooks with a cursor and hides other orgs’', async () => {
    const strangers = await t.request('POST', '/api/v1/webhooks', { token: c.stranger, body: body() });
    expect(strangers.status).toBe(201);
    const first = await t.request('GET', '/api/v1/webhooks?limit=1', { token: c.reader });
    expect(first.status).toBe(200);
    expect(first.body.webhooks).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const all: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.request(
        'GET',
        `/api/v1/webhooks?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        {
          token: c.reader,
        },
      );
      all.push(...page.body.webhooks.map((w: { id: number }) => w.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(all).not.toContain(strangers.body.id);
    expect(all).toEqual([...all].sort((a, b) => a - b));
    expect((await t.request('GET', '/api/v1/webhooks?cursor=garbage', { token: c.reader })).status).toBe(400);
    expect((await t.request('GET', '/api/v1/webhooks', { token: c.invoker })).status).toBe(403);
  });

  it('reads one; 404 for another org’s, an unknown and a malformed id', async () => {
    const id = await create();
    const res = await t.request('GET', `/api/v1/webhooks/${id}`, { token: c.reader });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    expect(res.body).not.toHaveProperty('secret');
    expect((await t.request('GET', `/api/v1/webhooks/${id}`, { token: c.stranger })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/webhooks/999999', { token: c.reader })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/webhooks/abc', { token: c.reader })).status).toBe(404);
  });
});

describe('PATCH /webhooks/:id', () => {
  it('updates url, events and filter; 400, 403, 404 as usual', async () => {
    const id = await create();
    const res = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      token: c.writer,
      body: { url: `${receiver.url}/moved`, events: ['run.failed'], filter: { workflowSlug: 'flow' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      url: `${receiver.url}/moved`,
      events: ['run.failed'],
      filter: { skillSlug: null, workflowSlug: 'flow' },
      active: true,
    });
    const cleared = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      token: c.writer,
      body: { filter: null },
    });
    expect(cleared.body.filter).toEqual({ skillSlug: null, workflowSlug: null });
    expect(cleared.body.events).toEqual(['run.failed']);
    const bad = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      token: c.writer,
      body: { secret: SECRET },
    });
    expect(bad.status).toBe(400);
    expect(
      (await t.request('PATCH', `/api/v1/webhooks/${id}`, { token: c.writer, body: { events: [] } })).status,
    ).toBe(400);
    expect((await t.request('PATCH', `/api/v1/webhooks/${id}`, { token: c.reader, body: {} })).status).toBe(
      403,
    );
    expect((await t.request('PATCH', `/api/v1/webhooks/${id}`, { token: c.stranger, body: {} })).status).toBe(
      404,
    );
  });

  it('disables and re-enables with active; repeating either changes nothing', async () => {
    const id = await create();
    const off = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      token: c.writer,
      body: { active: false },
    });
    expect(off.body).toMatchObject({ active: false, disabledReason: 'manual' });
    const again = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      token: c.writer,
      body: { active: false },
    });
    expect(again.status).toBe(200);
    expect(again.body.disabledAt).toBe(off.body.disabledAt);
    const on = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      token: c.writer,
      body: { active: true },
    });
    expect(on.body).toMatchObject({ active: true, disabledReason: null, disabledAt: null });
  });
});

describe('deliveries, replay and rotate-secret', () => {
  it('lists deliveries newest first with a cursor, shows one with its attempts, replays it', async () => {
    await createObjectType(t, c.writer);
    const id = await create({ events: ['object.created'] });
    const dispatched = watchDispatcher(t);
    await ingest(t, c.writer, dispatched, 'one');
    await ingest(t, c.writer, dispatched, 'two');
    await t.app.jobs.drain();
    const page1 = await t.request('GET', `/api/v1/webhooks/${id}/deliveries?limit=1`, { token: c.reader });
    expect(page1.status).toBe(200);
    expect(page1.body.deliveries).toHaveLength(1);
    const page2 = await t.request(
      'GET',
      `/api/v1/webhooks/${id}/deliveries?limit=1&cursor=${page1.body.nextCursor}`,
      {
        token: c.reader,
      },
    );
    expect(page2.body.deliveries).toHaveLength(1);
    expect(page2.body.nextCursor).toBeNull();
    const [newest] = page1.body.deliveries;
    const [oldest] = page2.body.deliveries;
    expect(newest.deliveryId).not.toBe(oldest.deliveryId);
    expect(Object.keys(newest)).toEqual([
      'deliveryId',
      'event',
      'status',
      'attempts',
      'lastAttemptAt',
      'nextAttemptAt',
      'responseStatus',
      'replayOf',
      'createdAt',
    ]);
    const delivered = await t.request('GET', `/api/v1/webhooks/${id}/deliveries?status=delivered`, {
      token: c.reader,
    });
    expect(delivered.body.deliveries).toHaveLength(2);
    const failed = await t.request('GET', `/api/v1/webhooks/${id}/deliveries?status=failed`, {
      token: c.reader,
    });
    expect(failed.body.deliveries).toHaveLength(0);
    expect(
      (await t.request('GET', `/api/v1/webhooks/${id}/deliveries?status=odd`, { token: c.reader })).status,
    ).toBe(400);
    expect((await t.request('GET', `/api/v1/webhooks/${id}/deliveries`, { token: c.stranger })).status).toBe(
      404,
    );
    expect((await t.request('GET', '/api/v1/webhooks/999999/deliveries', { token: c.reader })).status).toBe(
      404,
    );

    const detail = await t.request('GET', `/api/v1/webhooks/${id}/deliveries/${newest.deliveryId}`, {
      token: c.reader,
    });
    expect(detail.status).toBe(200);
    expect(detail.body.attemptLog).toHaveLength(1);
    const unknown = `whd_${'a'.repeat(24)}`;
    expect(
      (await t.request('GET', `/api/v1/webhooks/${id}/deliveries/${unknown}`, { token: c.reader })).status,
    ).toBe(404);
    expect(
      (await t.request('GET', `/api/v1/webhooks/${id}/deliveries/nope`, { token: c.reader })).status,
    ).toBe(404);

    const replay = (deliveryId: string, token = c.writer, webhook = id) =>
      t.request('POST', `/api/v1/webhooks/${webhook}/deliveries/${deliveryId}/replay`, { token, body: {} });
    const replayed = await replay(newest.deliveryId);
    expect(replayed.status).toBe(202);
    expect(replayed.body.deliveryId).toMatch(/^whd_/);
    expect((await replay(newest.deliveryId, c.reader)).status).toBe(403);
    expect((await replay(newest.deliveryId, c.stranger)).status).toBe(404);
    expect((await replay(unknown)).status).toBe(404);
    const other = await create();
    // A delivery of another webhook is not found under this one.
    expect((await replay(newest.deliveryId, c.writer, other)).status).toBe(404);
    await t.request('PATCH', `/api/v1/webhooks/${id}`, { token: c.writer, body: { active: false } });
    const refused = await replay(newest.deliveryId);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
  });

  it('rotates the secret: 200 {secret} with whsec_; 403 and 404 as usual', async () => {
    const id = await create();
    const res = await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, {
      token: c.writer,
      body: {},
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['secret']);
    expect(res.body.secret).toMatch(/^whsec_/);
    const second = await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, {
      token: c.writer,
      body: {},
    });
    expect(second.body.secret).not.toBe(res.body.secret);
    expect(
      (await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, { token: c.reader, body: {} })).status,
    ).toBe(403);
    expect(
      (await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, { token: c.stranger, body: {} }))
        .status,
    ).toBe(404);
    expect(
      (await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, { token: c.writer, body: { x: 1 } }))
        .status,
    ).toBe(400);
  });
});

describe('DELETE /webhooks/:id', () => {
  it('deletes the webhook with its deliveries; then 404; 403 and 404 as usual', async () => {
    const id = await create();
    expect((await t.request('DELETE', `/api/v1/webhooks/${id}`, { token: c.reader })).status).toBe(403);
    expect((await t.request('DELETE', `/api/v1/webhooks/${id}`, { token: c.stranger })).status).toBe(404);
    const res = await t.request('DELETE', `/api/v1/webhooks/${id}`, { token: c.writer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, deleted: true });
    expect((await t.request('GET', `/api/v1/webhooks/${id}`, { token: c.reader })).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/webhooks/${id}`, { token: c.writer })).status).toBe(404);
  });
});
