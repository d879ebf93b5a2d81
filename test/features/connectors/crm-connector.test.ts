import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import { parseAction } from '../../../src/features/connectors/actions.js';
import type { Connector, SourceRecord, SyncPage } from '../../../src/features/connectors/connector.js';
import {
  createCrmConnector,
  crmConnectionSchema,
} from '../../../src/features/connectors/crm/crm-connector.js';
import { ConnectorError } from '../../../src/features/connectors/errors.js';

let hub: FakeHubspot;
const sleeps: number[] = [];
const fastRetry = {
  maxRetries: 3,
  sleep: async (ms: number) => {
    sleeps.push(ms);
  },
};

function connector(options: { token?: string; pageSize?: number; timeoutMs?: number } = {}): Connector {
  return createCrmConnector(
    crmConnectionSchema.parse({ baseUrl: hub.url, pageSize: options.pageSize ?? 100 }),
    { accessToken: options.token ?? hub.token },
    { retry: fastRetry, timeoutMs: options.timeoutMs ?? 2_000 },
  );
}

async function syncAll(c: Connector, record: string, since: string | null = null): Promise<SyncPage[]> {
  const pages: SyncPage[] = [];
  let cursor: string | null = null;
  do {
    const page = await c.syncPage({ record, cursor, since });
    pages.push(page);
    cursor = page.next;
  } while (cursor !== null);
  return pages;
}

function action(name: 'crm.update_deal' | 'crm.create_note', params: unknown) {
  const parsed = parseAction(name, params);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
}

beforeAll(async () => {
  hub = await startFakeHubspot();
});
afterAll(() => hub.close());
afterEach(() => {
  sleeps.length = 0;
  for (const store of hub.objects.values()) store.clear();
  hub.requests.length = 0;
});

describe('crm connector (HubSpot CRM v3)', () => {
  it('checks the connection with the account details', async () => {
    await expect(connector().check()).resolves.toEqual({ account: `HubSpot portal ${hub.portalId}` });
  });

  it('refuses wrong credentials with HubSpot’s message and never the token', async () => {
    const secret = 'pat-na1-wrong-secret-value';
    const error = await connector({ token: secret })
      .check()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).code).toBe('AUTH_FAILED');
    expect((error as ConnectorError).message).toMatch(/401: Authentication credentials not found/);
    expect((error as ConnectorError).message).not.toContain(secret);
    expect(sleeps).toEqual([]);
  });

  it('pages deals with `after`, sorted by id, with the properties as metadata', async () => {
    for (let i = 0; i < 250; i++)
      hub.add('deals', { dealname: `Deal ${i}`, amount: String(i * 10), dealstage: i % 2 ? 'won' : 'open' });
    const pages = await syncAll(connector(), 'deal');
    expect(pages.map((p) => p.records.length)).toEqual([100, 100, 50]);
    const records = pages.flatMap((p) => p.records);
    expect(new Set(records.map((r) => r.externalId)).size).toBe(250);
    const ids = records.map((r) => Number(r.externalId));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(records[3]).toMatchObject({
      title: 'Deal 3',
      metadata: { dealname: 'Deal 3', amount: '30', dealstage: 'won' },
    });
    expect(records[3]?.content).toContain('dealname: Deal 3');
    const searches = hub.requests.filter((r) => r.path === '/crm/v3/objects/deals/search');
    expect(searches.map((r) => (r.body as { after?: string }).after)).toEqual([undefined, '100', '200']);
  });

  it('pages past the 10,000-result window of one search by restarting after the last id', async () => {
    for (let i = 0; i < 10_150; i++)
      hub.add('contacts', { firstname: `F${i}`, lastname: 'L', email: `c${i}@example.com` });
    const pages = await syncAll(connector({ pageSize: 200 }), 'contact');
    const records = pages.flatMap((p) => p.records);
    expect(records).toHaveLength(10_150);
    expect(new Set(records.map((r) => r.externalId)).size).toBe(10_150);
    expect(records[0]?.title).toBe('F0 L');
    const restarts = hub.requests.filter(
      (r) => r.path.endsWith('/search') && (r.body as { after?: string }).after === undefined,
    );
    expect(restarts.length).toBe(2);
  });

  it('reads only what changed since the last sync when asked', async () => {
    hub.add('companies', { name: 'Old' }, { updatedAt: '2024-01-01T00:00:00.000Z' });
    hub.add('companies', { name: 'New' }, { updatedAt: '2024-06-01T00:00:00.000Z' });
    const pages = await syncAll(connector(), 'company', '2024-03-01T00:00:00.000Z');
    expect(pages.flatMap((p) => p.records).map((r) => r.title)).toEqual(['New']);
  });

  it('skips and reports malformed objects, and goes on', async () => {
    hub.add('deals', { dealname: 'Good 1' }, { id: '10' });
    hub.addRaw('deals', '11', { id: 'not-a-number', properties: {} });
    hub.addRaw('deals', '12', { id: '12', properties: 'oops' });
    hub.addRaw('deals', '13', { id: '13', properties: { amount: 5 } });
    hub.add('deals', { dealname: 'Good 2' }, { id: '14' });
    const [page] = await syncAll(connector(), 'deal');
    expect(page?.records.map((r) => r.externalId)).toEqual(['10', '14']);
    expect(page?.skipped).toEqual([
      { externalId: 'not-a-number', reason: 'the object has no valid id' },
      { externalId: '12', reason: 'the object has no properties object' },
      { externalId: '13', reason: 'property "amount" is not a string' },
    ]);
  });

  it('honours Retry-After on a 429 and retries', async () => {
    hub.add('deals', { dealname: 'A' });
    hub.fault({ status: 429, retryAfter: '2' }, 2);
    const [page] = await syncAll(connector(), 'deal');
    expect(page?.records).toHaveLength(1);
    expect(sleeps).toEqual([2_000, 2_000]);
  });

  it('gives up with RATE_LIMITED when Retry-After is longer than a request may wait', async () => {
    hub.fault({ status: 429, retryAfter: '3600' });
    const error = (await connector()
      .check()
      .catch((e: unknown) => e)) as ConnectorError;
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(error.details.retryAfterMs).toBe(3_600_000);
  });

  it('retries a timed-out attempt and a 5xx with backoff, then fails with TIMEOUT when it never answers', async () => {
    hub.add('deals', { dealname: 'A' });
    hub.fault({ delayMs: 400 });
    hub.fault({ status: 503 });
    const [page] = await syncAll(connector({ timeoutMs: 150 }), 'deal');
    expect(page?.records).toHaveLength(1);
    expect(sleeps).toHaveLength(2);
    sleeps.length = 0;
    hub.fault({ delayMs: 400 }, 4);
    const error = (await connector({ timeoutMs: 100 })
      .check()
      .catch((e: unknown) => e)) as ConnectorError;
    expect(error.code).toBe('TIMEOUT');
    expect(sleeps).toHaveLength(3);
  });

  it('fetches one record live, or null when HubSpot has none', async () => {
    const deal = hub.add('deals', { dealname: 'Live', amount: '5' });
    const record = (await connector().fetchRecord('deal', deal.id)) as SourceRecord;
    expect(record).toMatchObject({ externalId: deal.id, title: 'Live', metadata: { amount: '5' } });
    await expect(connector().fetchRecord('deal', '999999')).resolves.toBeNull();
    await expect(connector().fetchRecord('deal', '../admin')).resolves.toBeNull();
  });

  it('updates a deal', async () => {
    const deal = hub.add('deals', { dealname: 'D', dealstage: 'open' });
    const result = await connector().execute({
      action: action('crm.update_deal', {
        dealId: deal.id,
        properties: { dealstage: 'closedwon', amount: 1200 },
      }),
      idempotencyKey: 'p1',
      previousAttempts: 0,
      firstAttemptAt: new Date().toISOString(),
    });
    expect(result).toMatchObject({ dealId: deal.id, properties: { dealstage: 'closedwon', amount: '1200' } });
    expect(deal.properties).toMatchObject({ dealstage: 'closedwon', amount: '1200' });
  });

  it('creates a note associated with a deal, and a retry finds it instead of creating another', async () => {
    const deal = hub.add('deals', { dealname: 'D' });
    const request = {
      action: action('crm.create_note', { body: 'Called the buyer', dealId: deal.id }),
      idempotencyKey: 'p2',
      previousAttempts: 0,
      firstAttemptAt: '2025-01-02T03:04:05.678Z',
    };
    const first = await connector().execute(request);
    expect(first).toMatchObject({ created: true });
    const notes = [...(hub.objects.get('notes')?.values() ?? [])] as Array<{
      properties: Record<string, string>;
      associations: unknown;
    }>;
    expect(notes).toHaveLength(1);
    expect(notes[0]?.properties).toMatchObject({
      hs_note_body: 'Called the buyer',
      hs_timestamp: String(Date.parse(request.firstAttemptAt)),
    });
    expect(notes[0]?.associations).toEqual([
      { to: { id: deal.id }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 214 }] },
    ]);
    const again = await connector().execute({ ...request, previousAttempts: 1 });
    expect(again).toEqual({ noteId: first.noteId, created: false });
    expect(hub.objects.get('notes')?.size).toBe(1);
  });

  it('refuses an action of another kind and a record kind it does not have', async () => {
    await expect(connector().syncPage({ record: 'ticket', cursor: null, since: null })).rejects.toMatchObject(
      {
        code: 'REJECTED',
      },
    );
  });
});
