/** Object instances through HTTP: ingest, list, detail with linked documents, patch; scopes and tenancy. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let c: Callers;

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'objects-org');
  await t.request('POST', '/api/v1/sources', {
    token: c.writer,
    body: { slug: 'crm', name: 'CRM', kind: 'crm' },
  });
  const deal = {
    slug: 'deal',
    name: 'Deal',
    schema: {
      type: 'object',
      properties: {
        amount: { type: 'number', minimum: 0 },
        stage: { enum: ['open', 'won', 'lost'] },
        closeDate: { type: 'string', format: 'date' },
      },
      required: ['amount'],
      additionalProperties: false,
    },
  };
  expect((await t.request('POST', '/api/v1/objects/types', { token: c.writer, body: deal })).status).toBe(
    201,
  );
  expect(
    (
      await t.request('POST', '/api/v1/objects/types', {
        token: c.writer,
        body: { slug: 'mail', name: 'Mail' },
      })
    ).status,
  ).toBe(201);
});
afterAll(() => t.close());

const ingest = (type: string, body: unknown, token = c.invoker) =>
  t.request('POST', `/api/v1/objects/${type}/instances`, { token, body });

describe('POST /objects/:slug/instances', () => {
  it('ingests: 201 {id, slug, title, createdAt}', async () => {
    const res = await ingest('deal', {
      title: 'Acme renewal',
      content: 'Renewal of the Acme contract.',
      metadata: { amount: 1200, stage: 'open' },
      source: 'crm',
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'slug', 'title']);
    expect(res.body).toMatchObject({ slug: 'deal', title: 'Acme renewal' });
    expect(res.body.createdAt).toBe(new Date(t.clock.now()).toISOString());
    const row = await t.app.db.sql.one<{ api_token_id: string; created_by: string; embedder: string | null }>(
      'select api_token_id, created_by, embedder from object_instances where id = $1',
      [res.body.id],
    );
    expect(row.created_by).toBe(`token:${row.api_token_id}`);
    expect(row.embedder).toBe('local-hash-v1');
  });

  it.each([
    ['metadata missing a required field', { title: 't', metadata: {} }, ['body.metadata.amount']],
    ['metadata of the wrong type', { title: 't', metadata: { amount: 'lots' } }, ['body.metadata.amount']],
    [
      'metadata off the enum',
      { title: 't', metadata: { amount: 1, stage: 'maybe' } },
      ['body.metadata.stage'],
    ],
    [
      'metadata with a bad format',
      { title: 't', metadata: { amount: 1, closeDate: 'soon' } },
      ['body.metadata.closeDate'],
    ],
    [
      'metadata with an extra field',
      { title: 't', metadata: { amount: 1, colour: 'red' } },
      ['body.metadata.colour'],
    ],
    ['blank title', { title: '  ', metadata: { amount: 1 } }, ['body.title']],
    ['unknown body field', { title: 't', metadata: { amount: 1 }, tags: [] }, ['body']],
    ['unknown source', { title: 't', metadata: { amount: 1 }, source: 'ghost' }, ['body.source']],
    [
      'link to an unknown instance',
      { title: 't', metadata: { amount: 1 }, links: [{ id: 999999 }] },
      ['body.links.0.id'],
    ],
  ])('400 VALIDATION_FAILED: %s', async (_name, body, expected) => {
    const res = await ingest('deal', body);
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(expected);
  });

  it('404 for an unknown type and for another org’s type', async () => {
    const res = await ingest('ghost', { title: 't' });
    expect(res.status).toBe(404);
    expect(res.body.error.details).toMatchObject({ kind: 'object type', id: 'ghost' });
    expect((await ingest('deal', { title: 't', metadata: { amount: 1 } }, c.stranger)).status).toBe(404);
  });

  it('needs run:invoke', async () => {
    for (const token of [c.reader, c.skillsReader]) {
      expect((await ingest('mail', { title: 't' }, token)).status).toBe(403);
    }
    const writerOnly = (await t.token({ org: 'objects-org', scopes: ['write:resources'] })).token;
    expect((await ingest('mail', { title: 't' }, writerOnly)).status).toBe(403);
  });
});

describe('GET /objects and /objects/:id', () => {
  let dealId: number;
  let mailIds: number[];

  beforeAll(async () => {
    dealId = (await ingest('deal', { title: 'Globex expansion', metadata: { amount: 50 } })).body.id;
    mailIds = [];
    for (const n of [1, 2, 3]) {
      const res = await ingest('mail', {
        title: `Mail ${n}`,
        content: `Body ${n}`,
        links: [{ id: dealId, relation: 'about' }],
      });
      mailIds.push(res.body.id);
    }
  });

  it('lists newest first, filters by type and status, pages with a cursor', async () => {
    const mails = await t.request('GET', '/api/v1/objects?type=mail&limit=2', { token: c.reader });
    expect(mails.status).toBe(200);
    expect(mails.body.objects.map((o: { id: number }) => o.id)).toEqual([mailIds[2], mailIds[1]]);
    expect(mails.body.objects[0]).toMatchObject({
      type: 'mail',
      title: 'Mail 3',
      status: 'active',
      source: null,
      externalId: null,
      metadata: {},
    });
    expect(mails.body.objects[0].content).toBeUndefined();
    const rest = await t.request('GET', `/api/v1/objects?type=mail&limit=2&cursor=${mails.body.nextCursor}`, {
      token: c.reader,
    });
    expect(rest.body).toMatchObject({ nextCursor: null });
    expect(rest.body.objects.map((o: { id: number }) => o.id)).toEqual([mailIds[0]]);
    const archived = await t.request('GET', '/api/v1/objects?status=archived', { token: c.reader });
    expect(archived.body.objects).toEqual([]);
    expect((await t.request('GET', '/api/v1/objects?status=gone', { token: c.reader })).status).toBe(400);
  });

  it('detail carries content and the linked documents, both directions', async () => {
    const deal = await t.request('GET', `/api/v1/objects/${dealId}`, { token: c.reader });
    expect(deal.status).toBe(200);
    expect(deal.body).toMatchObject({
      id: dealId,
      type: 'deal',
      title: 'Globex expansion',
      content: '',
      metadata: { amount: 50 },
    });
    expect(deal.body.url).toBe(`${t.app.config.baseUrl}/api/v1/objects/${dealId}`);
    expect(deal.body.documents).toEqual(
      mailIds.map((id, i) => ({
        id,
        type: 'mail',
        title: `Mail ${i + 1}`,
        status: 'active',
        relation: 'about',
        direction: 'incoming',
        url: `${t.app.config.baseUrl}/api/v1/objects/${id}`,
      })),
    );
    const mail = await t.request('GET', `/api/v1/objects/${mailIds[0]}`, { token: c.reader });
    expect(mail.body.documents).toEqual([
      expect.objectContaining({ id: dealId, direction: 'outgoing', relation: 'about' }),
    ]);
  });

  it('404 for unknown, malformed and foreign ids; the stranger’s list is empty; 403 for read:skills', async () => {
    for (const id of ['999999', 'abc', '0', '-1']) {
      expect((await t.request('GET', `/api/v1/objects/${id}`, { token: c.reader })).status, id).toBe(404);
    }
    expect((await t.request('GET', `/api/v1/objects/${dealId}`, { token: c.stranger })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/objects', { token: c.stranger })).body.objects).toEqual([]);
    expect((await t.request('GET', '/api/v1/objects', { token: c.skillsReader })).status).toBe(403);
  });

  it('PATCH updates metadata (validated) and status', async () => {
    const res = await t.request('PATCH', `/api/v1/objects/${dealId}`, {
      token: c.writer,
      body: { metadata: { amount: 75, stage: 'won' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual({ amount: 75, stage: 'won' });
    const bad = await t.request('PATCH', `/api/v1/objects/${dealId}`, {
      token: c.writer,
      body: { metadata: { stage: 'won' } },
    });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['body.metadata.amount']);
    t.clock.advance(1_000);
    const archived = await t.request('PATCH', `/api/v1/objects/${dealId}`, {
      token: c.writer,
      body: { status: 'archived' },
    });
    expect(archived.body).toMatchObject({ status: 'archived', metadata: { amount: 75, stage: 'won' } });
    expect(archived.body.updatedAt).toBe(new Date(t.clock.now()).toISOString());
    const list = await t.request('GET', '/api/v1/objects?status=archived', { token: c.reader });
    expect(list.body.objects.map((o: { id: number }) => o.id)).toEqual([dealId]);
  });

  it('PATCH: 400 on an empty or unknown body, 404 unknown and foreign, 403 without write:resources', async () => {
    expect(
      (await t.request('PATCH', `/api/v1/objects/${dealId}`, { token: c.writer, body: {} })).status,
    ).toBe(400);
    expect(
      (
        await t.request('PATCH', `/api/v1/objects/${dealId}`, {
          token: c.writer,
          body: { status: 'deleted' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await t.request('PATCH', `/api/v1/objects/${dealId}`, { token: c.writer, body: { type: 'mail' } }))
        .status,
    ).toBe(400);
    expect(
      (await t.request('PATCH', '/api/v1/objects/999999', { token: c.writer, body: { status: 'active' } }))
        .status,
    ).toBe(404);
    expect(
      (
        await t.request('PATCH', `/api/v1/objects/${dealId}`, {
          token: c.stranger,
          body: { status: 'active' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await t.request('PATCH', `/api/v1/objects/${dealId}`, {
          token: c.invoker,
          body: { status: 'active' },
        })
      ).status,
    ).toBe(403);
  });

  it('records audit rows with the token id', async () => {
    const rows = await t.app.db.sql.query<{ action: string; api_token_id: string | null }>(
      `select action, api_token_id from audit_log where action in ('object.ingest', 'object.update') and target_id = $1`,
      [String(dealId)],
    );
    expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(['object.ingest', 'object.update']));
    for (const row of rows) expect(row.api_token_id).toMatch(/^[a-z2-7]{16}$/);
  });
});
