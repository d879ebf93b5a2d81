/**
 * A run created and driven on one r3 process, streamed from another: the events reach the second
 * process through NATS (two `r3 serve` children on one database and one NATS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/db.js';
import { deleteTestStreams, probeNats, randomTestPrefix, requireNats } from '../../../helpers/nats.js';
import { createCliToken, type ServeProcess, spawnServe } from '../../../helpers/process.js';
import { openSse } from '../../../helpers/sse.js';
import { withTimeout } from '../../../helpers/wait.js';

const nats = await probeNats();

describe.skipIf(nats.skip)('an event stream on another process (NATS)', () => {
  let database: TestDatabase;
  let a: ServeProcess;
  let b: ServeProcess;
  let token: string;
  const prefix = randomTestPrefix('sse');

  beforeAll(async () => {
    requireNats(nats);
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url,
      NATS_URL: nats.url,
      R3_BUS_PREFIX: prefix,
      R3_SECRET_KEY: 'cross-process-test-secret-key-0123456789',
      R3_RATE_LIMIT_PER_MIN: '0',
    };
    [a, b] = await Promise.all([spawnServe(env), spawnServe(env)]);
    token = (await createCliToken(database.url, 'xproc')).token;
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
    await deleteTestStreams(nats, [prefix]);
  });

  it('streams the events of a run created on the other process, live, until it ends', async () => {
    const skill = await request(b.url, 'POST', '/api/v1/skills', {
      token,
      body: {
        manifest: { slug: 'draft', name: 'Draft', requiresApproval: true },
        promptMd: 'Draft: {{input.text}}',
      },
    });
    expect(skill.status, skill.text).toBe(201);
    const run = await request(b.url, 'POST', '/api/v1/skills/draft/runs', {
      token,
      body: { input: { text: 'hi' } },
    });
    expect(run.status, run.text).toBe(202);
    const runId = run.body.runId as number;

    const client = await openSse(a.url, `/api/v1/runs/${runId}/stream`, { token });
    expect(client.status).toBe(200);
    await client.events.until(
      (all) => all.some((e) => e.event === 'paused_for_review'),
      'paused_for_review on the other process',
      15_000,
    );
    const approve = await request(b.url, 'POST', `/api/v1/runs/${runId}/approve`, { token, body: {} });
    expect(approve.status, approve.text).toBe(200);
    await withTimeout(client.ended, 'the stream to end after approved', 15_000);
    expect(client.events.items.map((e) => e.event)).toEqual([
      'started',
      'step_started',
      'step_completed',
      'paused_for_review',
      'approved',
    ]);
    expect(client.events.items.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5]);
  });
});
