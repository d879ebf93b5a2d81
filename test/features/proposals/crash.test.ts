/**
 * kill -9 between approval and a recorded execution, with two real `r3 serve` processes on one
 * database: the node whose worker is carrying out an approved `crm.create_note` dies after HubSpot
 * created the note but before the outcome was recorded. The other node takes the job over (its
 * liveness sweep), starts attempt 2, finds the note the dead node's attempt made (same time, same
 * body) and records it: one note in HubSpot, the proposal `executed` once.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import { request } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { connectHttp, ok } from '../../helpers/mcp.js';
import { createCliToken, type ServeProcess, spawnServe } from '../../helpers/process.js';
import { waitFor } from '../../helpers/wait.js';

describe('kill -9 of the node executing an approved proposal', () => {
  let database: TestDatabase;
  let hub: FakeHubspot;
  let token: string;
  let mcp: Client | null = null;
  const nodes: ServeProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    hub = await startFakeHubspot();
    const env = {
      DATABASE_URL: database.url,
      R3_RATE_LIMIT_PER_MIN: '0',
      R3_CONNECTORS_ALLOW_PRIVATE: 'true',
      R3_CONNECTOR_TIMEOUT: '60s',
    };
    nodes.push(...(await Promise.all([spawnServe(env), spawnServe(env)])));
    token = (await createCliToken(database.url, 'crash-org')).token;
    const url = nodes[0]?.url as string;
    const post = async (path: string, body: unknown, method = 'POST') => {
      const res = await request(url, method, path, { token, body });
      expect(res.status, res.text).toBeLessThan(300);
    };
    await post('/api/v1/sources', {
      slug: 'hubspot',
      name: 'HubSpot',
      kind: 'crm',
      connection: { baseUrl: hub.url },
    });
    await post('/api/v1/sources/hubspot/credentials', { accessToken: hub.token }, 'PUT');
    await post('/api/v1/agents', { slug: 'closer', name: 'Closer', sourceSlugs: ['hubspot'] });
    mcp = await connectHttp(url, token);
  });

  afterAll(async () => {
    await mcp?.close();
    for (const node of nodes) {
      if (node.child.exitCode === null && node.child.signalCode === null) await node.stop();
    }
    await hub?.close();
    await database?.drop();
  });

  const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);

  async function lockedBy(kind: string): Promise<string | null> {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: database.url });
    await client.connect();
    try {
      const res = await client.query(`select locked_by from jobs where kind = $1 and locked_by is not null`, [
        kind,
      ]);
      return (res.rows[0]?.locked_by as string | undefined) ?? null;
    } finally {
      await client.end();
    }
  }

  it('the surviving node finishes it: one note, executed once', async () => {
    const body = `Crash test note ${Date.now()}`;
    const { proposalId } = await ok(mcp as Client, 'propose_action', {
      action: 'crm.create_note',
      params: { body, dealId: '4242' },
      rationale: 'Log the call.',
      agent_slug: 'closer',
    });
    const notes = () => hub.requests.filter((r) => r.method === 'POST' && r.path === '/crm/v3/objects/notes');
    // The note is created, but the executing node never hears back.
    hub.fault({ applyThenHang: true });
    const url = alive()[0]?.url as string;
    const decided = await request(url, 'POST', '/api/v1/reviews/decide', {
      token,
      body: { kind: 'action', id: proposalId, action: 'approve' },
    });
    expect(decided.status, decided.text).toBe(200);
    await waitFor(() => notes().length >= 1, 'the executing node to create the note', 15_000);
    let holder: ServeProcess | undefined;
    await waitFor(
      async () => {
        const pid = Number((await lockedBy('execute_action'))?.split(':')[1]);
        holder = alive().find((n) => n.child.pid === pid);
        return holder !== undefined;
      },
      'the node that holds the execute_action job',
      15_000,
    );
    const exited = new Promise((resolve) => holder?.child.once('exit', resolve));
    holder?.child.kill('SIGKILL');
    await exited;
    const survivor = alive()[0] as ServeProcess;
    let proposal: any;
    await waitFor(
      async () => {
        proposal = (await request(survivor.url, 'GET', `/api/v1/proposals/${proposalId}`, { token })).body;
        return proposal.status === 'executed';
      },
      'the survivor to execute the proposal',
      30_000,
    );
    expect(proposal).toMatchObject({
      status: 'executed',
      attempts: 2,
      result: { created: false },
      error: null,
    });
    const stored = [...(hub.objects.get('notes')?.values() ?? [])].filter(
      (n) => (n as { properties: Record<string, unknown> }).properties.hs_note_body === body,
    );
    expect(stored).toHaveLength(1);
    expect(proposal.result.noteId).toBe((stored[0] as { id: string }).id);
    // The survivor searched for the first attempt's note and created none.
    expect(notes()).toHaveLength(1);
  });
});
