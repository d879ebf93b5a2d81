/**
 * A source's connection through HTTP, against a HubSpot-shaped server: credentials stored sealed and
 * never shown, connection checks, syncs into object instances (upserted by external id, never
 * duplicated, malformed records skipped and counted), and the faults of docs/api.md "Sources and connectors" — wrong
 * credentials, 429s, an upstream that is down and comes back — plus scheduled syncs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../../fakes/hubspot-server.js';
import { type Callers, callers, fields, orgIdOf } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let c: Callers;
let orgId: number;
let hub: FakeHubspot;

const dealSchema = {
  type: 'object',
  properties: { dealname: { type: 'string', minLength: 1 }, amount: { type: ['string', 'null'] } },
  required: ['dealname'],
};

beforeAll(async () => {
  hub = await startFakeHubspot();
  t = await startTestApp({
    R3_CONNECTORS_ALLOW_PRIVATE: 'true',
    R3_CONNECTOR_RETRY_BASE: '5ms',
    R3_CONNECTOR_TIMEOUT: '2s',
  });
  c = await callers(t, 'conn-org');
  orgId = await orgIdOf(t, 'conn-org');
  for (const body of [
    { slug: 'deal', name: 'Deal', schema: dealSchema },
    { slug: 'contact', name: 'Contact' },
  ]) {
    expect((await t.request('POST', '/api/v1/objects/types', { token: c.writer, body })).status).toBe(201);
  }
  const source = {
    slug: 'hubspot',
    name: 'HubSpot',
    kind: 'crm',
    connection: { baseUrl: hub.url, pageSize: 50 },
    sync: { objectTypes: { deal: 'deal', contact: 'contact' } },
  };
  expect((await t.request('POST', '/api/v1/sources', { token: c.writer, body: source })).status).toBe(201);
  await t.request('POST', '/api/v1/sources', {
    token: c.writer,
    body: { slug: 'web', name: 'Web', kind: 'http' },
  });
  await t.request('POST', '/api/v1/sources', {
    token: c.writer,
    body: { slug: 'unmapped', name: 'No mapping', kind: 'crm', connection: { baseUrl: hub.url } },
  });
});
afterAll(async () => {
  await t.close();
  await hub.close();
});

const put = (slug: string, body: unknown, token = c.writer) =>
  t.request('PUT', `/api/v1/sources/${slug}/credentials`, { token, body });

async function syncAndWait(slug = 'hubspot', body: unknown = {}) {
  const res = await t.request('POST', `/api/v1/sources/${slug}/sync`, { token: c.writer, body });
  expect(res.status).toBe(202);
  const settled = await t.app.syncs.whenSettled(orgId, slug, res.body.syncId, 20_000);
  const read = await t.request('GET', `/api/v1/sources/${slug}/syncs/${res.body.syncId}`, {
    token: c.reader,
  });
  expect(read.body).toEqual(settled);
  return settled;
}

const instances = (type: string) =>
  t.app.db.sql.query<{ external_id: string; title: string; metadata: Record<string, unknown> }>(
    `select external_id, title, metadata from object_instances where org_id = $1 and type_slug = $2 order by external_id`,
    [orgId, type],
  );

describe('PUT /sources/:slug/credentials', () => {
  it('stores them sealed; answers and views show only credentialsSet and credentialsUpdatedAt', async () => {
    const secret = 'pat-na1-never-echo-me';
    const res = await put('hubspot', { accessToken: secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      source: 'hubspot',
      credentialsSet: true,
      credentialsUpdatedAt: expect.any(String),
      connectionState: 'disconnected',
      connectionError: null,
    });
    const detail = await t.request('GET', '/api/v1/sources/hubspot', { token: c.reader });
    expect(detail.body).toMatchObject({ credentialsSet: true, connectionState: 'disconnected' });
    const list = await t.request('GET', '/api/v1/sources', { token: c.reader });
    for (const text of [JSON.stringify(res.body), JSON.stringify(detail.body), JSON.stringify(list.body)]) {
      expect(text).not.toContain(secret);
    }
    const [row] = await t.app.db.sql.query<{ credentials: string }>(
      `select credentials from source_connections where org_id = $1 and source_slug = 'hubspot'`,
      [orgId],
    );
    expect(row?.credentials).toMatch(/^v1:/);
    expect(row?.credentials).not.toContain(secret);
    const audit = await t.app.db.sql.query<{ details: unknown }>(
      `select details from audit_log where org_id = $1 and action = 'source.credentials'`,
      [orgId],
    );
    expect(audit.map((a) => a.details)).toEqual([{ fields: ['accessToken'] }]);
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('400 on a body the kind does not take, and for a kind without connector; 404 unknown or foreign; 403 without the scope', async () => {
    const missing = await put('hubspot', {});
    expect(missing.status).toBe(400);
    expect(fields(missing.body)).toEqual(['body.accessToken']);
    const extra = await put('hubspot', { accessToken: 'x', password: 'y' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe('VALIDATION_FAILED');
    const notJson = await t.request('PUT', '/api/v1/sources/hubspot/credentials', {
      token: c.writer,
      rawBody: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const web = await put('web', { accessToken: 'x' });
    expect(web.status).toBe(400);
    expect(fields(web.body)).toEqual(['params.slug']);
    expect((await put('ghost', { accessToken: 'x' })).status).toBe(404);
    expect((await put('hubspot', { accessToken: 'x' }, c.stranger)).status).toBe(404);
    expect((await put('hubspot', { accessToken: 'x' }, c.reader)).status).toBe(403);
  });
});

describe('POST /sources/:slug/test', () => {
  const test = (slug: string, token = c.writer) =>
    t.request('POST', `/api/v1/sources/${slug}/test`, { token });

  it('wrong credentials: state error with HubSpot’s message, never the secret; right ones: connected', async () => {
    await put('hubspot', { accessToken: 'pat-wrong-secret' });
    const bad = await test('hubspot');
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({
      connectionState: 'error',
      connectionError: expect.stringMatching(/^HubSpot answered 401: Authentication credentials not found/),
    });
    expect(JSON.stringify(bad.body)).not.toContain('pat-wrong-secret');
    const detail = await t.request('GET', '/api/v1/sources/hubspot', { token: c.reader });
    expect(detail.body).toMatchObject({
      connectionState: 'error',
      connectionError: bad.body.connectionError,
    });

    await put('hubspot', { accessToken: hub.token });
    const good = await test('hubspot');
    expect(good.body).toMatchObject({ connectionState: 'connected', connectionError: null });
  });

  it('a source without credentials fails its check; 400 for a kind without connector; 404; 403', async () => {
    const none = await test('unmapped');
    expect(none.body).toMatchObject({
      connectionState: 'error',
      connectionError: expect.stringMatching(/no credentials/),
    });
    expect((await test('web')).status).toBe(400);
    expect((await test('ghost')).status).toBe(404);
    expect((await test('hubspot', c.stranger)).status).toBe(404);
    expect((await test('hubspot', c.reader)).status).toBe(403);
  });
});

describe('the connection target and its credentials', () => {
  const source = (baseUrl: string) => ({
    slug: 'pinned',
    name: 'Pinned',
    kind: 'crm',
    connection: { baseUrl, pageSize: 50 },
  });
  const detail = async () => (await t.request('GET', '/api/v1/sources/pinned', { token: c.reader })).body;

  it('a role that may not manage credentials can neither move the target nor set them; the token never leaves', async () => {
    const evil = await startFakeHubspot();
    try {
      expect(
        (await t.request('POST', '/api/v1/sources', { token: c.writer, body: source(hub.url) })).status,
      ).toBe(201);
      expect((await put('pinned', { accessToken: hub.token })).status).toBe(200);
      const specialist = (
        await t.token({
          org: 'conn-org',
          role: 'specialist',
          scopes: ['read:all', 'write:resources', 'run:invoke'],
        })
      ).token;
      const moved = await t.request('PATCH', '/api/v1/sources/pinned', {
        token: specialist,
        body: { connection: { baseUrl: evil.url, pageSize: 50 } },
      });
      expect(moved.status).toBe(403);
      expect(moved.body.error).toMatchObject({
        code: 'FORBIDDEN',
        details: { sources: ['pinned'], roles: ['owner', 'pm'] },
      });
      expect((await put('pinned', { accessToken: 'pat-mine' }, specialist)).status).toBe(403);
      // Settings that do not move the target stay theirs to change.
      const paged = await t.request('PATCH', '/api/v1/sources/pinned', {
        token: specialist,
        body: { connection: { baseUrl: hub.url, pageSize: 20 } },
      });
      expect(paged.status).toBe(200);
      expect(await detail()).toMatchObject({
        connection: { baseUrl: hub.url, pageSize: 20 },
        credentialsSet: true,
      });
      const checked = await t.request('POST', '/api/v1/sources/pinned/test', { token: specialist });
      expect(checked.body).toMatchObject({ connectionState: 'connected' });
      expect(evil.requests).toEqual([]);
    } finally {
      await evil.close();
    }
  });

  it('moving the target clears the stored credentials: nothing is sent to the new host until they are set again', async () => {
    const elsewhere = await startFakeHubspot();
    try {
      expect((await put('pinned', { accessToken: hub.token })).status).toBe(200);
      const moved = await t.request('PATCH', '/api/v1/sources/pinned', {
        token: c.writer,
        body: { connection: { baseUrl: elsewhere.url } },
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ credentialsSet: false, credentialsUpdatedAt: null });
      const checked = await t.request('POST', '/api/v1/sources/pinned/test', { token: c.writer });
      expect(checked.body).toMatchObject({
        connectionState: 'error',
        connectionError: expect.stringMatching(/no credentials/),
      });
      expect(elsewhere.requests).toEqual([]);
      // Set again for the new host, they go there.
      expect((await put('pinned', { accessToken: elsewhere.token })).status).toBe(200);
      const again = await t.request('POST', '/api/v1/sources/pinned/test', { token: c.writer });
      expect(again.body).toMatchObject({ connectionState: 'connected' });
      expect(elsewhere.requests.length).toBeGreaterThan(0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('credentials stored with another target', () => {
  const target = (value: string | null) =>
    t.app.db.sql.query(
      `update source_connections set credentials_target = $2 where org_id = $1 and source_slug = 'hubspot'`,
      [orgId, value],
    );
  const check = () => t.request('POST', '/api/v1/sources/hubspot/test', { token: c.writer });

  it('are never used; credentials stored before targets were kept are bound to the target they are first used with', async () => {
    expect((await put('hubspot', { accessToken: hub.token })).status).toBe(200);
    const served = hub.requests.length;
    await target('["crm","https://elsewhere.example/"]');
    expect((await check()).body).toMatchObject({
      connectionState: 'error',
      connectionError: expect.stringMatching(/connection target changed/),
    });
    expect(hub.requests.length).toBe(served);
    await target(null);
    expect((await check()).body).toMatchObject({ connectionState: 'connected' });
    const [row] = await t.app.db.sql.query<{ credentials_target: string }>(
      `select credentials_target from source_connections where org_id = $1 and source_slug = 'hubspot'`,
      [orgId],
    );
    expect(JSON.parse(row?.credentials_target ?? 'null')).toEqual(['crm', new URL(hub.url).href]);
  });
});

describe('POST /sources/:slug/sync', () => {
  it('upserts deals and contacts into instances by external id; skips malformed records and counts them', async () => {
    const old = { updatedAt: '2024-01-01T00:00:00.000Z' };
    for (let i = 0; i < 120; i++) {
      hub.add('deals', { dealname: `Deal ${i}`, amount: String(i), dealstage: 'open' }, old);
    }
    for (let i = 0; i < 30; i++) {
      hub.add('contacts', { firstname: `C${i}`, lastname: 'X', email: `c${i}@x.test` }, old);
    }
    hub.addRaw('deals', '999999', { id: '999999', properties: 'broken' });
    hub.add('deals', { dealname: '' }, { id: '1000000', ...old }); // fails the type's schema (minLength 1)
    const sync = await syncAndWait();
    expect(sync).toMatchObject({
      status: 'completed',
      trigger: 'api',
      since: null,
      created: 150,
      updated: 0,
      skipped: 2,
      error: null,
    });
    const deals = await instances('deal');
    expect(deals).toHaveLength(120);
    expect(new Set(deals.map((d) => d.external_id)).size).toBe(120);
    const list = await t.request('GET', '/api/v1/objects?type=deal&limit=1', { token: c.reader });
    expect(list.body.objects[0]).toMatchObject({
      source: 'hubspot',
      externalId: expect.stringMatching(/^\d+$/),
    });
    const detail = await t.request('GET', '/api/v1/sources/hubspot', { token: c.reader });
    expect(detail.body).toMatchObject({ connectionState: 'connected', connectionError: null });
    // Indexed for search.
    const found = await t.request('GET', '/api/v1/search?q=Deal%2042', { token: c.reader });
    expect(found.body.results.length).toBeGreaterThan(0);
  });

  it('a second sync reads what changed since the first: updates, never duplicates', async () => {
    const [deal] = [...(hub.objects.get('deals')?.values() ?? [])] as Array<{
      id: string;
      properties: Record<string, string>;
    }>;
    const later = new Date(Date.now() + 60_000).toISOString();
    Object.assign(deal?.properties ?? {}, { amount: '5000', hs_lastmodifieddate: String(Date.parse(later)) });
    hub.add('deals', { dealname: 'Brand new' }, { updatedAt: later });
    const searches = hub.requests.length;
    const sync = await syncAndWait();
    // The fake serves its unreadable record whatever the filter: skipped again.
    expect(sync).toMatchObject({ status: 'completed', created: 1, updated: 1, skipped: 1 });
    expect(sync.since).not.toBeNull();
    // Incremental: one page per record kind, not the 3 pages of deals a full read takes.
    expect(hub.requests.length - searches).toBe(2);
    const deals = await instances('deal');
    expect(deals).toHaveLength(121);
    expect(deals.find((d) => d.external_id === deal?.id)?.metadata).toMatchObject({ amount: '5000' });
    // A full sync reads everything again and changes nothing.
    const full = await syncAndWait('hubspot', { full: true });
    expect(full).toMatchObject({ status: 'completed', since: null, created: 0, updated: 0, skipped: 2 });
    expect(await instances('deal')).toHaveLength(121);
  });

  it('202 answers the sync as it started, even when it has finished before a read after the commit', async () => {
    // As sources.test's reindex: a read outside the request's transaction waits for the sync to
    // settle first, as a quick worker would have made it; the answer is read in the transaction.
    const get = t.app.syncs.get.bind(t.app.syncs);
    let waited = false;
    const spy = vi.spyOn(t.app.syncs, 'get').mockImplementation(async (org, slug, id, sql) => {
      // (Once: whenSettled reads with get too.)
      if (sql === undefined && !waited) {
        waited = true;
        await t.app.syncs.whenSettled(org, slug, id, 20_000);
      }
      return get(org, slug, id, sql);
    });
    try {
      const res = await t.request('POST', '/api/v1/sources/hubspot/sync', { token: c.writer });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'running', completedAt: null, created: 0 });
      expect(await t.app.syncs.whenSettled(orgId, 'hubspot', res.body.syncId, 20_000)).toMatchObject({
        status: 'completed',
      });
    } finally {
      spy.mockRestore();
    }
  });

  it('waits out 429s with Retry-After inside the sync', async () => {
    hub.fault({ status: 429, retryAfter: '0' }, 3);
    const sync = await syncAndWait('hubspot', { full: true });
    expect(sync).toMatchObject({ status: 'completed', created: 0 });
  });

  it('an upstream that stays down: the sync stays running with the error, and completes once it is back', async () => {
    hub.fault({ status: 503 }, 5);
    const res = await t.request('POST', '/api/v1/sources/hubspot/sync', {
      token: c.writer,
      body: { full: true },
    });
    const id = res.body.syncId;
    let view = res.body;
    for (let i = 0; i < 100 && view.error === null; i++) {
      await new Promise((r) => setTimeout(r, 20));
      view = (await t.request('GET', `/api/v1/sources/hubspot/syncs/${id}`, { token: c.reader })).body;
    }
    expect(view).toMatchObject({ status: 'running', error: expect.stringMatching(/HubSpot answered 503/) });
    // The job's retry waits on the (manual) clock; move it past the backoff.
    t.clock.advance(60_000);
    const settled = await t.app.syncs.whenSettled(orgId, 'hubspot', id, 20_000);
    expect(settled).toMatchObject({ status: 'completed', error: null });
  });

  it('wrong credentials fail the sync and set the source to error with the connector’s message', async () => {
    await put('hubspot', { accessToken: 'pat-revoked' });
    const sync = await syncAndWait();
    expect(sync).toMatchObject({ status: 'failed', error: expect.stringMatching(/^HubSpot answered 401/) });
    const detail = await t.request('GET', '/api/v1/sources/hubspot', { token: c.reader });
    expect(detail.body).toMatchObject({ connectionState: 'error', connectionError: sync.error });
    expect(JSON.stringify(detail.body)).not.toContain('pat-revoked');
    await put('hubspot', { accessToken: hub.token });
  });

  it('answers the running sync instead of starting a second', async () => {
    hub.fault({ delayMs: 300 });
    const first = await t.request('POST', '/api/v1/sources/hubspot/sync', { token: c.writer });
    const second = await t.request('POST', '/api/v1/sources/hubspot/sync', { token: c.writer });
    expect(second.status).toBe(202);
    expect(second.body.syncId).toBe(first.body.syncId);
    await t.app.syncs.whenSettled(orgId, 'hubspot', first.body.syncId, 20_000);
  });

  it('409 without credentials; 400 without sync.objectTypes, for a kind without connector, on a bad body; 404; 403', async () => {
    await t.request('POST', '/api/v1/sources', {
      token: c.writer,
      body: { slug: 'nocreds', name: 'x', kind: 'crm', sync: { objectTypes: { deal: 'deal' } } },
    });
    const sync = (slug: string, token = c.writer, body: unknown = {}) =>
      t.request('POST', `/api/v1/sources/${slug}/sync`, { token, body });
    const noCreds = await sync('nocreds');
    expect(noCreds.status).toBe(409);
    expect(noCreds.body.error.code).toBe('CONFLICT');
    await put('unmapped', { accessToken: hub.token });
    expect((await sync('unmapped')).status).toBe(400);
    expect((await sync('web')).status).toBe(400);
    const bad = await sync('hubspot', c.writer, { full: 'yes' });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['body.full']);
    expect((await sync('ghost')).status).toBe(404);
    expect((await sync('hubspot', c.stranger)).status).toBe(404);
    expect((await sync('hubspot', c.reader)).status).toBe(403);
  });

  it('GET /sources/:slug/syncs/:id: 404 for an unknown id, another source’s, another org’s; 403 without read', async () => {
    const sync = await syncAndWait();
    const get = (path: string, token = c.reader) => t.request('GET', path, { token });
    expect((await get(`/api/v1/sources/hubspot/syncs/${sync.syncId}`)).status).toBe(200);
    expect((await get('/api/v1/sources/hubspot/syncs/999999')).status).toBe(404);
    expect((await get('/api/v1/sources/hubspot/syncs/abc')).status).toBe(404);
    expect((await get(`/api/v1/sources/unmapped/syncs/${sync.syncId}`)).status).toBe(404);
    expect((await get(`/api/v1/sources/hubspot/syncs/${sync.syncId}`, c.stranger)).status).toBe(404);
    expect((await get(`/api/v1/sources/hubspot/syncs/${sync.syncId}`, c.invoker)).status).toBe(403);
  });
});

describe('sync.everyMinutes', () => {
  it('starts a sync when due, from the durable schedule, and again an interval later', async () => {
    const patch = await t.request('PATCH', '/api/v1/sources/hubspot', {
      token: c.writer,
      body: { sync: { objectTypes: { deal: 'deal' }, everyMinutes: 30 } },
    });
    expect(patch.status).toBe(200);
    const scheduled = () =>
      t.app.db.sql.query<{ id: number; status: string }>(
        `select id, status from source_syncs where org_id = $1 and trigger = 'schedule' order by id`,
        [orgId],
      );
    expect(await t.app.sweepSyncSchedules()).toBe(1);
    expect(await t.app.sweepSyncSchedules()).toBe(0);
    await t.app.jobs.drain();
    expect(await scheduled()).toEqual([]);
    t.clock.advance(30 * 60_000 + 1);
    await t.app.jobs.drain();
    const [first] = await scheduled();
    expect(first).toBeDefined();
    await t.app.syncs.whenSettled(orgId, 'hubspot', first?.id ?? 0, 20_000);
    t.clock.advance(30 * 60_000 + 1);
    await t.app.jobs.drain();
    expect(await scheduled()).toHaveLength(2);
  });

  it('400 for a record kind the kind does not sync, a type mapped twice, an unknown type, a bad interval', async () => {
    const res = await t.request('POST', '/api/v1/sources', {
      token: c.writer,
      body: {
        slug: 'badsync',
        name: 'x',
        kind: 'crm',
        sync: {
          objectTypes: { ticket: 'deal', deal: 'ghost', contact: 'contact', company: 'contact' },
          everyMinutes: 0,
        },
      },
    });
    expect(res.status).toBe(400);
    expect(fields(res.body).sort()).toEqual([
      'body.sync.everyMinutes',
      'body.sync.objectTypes.company',
      'body.sync.objectTypes.ticket',
    ]);
    const unknownType = await t.request('POST', '/api/v1/sources', {
      token: c.writer,
      body: { slug: 'badsync', name: 'x', kind: 'crm', sync: { objectTypes: { deal: 'ghost' } } },
    });
    expect(unknownType.status).toBe(400);
    expect(JSON.stringify(unknownType.body)).toMatch(/ghost/);
  });
});
