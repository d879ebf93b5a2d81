/**
 * `object.created`: written to the outbox in the ingest's own transaction (one row per instance),
 * published on `evt.<org>.object.<id>.created` with `{eventId, orgId, objectId, slug, title, createdAt}`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ATTRIBUTION } from '../../../src/platform/auth/attribution.js';
import type { BusMessage } from '../../../src/platform/bus/bus.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { orgIdOf } from '../../helpers/runs.js';
import { createCollector } from '../../helpers/wait.js';
import { createObjectType } from '../../helpers/webhooks.js';

let t: TestApp;
let token: string;
let org: number;
const published = createCollector<BusMessage>();

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  token = (await t.token({ scopes: ALL_SCOPES })).token;
  org = await orgIdOf(t.app);
  await createObjectType(t, token);
  await t.app.bus.subscribe('evt.*.object.>', (msg) => published.push(msg));
});
afterAll(() => t?.close());

describe('object.created', () => {
  it('is published for an ingested instance', async () => {
    const res = await t.request('POST', '/api/v1/objects/ticket/instances', {
      token,
      body: { title: 'Printer on fire', metadata: {}, content: 'help' },
    });
    expect(res.status).toBe(201);
    const all = await published.until(
      (items) => items.some((m) => m.subject === `evt.${org}.object.${res.body.id}.created`),
      'object.created on the bus',
    );
    const msg = all.find((m) => m.subject === `evt.${org}.object.${res.body.id}.created`) as BusMessage;
    const payload = msg.json<Record<string, unknown>>();
    expect(payload).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      orgId: org,
      objectId: res.body.id,
      slug: 'ticket',
      title: 'Printer on fire',
      createdAt: res.body.createdAt,
    });
    expect(msg.msgId).toBe(payload.eventId);
  });

  it('writes one outbox row per instance of a batch, and none for a refused ingest', async () => {
    // Rows are read before the relay publishes (and deletes) them.
    await t.app.outbox.stop();
    try {
      const before = await t.app.db.sql.one<{ n: number }>(
        `select count(*)::int as n from outbox where subject like 'evt.%.object.%.created'`,
      );
      const created = await t.app.objects.ingestMany(org, CLI_ATTRIBUTION, 'ticket', [
        { title: 'a', metadata: {}, content: '' },
        { title: 'b', metadata: {}, content: '' },
        { title: 'c', metadata: {}, content: '' },
      ]);
      const rows = await t.app.db.sql.query<{ subject: string; payload: { title: string } }>(
        `select subject, payload from outbox where subject like 'evt.%.object.%.created' order by id`,
      );
      expect(rows.length - before.n).toBe(3);
      expect(rows.slice(-3).map((r) => r.subject)).toEqual(
        created.map((o) => `evt.${org}.object.${o.id}.created`),
      );
      expect(rows.slice(-3).map((r) => r.payload.title)).toEqual(['a', 'b', 'c']);

      const refused = await t.request('POST', '/api/v1/objects/ghost/instances', {
        token,
        body: { title: 'x', metadata: {}, content: '' },
      });
      expect(refused.status).toBe(404);
      const after = await t.app.db.sql.one<{ n: number }>(
        `select count(*)::int as n from outbox where subject like 'evt.%.object.%.created'`,
      );
      expect(after.n).toBe(before.n + 3);
    } finally {
      t.app.outbox.start();
    }
  });
});
