/**
 * `/api/v1/sources` through HTTP: list with connection state, detail with retrieval overrides, create
 * and patch (extensions), and reindex passes: 202, then the background work completes. (Credentials,
 * checks and syncs: connections.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Callers, callers, fields, orgIdOf } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let c: Callers;
let orgId: number;

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'sources-org');
  orgId = await orgIdOf(t, 'sources-org');
});
afterAll(() => t.close());

const crm = {
  slug: 'crm',
  name: 'CRM',
  kind: 'crm',
  connection: { state: 'connected', baseUrl: 'http://crm.local' },
  retrieval: { weight: 1.5, ftsWeight: 0.5 },
};

describe('sources', () => {
  it('POST creates (201); 409 on an existing slug; 400 on a bad manifest; 403 without the scope', async () => {
    const res = await t.request('POST', '/api/v1/sources', { token: c.writer, body: crm });
    expect(res.status).toBe(201);
    // A kind with a connector shows what checks found, not what the manifest states: never checked.
    expect(res.body).toMatchObject({
      slug: 'crm',
      kind: 'crm',
      connectionState: 'disconnected',
      connectionError: null,
      credentialsSet: false,
      credentialsUpdatedAt: null,
    });
    expect((await t.request('POST', '/api/v1/sources', { token: c.writer, body: crm })).status).toBe(409);
    const bad = await t.request('POST', '/api/v1/sources', {
      token: c.writer,
      body: { slug: 'x', name: 'x', kind: 'fax', retrieval: { weight: -1 } },
    });
    expect(bad.status).toBe(400);
    expect(fields(bad.body).sort()).toEqual(['body.kind', 'body.retrieval.weight']);
    expect(
      (await t.request('POST', '/api/v1/sources', { token: c.reader, body: { ...crm, slug: 'y' } })).status,
    ).toBe(403);
  });

  it('lists with connection state; detail has the overrides and the effective settings', async () => {
    await t.request('POST', '/api/v1/sources', {
      token: c.writer,
      body: { slug: 'mail', name: 'Mail', kind: 'mail' },
    });
    await t.request('POST', '/api/v1/sources', {
      token: c.writer,
      body: { slug: 'web', name: 'Web', kind: 'http', connection: { state: 'connected' } },
    });
    const list = await t.request('GET', '/api/v1/sources', { token: c.reader });
    expect(list.body).toEqual({
      sources: [
        expect.objectContaining({ slug: 'crm', connectionState: 'disconnected', credentialsSet: false }),
        expect.objectContaining({ slug: 'mail', connectionState: 'disconnected', credentialsSet: false }),
        // No connector checks an http source: its manifest's state is shown.
        expect.objectContaining({ slug: 'web', connectionState: 'connected', credentialsSet: false }),
      ],
      nextCursor: null,
    });
    const detail = await t.request('GET', '/api/v1/sources/crm', { token: c.reader });
    expect(detail.body).toMatchObject({
      connection: { state: 'connected', baseUrl: 'http://crm.local' },
      retrieval: { weight: 1.5, ftsWeight: 0.5 },
      effectiveRetrieval: {
        weight: 1.5,
        ftsWeight: 0.5,
        vectorWeight: 1,
        maxAgeDays: null,
        recencyHalfLifeDays: null,
      },
    });
  });

  it('PATCH updates (extension); 404 unknown and foreign; 403 for read:skills on reads', async () => {
    const res = await t.request('PATCH', '/api/v1/sources/web', {
      token: c.writer,
      body: { connection: { state: 'error' } },
    });
    expect(res.body.connectionState).toBe('error');
    const mail = await t.request('PATCH', '/api/v1/sources/mail', {
      token: c.writer,
      body: { connection: { state: 'error', host: 'imap.example.com' } },
    });
    expect(mail.body).toMatchObject({
      connection: { host: 'imap.example.com' },
      connectionState: 'disconnected',
    });
    expect(
      (await t.request('PATCH', '/api/v1/sources/ghost', { token: c.writer, body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await t.request('GET', '/api/v1/sources/crm', { token: c.stranger })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/sources/ghost', { token: c.reader })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/sources', { token: c.skillsReader })).status).toBe(403);
  });
});

describe('POST /sources/:slug/reindex', () => {
  let ids: number[];

  beforeAll(async () => {
    await t.request('POST', '/api/v1/objects/types', {
      token: c.writer,
      body: { slug: 'note', name: 'Note' },
    });
    ids = [];
    for (const [title, content] of [
      ['Quarterly planning', 'The team was running late on the roadmap.'],
      ['Hiring', 'Interview loop for the platform role.'],
      ['Offsite', 'Venue options near the lake.'],
    ]) {
      const res = await t.request('POST', '/api/v1/objects/note/instances', {
        token: c.writer,
        body: { title, content, source: 'crm' },
      });
      ids.push(res.body.id);
    }
    // A document of another source, which a pass over crm must not touch.
    const other = await t.request('POST', '/api/v1/objects/note/instances', {
      token: c.writer,
      body: { title: 'Mail about running', content: 'running shoes', source: 'mail' },
    });
    ids.push(other.body.id);
    // Lose the index, as if it had been built by an older version.
    await t.app.db.sql.query(
      `update object_instances set search = ''::tsvector, embedder = null, embedding = null, signature = null, indexed_at = null
        where org_id = $1`,
      [orgId],
    );
  });

  const search = async (q: string) =>
    (
      await t.request('GET', `/api/v1/search?q=${encodeURIComponent(q)}`, { token: c.reader })
    ).body.results.map((r: { id: number }) => r.id);

  it('202 with a reindex id; the pass completes in the background and search finds the documents again', async () => {
    expect(await search('roadmap')).toEqual([]);
    const res = await t.request('POST', '/api/v1/sources/crm/reindex', { token: c.writer });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ source: 'crm', status: 'queued', filter: {}, processed: 0 });
    expect(res.headers.get('location')).toBe(res.body.statusUrl);
    const done = await t.app.reindex.whenSettled(orgId, res.body.reindexId);
    expect(done).toMatchObject({ status: 'completed', total: 3, processed: 3, error: null });
    expect(await search('roadmap')).toEqual([ids[0]]);
    // "running" is stemmed: it finds "running" in crm's note; mail's note was not reindexed.
    expect(await search('run')).toEqual([ids[0]]);
    const status = await t.request('GET', `/api/v1/sources/crm/reindex/${res.body.reindexId}`, {
      token: c.reader,
    });
    expect(status.body).toMatchObject({
      reindexId: res.body.reindexId,
      status: 'completed',
      total: 3,
      processed: 3,
    });
    const audit = await t.app.db.sql.one<{ api_token_id: string }>(
      `select api_token_id from audit_log where org_id = $1 and action = 'source.reindex'`,
      [orgId],
    );
    expect(audit.api_token_id).toMatch(/^[a-z2-7]{16}$/);
  });

  it('202 answers the pass as queued, even when a worker has finished it before a read after the commit', async () => {
    // A read outside the request's transaction waits for the pass to settle first: what an answer
    // read after the commit showed when a worker, woken by this or another commit, was quicker
    // (`running` in a CI run). The answer is read in the transaction that queued the pass.
    const get = t.app.reindex.get.bind(t.app.reindex);
    let waited = false;
    const spy = vi.spyOn(t.app.reindex, 'get').mockImplementation(async (org, id, sql) => {
      // (Once: whenSettled reads with get too.)
      if (sql === undefined && !waited) {
        waited = true;
        await t.app.reindex.whenSettled(org, id);
      }
      return get(org, id, sql);
    });
    try {
      const res = await t.request('POST', '/api/v1/sources/crm/reindex', { token: c.writer });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'queued', processed: 0, total: null });
      expect(await t.app.reindex.whenSettled(orgId, res.body.reindexId)).toMatchObject({
        status: 'completed',
      });
    } finally {
      spy.mockRestore();
    }
  });

  it('a filter narrows the pass (ids, types, updatedSince)', async () => {
    const res = await t.request('POST', '/api/v1/sources/mail/reindex', {
      token: c.writer,
      body: { filter: { ids: [ids[3]], types: ['note'], updatedSince: '2000-01-01T00:00:00Z' } },
    });
    expect(res.status).toBe(202);
    const done = await t.app.reindex.whenSettled(orgId, res.body.reindexId);
    expect(done).toMatchObject({ status: 'completed', total: 1, processed: 1 });
    expect(await search('shoes')).toEqual([ids[3]]);
    const none = await t.request('POST', '/api/v1/sources/mail/reindex', {
      token: c.writer,
      body: { filter: { updatedSince: '2999-01-01T00:00:00Z' } },
    });
    expect(await t.app.reindex.whenSettled(orgId, none.body.reindexId)).toMatchObject({
      status: 'completed',
      total: 0,
    });
  });

  it('a type’s language change queues a pass over its instances', async () => {
    const res = await t.request('PATCH', '/api/v1/objects/types/note', {
      token: c.writer,
      body: { language: 'simple' },
    });
    expect(res.status).toBe(200);
    const run = await t.app.db.sql.one<{ id: number }>(
      `select id from reindex_runs where org_id = $1 and source_slug is null order by id desc limit 1`,
      [orgId],
    );
    expect(await t.app.reindex.whenSettled(orgId, run.id)).toMatchObject({ status: 'completed', total: 4 });
    const languages = await t.app.db.sql.query<{ language: string }>(
      'select distinct language from object_instances where org_id = $1',
      [orgId],
    );
    expect(languages).toEqual([{ language: 'simple' }]);
    expect(await search('roadmap')).toEqual([ids[0]]);
  });

  it('400 on a bad filter, 404 on an unknown or foreign source, 403 without write:resources', async () => {
    const bad = await t.request('POST', '/api/v1/sources/crm/reindex', {
      token: c.writer,
      body: { filter: { ids: ['x'], since: 1 } },
    });
    expect(bad.status).toBe(400);
    expect(fields(bad.body).sort()).toEqual(['body.filter', 'body.filter.ids.0']);
    // The filter's fields at the top level (as the first release took them) are refused, not ignored.
    const flat = await t.request('POST', '/api/v1/sources/crm/reindex', {
      token: c.writer,
      body: { ids: [1] },
    });
    expect(flat.status).toBe(400);
    expect(fields(flat.body)).toEqual(['body']);
    expect((await t.request('POST', '/api/v1/sources/ghost/reindex', { token: c.writer })).status).toBe(404);
    expect((await t.request('POST', '/api/v1/sources/crm/reindex', { token: c.stranger })).status).toBe(404);
    expect((await t.request('POST', '/api/v1/sources/crm/reindex', { token: c.reader })).status).toBe(403);
    expect((await t.request('GET', '/api/v1/sources/crm/reindex/999999', { token: c.reader })).status).toBe(
      404,
    );
  });
});
