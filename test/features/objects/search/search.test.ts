/**
 * Hybrid search through `GET /api/v1/search` and the service: exact title first, content-only words,
 * the types filter, tenancy, archived documents, snippets and links, source weights, languages, and the
 * signature index following writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, orgIdOf } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let c: Callers;
let orgId: number;
const ids: Record<string, number> = {};

async function ingest(
  type: string,
  title: string,
  content: string,
  extra: Record<string, unknown> = {},
  token = c.writer,
) {
  const res = await t.request('POST', `/api/v1/objects/${type}/instances`, {
    token,
    body: { title, content, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

async function search(query: string, params = '', token = c.reader) {
  const res = await t.request('GET', `/api/v1/search?q=${encodeURIComponent(query)}${params}`, { token });
  expect(res.status).toBe(200);
  return res.body.results as Array<{
    id: number;
    type: string;
    title: string;
    snippet: string;
    score: number;
    url: string;
  }>;
}

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'search-org');
  orgId = await orgIdOf(t, 'search-org');
  for (const source of [
    { slug: 'crm', name: 'CRM', kind: 'crm' },
    { slug: 'mail', name: 'Mail', kind: 'mail' },
    { slug: 'muted', name: 'Muted', kind: 'files', retrieval: { weight: 0 } },
  ]) {
    await t.request('POST', '/api/v1/sources', { token: c.writer, body: source });
  }
  await t.request('POST', '/api/v1/objects/types', { token: c.writer, body: { slug: 'note', name: 'Note' } });
  await t.request('POST', '/api/v1/objects/types', {
    token: c.writer,
    body: { slug: 'deal', name: 'Deal', sourceRelevance: { crm: 3, mail: 0.5 } },
  });
  await t.request('POST', '/api/v1/objects/types', {
    token: c.writer,
    body: { slug: 'notiz', name: 'Notiz', language: 'german' },
  });

  ids.content1 = await ingest(
    'note',
    'Pipeline review',
    'The quarterly revenue forecast looks strong. Revenue forecast for the quarterly close: revenue, forecast, quarterly.',
  );
  ids.content2 = await ingest(
    'note',
    'Board notes',
    'We discussed the quarterly revenue forecast and the forecast of revenue growth.',
  );
  ids.title = await ingest(
    'note',
    'Quarterly revenue forecast',
    'Numbers are attached. Nothing else to add here.',
  );
  ids.zebra = await ingest(
    'note',
    'Team offsite',
    'We will rent kayaks and watch a zebra documentary in the evening.',
  );
  ids.deal = await ingest('deal', 'Acme kayaks renewal', 'Kayaks order renewal for Acme.', {
    source: 'mail',
  });
  ids.dealCrm = await ingest('deal', 'Initech kayaks expansion', 'Kayaks order expansion for Initech.', {
    source: 'crm',
  });
  ids.muted = await ingest('note', 'Muted kayaks memo', 'Kayaks kayaks kayaks.', { source: 'muted' });
  ids.haus = await ingest('notiz', 'Besichtigung', 'Die Häuser am See wurden besichtigt.');
  const stranger = await t.token({
    org: 'search-other',
    scopes: ['read:all', 'write:resources', 'run:invoke'],
  });
  await t.request('POST', '/api/v1/objects/types', {
    token: stranger.token,
    body: { slug: 'note', name: 'Note' },
  });
  ids.foreign = await ingest('note', 'Zebra crossing', 'A zebra in the other org.', {}, stranger.token);
});
afterAll(() => t.close());

describe('GET /search', () => {
  it('ranks an exact title match first', async () => {
    const results = await search('quarterly revenue forecast');
    expect(results[0]?.id).toBe(ids.title);
    expect(results.map((r) => r.id)).toEqual(expect.arrayContaining([ids.content1, ids.content2]));
    const scores = results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('finds a document by a word only in its content, with a highlighted snippet and its link', async () => {
    const [first] = await search('zebra');
    expect(first).toEqual({
      id: ids.zebra,
      type: 'note',
      title: 'Team offsite',
      snippet: expect.stringContaining('**zebra**'),
      score: expect.any(Number),
      url: `${t.app.config.baseUrl}/api/v1/objects/${ids.zebra}`,
    });
  });

  it('respects the types filter (comma list or repeated)', async () => {
    const notes = await search('kayaks', '&types=note');
    expect(notes.map((r) => r.type)).toEqual(['note']);
    expect(notes.map((r) => r.id)).toEqual([ids.zebra]);
    const both = await search('kayaks', '&types=note,deal');
    expect(new Set(both.map((r) => r.type))).toEqual(new Set(['note', 'deal']));
    const repeated = await search('kayaks', '&types=deal&types=note');
    expect(repeated.map((r) => r.id).sort()).toEqual(both.map((r) => r.id).sort());
    expect(await search('kayaks', '&types=ghost')).toEqual([]);
  });

  it('sourceRelevance weighs the queried type’s sources; a source weight of 0 hides its documents', async () => {
    const deals = await search('kayaks', '&types=deal');
    expect(deals.map((r) => r.id)).toEqual([ids.dealCrm, ids.deal]);
    const all = await search('kayaks');
    expect(all.map((r) => r.id)).not.toContain(ids.muted);
  });

  it('is tenant-isolated', async () => {
    const results = await search('zebra');
    expect(results.map((r) => r.id)).not.toContain(ids.foreign);
    const theirs = await t.token({ org: 'search-other', scopes: ['read:all'] });
    expect((await search('zebra', '', theirs.token)).map((r) => r.id)).toEqual([ids.foreign]);
  });

  it('searches each type in its own language', async () => {
    // German stemming: "Haus" finds "Häuser"; the vector channel alone would not (different n-grams).
    const [first] = await search('Haus');
    expect(first).toMatchObject({ id: ids.haus, snippet: expect.stringContaining('**Häuser**') });
  });

  it('follows writes: new, archived and edited documents', async () => {
    expect(await search('xylophone')).toEqual([]);
    const id = await ingest('note', 'Music class', 'Bring the xylophone.');
    expect((await search('xylophone')).map((r) => r.id)).toEqual([id]);
    await t.request('PATCH', `/api/v1/objects/${id}`, {
      token: c.writer,
      body: { content: 'Bring the tuba.' },
    });
    expect(await search('xylophone')).toEqual([]);
    expect((await search('tuba')).map((r) => r.id)).toEqual([id]);
    await t.request('PATCH', `/api/v1/objects/${id}`, { token: c.writer, body: { status: 'archived' } });
    expect(await search('tuba')).toEqual([]);
  });

  it('limit caps the results', async () => {
    expect(await search('kayaks', '&limit=1')).toHaveLength(1);
  });

  it('400 without q or with a bad limit; 403 without read:all', async () => {
    for (const query of [
      '',
      '?q=',
      '?q=%20',
      '?q=x&limit=0',
      '?q=x&limit=101',
      '?q=x&types=Bad!',
      '?q=x&colour=red',
    ]) {
      expect((await t.request('GET', `/api/v1/search${query}`, { token: c.reader })).status, query).toBe(400);
    }
    expect((await t.request('GET', '/api/v1/search?q=x', { token: c.skillsReader })).status).toBe(403);
  });
});

describe('SearchService', () => {
  it('is callable with an org id (the MCP search_query path)', async () => {
    const { results } = await t.app.search.search(orgId, 'zebra', { types: ['note'], limit: 5 });
    expect(results[0]?.id).toBe(ids.zebra);
  });

  it('a query of stop words only finds nothing rather than failing', async () => {
    expect((await t.app.search.search(orgId, 'the and of')).results).toEqual([]);
  });
});
