/**
 * The CRM domain tools over MCP with the official SDK client (docs/mcp.md "Domain tools"), over records synced
 * from a HubSpot-shaped server: exact totals and facets over the filter (checked against the records
 * themselves), cursor pagination that visits every record once, numeric sorts, and the agent checks
 * made at every call — unknown, inactive, denying, or not listing a crm source → FORBIDDEN; another
 * org sees nothing of this one; bad arguments → VALIDATION_FAILED naming the argument.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import { type Callers, callers, orgIdOf } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';

let t: TestApp;
let c: Callers;
let orgId: number;
let hub: FakeHubspot;
let mcp: Client;
let stranger: Client;

const STAGES = ['appointmentscheduled', 'qualifiedtobuy', 'closedwon', 'closedlost'];
const PIPELINES = ['default', 'enterprise', 'smb'];
const DEALS = 230;

interface Deal {
  id: string;
  properties: Record<string, string | null>;
}
const deals: Deal[] = [];

beforeAll(async () => {
  hub = await startFakeHubspot();
  t = await startTestApp({ R3_CONNECTORS_ALLOW_PRIVATE: 'true', R3_CONNECTOR_RETRY_BASE: '5ms' });
  c = await callers(t, 'crm-tools');
  orgId = await orgIdOf(t, 'crm-tools');
  for (const slug of ['deal', 'contact', 'company']) {
    const res = await t.request('POST', '/api/v1/objects/types', {
      token: c.writer,
      body: { slug, name: slug },
    });
    expect(res.status).toBe(201);
  }
  for (let i = 0; i < DEALS; i++) {
    const deal = hub.add('deals', {
      dealname: `Deal ${i}`,
      amount: i % 17 === 0 ? null : String((i * 37) % 1000),
      dealstage: STAGES[i % STAGES.length] as string,
      pipeline: PIPELINES[i % PIPELINES.length] as string,
    });
    deals.push(deal);
  }
  for (let i = 0; i < 12; i++)
    hub.add('contacts', { firstname: `F${i}`, lastname: 'L', email: `c${i}@x.test` });
  for (let i = 0; i < 5; i++) hub.add('companies', { name: `Co ${i}`, domain: `co${i}.test` });
  const source = {
    slug: 'hubspot',
    name: 'HubSpot',
    kind: 'crm',
    connection: { baseUrl: hub.url },
    sync: { objectTypes: { deal: 'deal', contact: 'contact', company: 'company' } },
  };
  expect((await t.request('POST', '/api/v1/sources', { token: c.writer, body: source })).status).toBe(201);
  await t.request('POST', '/api/v1/sources', {
    token: c.writer,
    body: { slug: 'inbox', name: 'Inbox', kind: 'mail', connection: { host: '127.0.0.1' } },
  });
  await t.request('PUT', '/api/v1/sources/hubspot/credentials', {
    token: c.writer,
    body: { accessToken: hub.token },
  });
  const sync = await t.request('POST', '/api/v1/sources/hubspot/sync', { token: c.writer, body: {} });
  expect(sync.status).toBe(202);
  const settled = await t.app.syncs.whenSettled(orgId, 'hubspot', sync.body.syncId, 30_000);
  expect(settled).toMatchObject({ status: 'completed', created: DEALS + 12 + 5 });
  for (const agent of [
    { slug: 'sales', name: 'Sales', sourceSlugs: ['hubspot'] },
    { slug: 'mailer', name: 'Mailer', sourceSlugs: ['inbox'] },
    { slug: 'idle', name: 'Idle', active: false, sourceSlugs: ['hubspot'] },
    { slug: 'guarded', name: 'Guarded', sourceSlugs: ['hubspot'] },
  ]) {
    expect((await t.request('POST', '/api/v1/agents', { token: c.writer, body: agent })).status).toBe(201);
  }
  // The agent manifest's `tools: {allow?, deny}` (docs/api.md "Authored resources (the workspace)"), as the applied manifest holds it.
  await t.app.db.sql.query(
    `update agents set manifest = manifest::jsonb || '{"tools": {"deny": ["get_crm_deals"]}}' where org_id = $1 and slug = 'guarded'`,
    [orgId],
  );
  mcp = await connectHttp(t.url, c.writer);
  stranger = await connectHttp(t.url, c.stranger);
});
afterAll(async () => {
  await mcp?.close();
  await stranger?.close();
  await t?.close();
  await hub?.close();
});

/** This org's records whose terms are not those of their metadata (migration 0026). */
const staleTerms = async () =>
  t.app.db.sql.query<{ id: number }>(
    `select id from object_records r
      where org_id = $1
        and terms <> array(select r3_record_term(r.org_id, r.type_slug, r.source_slug, e.key, e.value)
                             from jsonb_each_text(r.metadata) e where e.value is not null)`,
    [orgId],
  );

const count = (rows: Deal[]) => {
  const out: Record<string, number> = {};
  for (const r of rows) {
    const key = r.properties.pipeline as string;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
};

describe('get_crm_deals', () => {
  it('answers the exact total over the filter and facet counts over the whole filter', async () => {
    const won = deals.filter((d) => d.properties.dealstage === 'closedwon');
    const body = await ok(mcp, 'get_crm_deals', {
      agent_slug: 'sales',
      filter: { dealstage: 'closedwon' },
      facets: ['pipeline', 'dealstage'],
      limit: 5,
    });
    expect(body.total).toBe(won.length);
    expect(body.items).toHaveLength(5);
    expect(body.facets).toEqual({ pipeline: count(won), dealstage: { closedwon: won.length } });
    const first = won[0] as Deal;
    expect(body.items[0]).toEqual({
      id: expect.any(Number),
      externalId: first.id,
      properties: expect.objectContaining(first.properties),
    });
    expect(typeof body.nextCursor).toBe('string');
  });

  it('pages with the cursor through every match exactly once, and ends with nextCursor null', async () => {
    const matching = deals.filter((d) => d.properties.pipeline !== 'smb');
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await ok(mcp, 'get_crm_deals', {
        filter: { pipeline: ['default', 'enterprise'] },
        limit: 40,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.total).toBe(matching.length);
      seen.push(...page.items.map((i: { externalId: string }) => i.externalId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(Math.ceil(matching.length / 40));
    expect(seen).toEqual(matching.map((d) => d.id));
  });

  it('sorts numbers as numbers, descending with -, records without the property last, across pages', async () => {
    const expected = [...deals].sort((a, b) => {
      const x = a.properties.amount;
      const y = b.properties.amount;
      if (x === null || y === null) return x === y ? Number(b.id) - Number(a.id) : x === null ? 1 : -1;
      return Number(y) - Number(x) || Number(b.id) - Number(a.id);
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await ok(mcp, 'get_crm_deals', {
        sort: '-amount',
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.items.map((i: { externalId: string }) => i.externalId));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(expected.map((d) => d.id));
    const ascending = await ok(mcp, 'get_crm_deals', { sort: 'amount', limit: 3 });
    expect(ascending.items.map((i: any) => Number(i.properties.amount))).toEqual(
      deals
        .map((d) => d.properties.amount)
        .filter((a): a is string => a !== null)
        .map(Number)
        .sort((a, b) => a - b)
        .slice(0, 3),
    );
  });

  it('filters on a missing property with null, and several properties together', async () => {
    const none = await ok(mcp, 'get_crm_deals', { filter: { amount: null }, limit: 100 });
    expect(none.total).toBe(deals.filter((d) => d.properties.amount === null).length);
    const both = await ok(mcp, 'get_crm_deals', {
      filter: { dealstage: 'closedlost', pipeline: 'smb' },
      facets: ['dealstage'],
    });
    const expected = deals.filter(
      (d) => d.properties.dealstage === 'closedlost' && d.properties.pipeline === 'smb',
    );
    expect(both.total).toBe(expected.length);
    expect(both.facets).toEqual({ dealstage: { closedlost: expected.length } });
    // Three properties: a statement shape the sessions do not keep (record-queries.ts), same answers.
    const three = await ok(mcp, 'get_crm_deals', {
      filter: { dealstage: 'closedlost', pipeline: ['smb', 'default'], amount: null },
      facets: ['pipeline'],
    });
    const expectedThree = deals.filter(
      (d) =>
        d.properties.dealstage === 'closedlost' &&
        ['smb', 'default'].includes(d.properties.pipeline as string) &&
        d.properties.amount === null,
    );
    expect(three.total).toBe(expectedThree.length);
    expect(three.facets).toEqual({ pipeline: count(expectedThree) });
    const numeric = await ok(mcp, 'get_crm_deals', { filter: { amount: 37 } });
    expect(numeric.items.map((i: any) => i.externalId)).toEqual(
      deals.filter((d) => d.properties.amount === '37').map((d) => d.id),
    );
  });

  it('compares a property as its text, as an equality and in a list alike: a JSON number too', async () => {
    const amount37 = deals.filter((d) => d.properties.amount === '37').map((d) => d.id);
    const [target] = amount37;
    const setAmount = (value: string) =>
      t.app.db.sql.query(
        `update object_instances set metadata = jsonb_set(metadata, '{amount}', $3::jsonb)
          where org_id = $1 and external_id = $2 and type_slug = 'deal'`,
        [orgId, target, value],
      );
    await setAmount('37');
    try {
      for (const amount of [37, '37', [37], ['-1', '37']]) {
        const body = await ok(mcp, 'get_crm_deals', { filter: { amount }, facets: ['amount'] });
        expect(
          body.items.map((i: any) => i.externalId),
          JSON.stringify(amount),
        ).toEqual(amount37);
        expect(body.total).toBe(amount37.length);
        expect(body.facets).toEqual({ amount: { '37': amount37.length } });
      }
    } finally {
      await setAmount('"37"');
    }
  });

  it('follows every write to the instances: an archive, a metadata change, a delete, a re-sync', async () => {
    const won = deals.filter((d) => d.properties.dealstage === 'closedwon');
    const query = { filter: { dealstage: 'closedwon' }, facets: ['pipeline'], limit: 100 };
    const [first, second, third] = (await ok(mcp, 'get_crm_deals', query)).items as Array<{
      id: number;
      externalId: string;
      properties: Record<string, unknown>;
    }>;
    const patch = (id: number, body: Record<string, unknown>) =>
      t.request('PATCH', `/api/v1/objects/${id}`, { token: c.writer, body });
    expect((await patch(first?.id as number, { status: 'archived' })).status).toBe(200);
    expect(
      (await patch(second?.id as number, { metadata: { ...second?.properties, dealstage: 'closedlost' } }))
        .status,
    ).toBe(200);
    await t.app.db.sql.query('delete from object_instances where org_id = $1 and id = $2', [
      orgId,
      third?.id,
    ]);
    const gone = new Set([first?.externalId, second?.externalId, third?.externalId]);
    const left = won.filter((d) => !gone.has(d.id));
    const after = await ok(mcp, 'get_crm_deals', query);
    expect(after.total).toBe(left.length);
    expect(after.facets).toEqual({ pipeline: count(left) });
    expect(after.items.map((i: { externalId: string }) => i.externalId)).toEqual(left.map((d) => d.id));
    // The changed deal is found by its new value, as an equality and in a list: the terms that find a
    // filter's candidates (migration 0026) followed its metadata, and every record's are its own.
    for (const dealstage of ['closedlost', ['closedlost', 'nostage']]) {
      const lost = await ok(mcp, 'get_crm_deals', { filter: { dealstage }, limit: 100 });
      expect(lost.items.map((i: { externalId: string }) => i.externalId)).toContain(second?.externalId);
      expect(lost.total).toBe(deals.filter((d) => d.properties.dealstage === 'closedlost').length + 1);
    }
    expect(await staleTerms()).toEqual([]);

    // A full sync writes the upstream's records again: the changed one back, the deleted one anew.
    expect((await patch(first?.id as number, { status: 'active' })).status).toBe(200);
    const sync = await t.request('POST', '/api/v1/sources/hubspot/sync', {
      token: c.writer,
      body: { full: true },
    });
    const settled = await t.app.syncs.whenSettled(orgId, 'hubspot', sync.body.syncId, 30_000);
    expect(settled).toMatchObject({ status: 'completed', created: 1, updated: 1 });
    const restored = await ok(mcp, 'get_crm_deals', query);
    expect(restored.total).toBe(won.length);
    expect(restored.facets).toEqual({ pipeline: count(won) });
    expect(new Set(restored.items.map((i: { externalId: string }) => i.externalId))).toEqual(
      new Set(won.map((d) => d.id)),
    );
    expect(await staleTerms()).toEqual([]);
  });

  it('contacts and companies read their own object types', async () => {
    const contacts = await ok(mcp, 'get_crm_contacts', { agent_slug: 'sales', limit: 100 });
    expect(contacts.total).toBe(12);
    expect(contacts.items[0].properties).toMatchObject({ firstname: 'F0', email: 'c0@x.test' });
    const companies = await ok(mcp, 'get_crm_companies', { facets: ['domain'] });
    expect(companies.total).toBe(5);
    expect(Object.keys(companies.facets.domain)).toHaveLength(5);
    expect(companies.nextCursor).toBeNull();
  });

  it('refuses an agent that is unknown, inactive, denies the tool, or lists no crm source: FORBIDDEN', async () => {
    const cases: Array<[string, string]> = [
      ['ghost', 'unknown_agent'],
      ['idle', 'inactive_agent'],
      ['guarded', 'tool_denied'],
      ['mailer', 'source_not_listed'],
    ];
    for (const [agent, reason] of cases) {
      const error = await fails(mcp, 'get_crm_deals', { agent_slug: agent }, 'FORBIDDEN');
      expect(error.details, agent).toMatchObject({ agentSlug: agent, tool: 'get_crm_deals', reason });
    }
    // The deny names one tool: the others stay usable.
    expect((await ok(mcp, 'get_crm_contacts', { agent_slug: 'guarded' })).total).toBe(12);
  });

  it('checks the agent at every call: deactivating it refuses the next call', async () => {
    await ok(mcp, 'get_crm_deals', { agent_slug: 'sales', limit: 1 });
    const off = await t.request('PATCH', '/api/v1/agents/sales', {
      token: c.writer,
      body: { active: false },
    });
    expect(off.status).toBe(200);
    await fails(mcp, 'get_crm_deals', { agent_slug: 'sales', limit: 1 }, 'FORBIDDEN');
    await t.request('PATCH', '/api/v1/agents/sales', { token: c.writer, body: { active: true } });
    await ok(mcp, 'get_crm_deals', { agent_slug: 'sales', limit: 1 });
  });

  it('reads the agent and the sources at the version the request saw: once per version, anew after a change', async () => {
    // The statements behind the agent and the org's sources (src/features/workspace/applied.ts).
    const prepared = vi.spyOn(t.app.db.sql, 'prepared');
    const reads = () => {
      const names = prepared.mock.calls.map(([name]) => name);
      return {
        agents: names.filter((n) => n === 'applied_agents').length,
        sources: names.filter((n) => n === 'applied_sources_of_org').length,
      };
    };
    try {
      const call = () => ok(mcp, 'get_crm_deals', { agent_slug: 'sales', limit: 1 });
      await call();
      const first = reads();
      await call();
      await call();
      expect(reads()).toEqual(first);

      // Another source: a new version, whose list of sources is read once.
      const inbox = { slug: 'inbox-2', name: 'Inbox 2', kind: 'mail', connection: { host: '127.0.0.1' } };
      expect((await t.request('POST', '/api/v1/sources', { token: c.writer, body: inbox })).status).toBe(201);
      await call();
      await call();
      expect(reads()).toEqual({ agents: first.agents + 1, sources: first.sources + 1 });

      // The agent no longer lists the crm source: the next call is refused, and allowed again after.
      const patch = (sourceSlugs: string[]) =>
        t.request('PATCH', '/api/v1/agents/sales', { token: c.writer, body: { sourceSlugs } });
      expect((await patch(['inbox-2'])).status).toBe(200);
      const refused = await fails(mcp, 'get_crm_deals', { agent_slug: 'sales', limit: 1 }, 'FORBIDDEN');
      expect(refused.details).toMatchObject({ reason: 'source_not_listed' });
      expect((await patch(['hubspot'])).status).toBe(200);
      expect((await call()).total).toBe(deals.length);
    } finally {
      prepared.mockRestore();
    }
  });

  it('shows another org nothing of this one: no records, and its agents do not exist there', async () => {
    const body = await ok(stranger, 'get_crm_deals', { facets: ['pipeline'] });
    expect(body).toEqual({ items: [], total: 0, facets: { pipeline: {} }, nextCursor: null });
    await fails(stranger, 'get_crm_deals', { agent_slug: 'sales' }, 'FORBIDDEN');
  });

  it('refuses bad arguments with VALIDATION_FAILED naming the argument', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ limit: 101 }, 'arguments.limit'],
      [{ limit: 0 }, 'arguments.limit'],
      [{ filter: { 'bad name': 'x' } }, 'arguments.filter.bad name'],
      [{ filter: { stage: { nested: 1 } } }, 'arguments.filter.stage'],
      [{ sort: 'amount desc' }, 'arguments.sort'],
      [{ facets: ['ok', "x'); drop table runs; --"] }, 'arguments.facets.1'],
      [{ cursor: 'not-a-cursor' }, 'arguments.cursor'],
      [{ unknown: 1 }, 'arguments'],
    ];
    for (const [args, field] of cases) {
      const error = await fails(mcp, 'get_crm_deals', args, 'VALIDATION_FAILED');
      expect(error.details.issues[0].field, JSON.stringify(args)).toBe(field);
    }
    const page = await ok(mcp, 'get_crm_deals', { limit: 1 });
    const error = await fails(
      mcp,
      'get_crm_deals',
      { limit: 1, sort: 'amount', cursor: page.nextCursor },
      'VALIDATION_FAILED',
    );
    expect(error.details.issues[0].field).toBe('arguments.cursor');
  });

  it('counts only its own org: another org that syncs the same deals gets its own totals and facets', async () => {
    for (const body of [
      { slug: 'deal', name: 'deal' },
      {
        slug: 'hubspot',
        name: 'HubSpot',
        kind: 'crm',
        connection: { baseUrl: hub.url },
        sync: { objectTypes: { deal: 'deal' } },
      },
    ]) {
      const path = 'kind' in body ? '/api/v1/sources' : '/api/v1/objects/types';
      expect((await t.request('POST', path, { token: c.stranger, body })).status).toBe(201);
    }
    await t.request('PUT', '/api/v1/sources/hubspot/credentials', {
      token: c.stranger,
      body: { accessToken: hub.token },
    });
    const otherOrg = await orgIdOf(t, 'crm-tools-other');
    const sync = await t.request('POST', '/api/v1/sources/hubspot/sync', { token: c.stranger, body: {} });
    const settled = await t.app.syncs.whenSettled(otherOrg, 'hubspot', sync.body.syncId, 30_000);
    expect(settled).toMatchObject({ status: 'completed', created: DEALS });

    const won = deals.filter((d) => d.properties.dealstage === 'closedwon');
    const query = {
      filter: { dealstage: 'closedwon', pipeline: ['default', 'smb'] },
      facets: ['pipeline'],
      limit: 100,
    };
    const expected = won.filter((d) => d.properties.pipeline !== 'enterprise');
    const [ours, theirs] = [
      await ok(mcp, 'get_crm_deals', query),
      await ok(stranger, 'get_crm_deals', query),
    ];
    for (const body of [ours, theirs]) {
      expect(body.total).toBe(expected.length);
      expect(body.facets).toEqual({ pipeline: count(expected) });
    }
    const ids = new Set(ours.items.map((i: { id: number }) => i.id));
    expect(theirs.items.some((i: { id: number }) => ids.has(i.id))).toBe(false);
    // The same values in two orgs hash to different terms: one org's filter never reads the other's rows.
    const shared = await t.app.db.sql.query(
      `select a.id from object_records a join object_records b
          on b.org_id = $2 and b.external_id = a.external_id and b.type_slug = a.type_slug
       where a.org_id = $1 and a.terms && b.terms`,
      [orgId, otherOrg],
    );
    expect(shared).toEqual([]);
  });

  it('needs read:all over MCP', async () => {
    const invoker = await connectHttp(t.url, c.invoker);
    const error = await fails(invoker, 'get_crm_deals', {}, 'FORBIDDEN');
    expect(error.details.requiredScope).toEqual(['read:all']);
    await invoker.close();
  });
});
