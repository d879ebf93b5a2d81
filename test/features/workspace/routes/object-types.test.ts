/** `/api/v1/objects/types` through HTTP: list, detail with sourceRelevance, create, patch. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let c: Callers;

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'types-org');
  await t.request('POST', '/api/v1/sources', {
    token: c.writer,
    body: { slug: 'crm', name: 'CRM', kind: 'crm' },
  });
});
afterAll(() => t.close());

const deal = {
  slug: 'deal',
  name: 'Deal',
  description: 'A sales opportunity',
  schema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
  sourceRelevance: { crm: 2 },
};

describe('POST /objects/types', () => {
  it('creates: 201 with the detail, language defaulting to english', async () => {
    const res = await t.request('POST', '/api/v1/objects/types', { token: c.writer, body: deal });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...deal, language: 'english' });
  });

  it('takes a language PostgreSQL knows', async () => {
    const res = await t.request('POST', '/api/v1/objects/types', {
      token: c.writer,
      body: { slug: 'notiz', name: 'Notiz', language: 'german' },
    });
    expect(res.status).toBe(201);
    expect(res.body.language).toBe('german');
  });

  it('409 on an existing slug; 403 without write:resources', async () => {
    expect((await t.request('POST', '/api/v1/objects/types', { token: c.writer, body: deal })).status).toBe(
      409,
    );
    expect(
      (await t.request('POST', '/api/v1/objects/types', { token: c.reader, body: { ...deal, slug: 'x' } }))
        .status,
    ).toBe(403);
  });

  it.each([
    [
      'schema not an object schema',
      { slug: 'x', name: 'x', schema: { type: 'array' } },
      ['body.schema.type'],
    ],
    [
      'schema with a typo',
      { slug: 'x', name: 'x', schema: { type: 'object', propertiez: {} } },
      ['body.schema'],
    ],
    [
      'relevance to an unknown source',
      { slug: 'x', name: 'x', sourceRelevance: { mail: 1 } },
      ['body.sourceRelevance.mail'],
    ],
    [
      'negative relevance',
      { slug: 'x', name: 'x', sourceRelevance: { crm: -1 } },
      ['body.sourceRelevance.crm'],
    ],
    ['unknown language', { slug: 'x', name: 'x', language: 'klingon' }, ['body.language']],
    ['malformed language', { slug: 'x', name: 'x', language: 'English!' }, ['body.language']],
  ])('400 VALIDATION_FAILED: %s', async (_name, body, expected) => {
    const res = await t.request('POST', '/api/v1/objects/types', { token: c.writer, body });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(expected);
  });
});

describe('GET /objects/types', () => {
  it('lists schemas (no sourceRelevance); detail adds sourceRelevance', async () => {
    const list = await t.request('GET', '/api/v1/objects/types', { token: c.reader });
    expect(list.body.types.map((x: { slug: string }) => x.slug)).toEqual(['deal', 'notiz']);
    expect(list.body.types[0]).toMatchObject({ schema: deal.schema });
    expect(list.body.types[0].sourceRelevance).toBeUndefined();
    expect(list.body.nextCursor).toBeNull();
    const detail = await t.request('GET', '/api/v1/objects/types/deal', { token: c.reader });
    expect(detail.body.sourceRelevance).toEqual({ crm: 2 });
  });

  it('404 unknown and cross-tenant; 403 for read:skills', async () => {
    expect((await t.request('GET', '/api/v1/objects/types/ghost', { token: c.reader })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/objects/types/deal', { token: c.stranger })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/objects/types', { token: c.skillsReader })).status).toBe(403);
  });
});

describe('PATCH /objects/types/:slug (extension)', () => {
  it('updates fields; 404 unknown and foreign; 403', async () => {
    const res = await t.request('PATCH', '/api/v1/objects/types/deal', {
      token: c.writer,
      body: { sourceRelevance: { crm: 0.5 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.sourceRelevance).toEqual({ crm: 0.5 });
    expect(
      (await t.request('PATCH', '/api/v1/objects/types/ghost', { token: c.writer, body: { name: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (await t.request('PATCH', '/api/v1/objects/types/deal', { token: c.stranger, body: { name: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (await t.request('PATCH', '/api/v1/objects/types/deal', { token: c.reader, body: { name: 'x' } }))
        .status,
    ).toBe(403);
  });
});
