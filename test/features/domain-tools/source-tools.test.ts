/**
 * The cache-first domain tools and freshen_source over MCP with the official SDK client (decisions
 * §11), against a Zoom-shaped API and a real IMAP server (Dovecot): a synced meeting is answered from
 * the cache, an unsynced one live and upserted once (`created`, then `cache`); a mail thread is the
 * cache while fresh, live (and upserted with what changed) when older than `max_age_minutes` or on
 * `force_refresh`; freshen_source starts the source's sync. Agents without the source → FORBIDDEN;
 * other orgs see nothing; upstream failures are tool errors; bad args → VALIDATION_FAILED.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, orgIdOf } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import {
  type Dovecot,
  probeDovecot,
  requireDovecot,
  startDovecot,
  withImapSession,
} from '../../helpers/dovecot.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { type FakeMeeting, type FakeZoom, startFakeZoom } from '../connectors/fakes/zoom-server.js';

const dovecot = probeDovecot();
const DAY = 86_400_000;
const VTT = `WEBVTT

1
00:00:00.000 --> 00:00:03.000
Alice Smith: Welcome to the pipeline review.

2
00:00:03.000 --> 00:00:05.500
Bob: Two deals closed this week.
`;

let t: TestApp;
let c: Callers;
let orgId: number;
let zoom: FakeZoom;
let mcp: Client;
let stranger: Client;
let synced: FakeMeeting;

const count = async (type: string) =>
  (
    await t.app.db.sql.one<{ n: number }>(
      'select count(*)::int as n from object_instances where org_id = $1 and type_slug = $2',
      [orgId, type],
    )
  ).n;

async function sync(slug: string) {
  const res = await t.request('POST', `/api/v1/sources/${slug}/sync`, { token: c.writer, body: {} });
  expect(res.status).toBe(202);
  const done = await t.app.syncs.whenSettled(orgId, slug, res.body.syncId, 30_000);
  expect(done.status, JSON.stringify(done)).toBe('completed');
  return done;
}

beforeAll(async () => {
  zoom = await startFakeZoom();
  t = await startTestApp({
    R3_CONNECTORS_ALLOW_PRIVATE: 'true',
    R3_CONNECTOR_RETRY_BASE: '5ms',
    R3_CONNECTOR_TIMEOUT: '2s',
  });
  c = await callers(t, 'source-tools');
  orgId = await orgIdOf(t, 'source-tools');
  for (const slug of ['meeting', 'thread']) {
    await t.request('POST', '/api/v1/objects/types', { token: c.writer, body: { slug, name: slug } });
  }
  await t.request('POST', '/api/v1/sources', {
    token: c.writer,
    body: {
      slug: 'zoom',
      name: 'Zoom',
      kind: 'meetings',
      connection: { baseUrl: zoom.url },
      sync: { objectTypes: { meeting: 'meeting' } },
    },
  });
  await t.request('PUT', '/api/v1/sources/zoom/credentials', {
    token: c.writer,
    body: { accessToken: zoom.token },
  });
  // The mail source exists for every test (agents list it); its connection is set when Dovecot runs.
  await t.request('POST', '/api/v1/sources', {
    token: c.writer,
    body: {
      slug: 'inbox',
      name: 'Inbox',
      kind: 'mail',
      connection: { host: '127.0.0.1', port: 1, secure: false },
      sync: { objectTypes: { thread: 'thread' } },
    },
  });
  synced = zoom.add({
    topic: 'Pipeline review',
    start_time: new Date(t.clock.now() - 2 * DAY).toISOString(),
    vtt: VTT,
  });
  await sync('zoom');
  for (const agent of [
    { slug: 'notetaker', name: 'Notetaker', sourceSlugs: ['zoom', 'inbox'] },
    { slug: 'blind', name: 'Blind', sourceSlugs: [] },
  ]) {
    expect((await t.request('POST', '/api/v1/agents', { token: c.writer, body: agent })).status).toBe(201);
  }
  mcp = await connectHttp(t.url, c.writer);
  stranger = await connectHttp(t.url, c.stranger);
});
afterAll(async () => {
  await mcp?.close();
  await stranger?.close();
  await t?.close();
  await zoom?.close();
});

describe('get_meeting_transcript', () => {
  it('answers a synced meeting from the cache, by UUID or by meeting id, without asking Zoom', async () => {
    zoom.requests.length = 0;
    const expected = {
      title: 'Pipeline review',
      startedAt: synced.start_time,
      transcript: [
        { speaker: 'Alice Smith', start: 0, end: 3, text: 'Welcome to the pipeline review.' },
        { speaker: 'Bob', start: 3, end: 5.5, text: 'Two deals closed this week.' },
      ],
      source: 'cache',
      upserted: null,
    };
    expect(
      await ok(mcp, 'get_meeting_transcript', { agent_slug: 'notetaker', meetingId: synced.uuid }),
    ).toEqual({
      meetingId: synced.uuid,
      ...expected,
    });
    expect(await ok(mcp, 'get_meeting_transcript', { meetingId: String(synced.id) })).toEqual({
      meetingId: String(synced.id),
      ...expected,
    });
    expect(zoom.requests).toEqual([]);
  });

  it('reads an unsynced meeting live and upserts it once: created, then from the cache', async () => {
    const fresh = zoom.add({
      topic: 'Kickoff',
      start_time: new Date(t.clock.now() - DAY).toISOString(),
      vtt: 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nCarol: Hi all.\n',
    });
    const before = await count('meeting');
    const live = await ok(mcp, 'get_meeting_transcript', { agent_slug: 'notetaker', meetingId: fresh.uuid });
    expect(live).toEqual({
      meetingId: fresh.uuid,
      title: 'Kickoff',
      startedAt: fresh.start_time,
      transcript: [{ speaker: 'Carol', start: 1, end: 2, text: 'Hi all.' }],
      source: 'live',
      upserted: 'created',
    });
    expect(await count('meeting')).toBe(before + 1);
    const again = await ok(mcp, 'get_meeting_transcript', { meetingId: fresh.uuid });
    expect(again).toMatchObject({ source: 'cache', upserted: null, title: 'Kickoff' });
    // The next sync finds the same meeting and does not duplicate it.
    await sync('zoom');
    expect(await count('meeting')).toBe(before + 1);
  });

  it('NOT_FOUND for a meeting Zoom does not have; a Zoom failure is a tool error', async () => {
    const missing = await fails(mcp, 'get_meeting_transcript', { meetingId: 'no-such-meeting' }, 'NOT_FOUND');
    expect(missing.details).toMatchObject({ kind: 'meeting', id: 'no-such-meeting' });
    zoom.fault({ status: 503 }, 5);
    const down = await fails(mcp, 'get_meeting_transcript', { meetingId: 'another-one' }, 'TOOL_FAILED');
    expect(down.details).toMatchObject({ source: 'zoom', upstream: 'UNAVAILABLE' });
    expect(down.message).toMatch(/Zoom answered 503/);
  });

  it('FORBIDDEN for an agent without a meetings source; another org sees nothing; bad args', async () => {
    const error = await fails(
      mcp,
      'get_meeting_transcript',
      { agent_slug: 'blind', meetingId: synced.uuid },
      'FORBIDDEN',
    );
    expect(error.details).toMatchObject({
      agentSlug: 'blind',
      reason: 'source_not_listed',
      kind: 'meetings',
    });
    await fails(stranger, 'get_meeting_transcript', { meetingId: synced.uuid }, 'NOT_FOUND');
    await fails(
      stranger,
      'get_meeting_transcript',
      { agent_slug: 'notetaker', meetingId: synced.uuid },
      'FORBIDDEN',
    );
    const bad = await fails(mcp, 'get_meeting_transcript', { meetingId: '' }, 'VALIDATION_FAILED');
    expect(bad.details.issues[0].field).toBe('arguments.meetingId');
  });
});

describe('freshen_source', () => {
  it('starts the source’s sync (the one POST /sources/:slug/sync starts), or answers the running one', async () => {
    const started = await ok(mcp, 'freshen_source', { agent_slug: 'notetaker', source: 'zoom' });
    expect(started).toEqual({ syncId: expect.any(Number), status: 'running' });
    const view = await t.request('GET', `/api/v1/sources/zoom/syncs/${started.syncId}`, { token: c.reader });
    expect(view.body).toMatchObject({ syncId: started.syncId, trigger: 'tool' });
    const done = await t.app.syncs.whenSettled(orgId, 'zoom', started.syncId, 30_000);
    expect(done.status).toBe('completed');
  });

  it('FORBIDDEN when the agent does not list the source or the token lacks write:resources; 404 unknown', async () => {
    const error = await fails(mcp, 'freshen_source', { agent_slug: 'blind', source: 'zoom' }, 'FORBIDDEN');
    expect(error.details).toMatchObject({ reason: 'source_not_listed', source: 'zoom' });
    await fails(mcp, 'freshen_source', { source: 'ghost' }, 'NOT_FOUND');
    await fails(stranger, 'freshen_source', { source: 'zoom' }, 'NOT_FOUND');
    const reader = await connectHttp(t.url, c.reader);
    const scope = await fails(reader, 'freshen_source', { source: 'zoom' }, 'FORBIDDEN');
    expect(scope.details.requiredScope).toEqual(['write:resources']);
    await reader.close();
    const bad = await fails(mcp, 'freshen_source', { source: 'Not A Slug' }, 'VALIDATION_FAILED');
    expect(bad.details.issues[0].field).toBe('arguments.source');
  });
});

describe.skipIf(dovecot.skip)('get_mail_thread (IMAP on Dovecot)', () => {
  let imap: Dovecot;

  async function append(mail: Record<string, unknown>) {
    const raw = await new MailComposer(mail).compile().build();
    await withImapSession(imap, 'alice', 'alice-pw', (client) =>
      client.append('INBOX', raw, ['\\Seen'], mail.date as Date),
    );
  }

  beforeAll(async () => {
    requireDovecot(dovecot);
    imap = await startDovecot(dovecot.binary, { alice: 'alice-pw' });
    const patched = await t.request('PATCH', '/api/v1/sources/inbox', {
      token: c.writer,
      body: {
        connection: { host: imap.host, port: imap.port, secure: false, account: 'alice@example.test' },
      },
    });
    expect(patched.status).toBe(200);
    await t.request('PUT', '/api/v1/sources/inbox/credentials', {
      token: c.writer,
      body: { username: 'alice', password: 'alice-pw' },
    });
    const now = t.clock.now();
    await append({
      from: 'Bob <bob@example.test>',
      to: 'alice@example.test',
      subject: 'Renewal terms',
      text: 'Can we renew at last year’s price?',
      messageId: '<renew-1@example.test>',
      date: new Date(now - 2 * DAY),
    });
    await sync('inbox');
  });
  afterAll(async () => {
    await imap?.stop();
  });

  it('answers the cache while it is fresh, and reads IMAP when it is older than max_age_minutes', async () => {
    const cached = await ok(mcp, 'get_mail_thread', {
      agent_slug: 'notetaker',
      threadId: '<renew-1@example.test>',
    });
    expect(cached).toMatchObject({
      threadId: 'renew-1@example.test',
      subject: 'Renewal terms',
      source: 'cache',
      messages: [
        expect.objectContaining({
          messageId: 'renew-1@example.test',
          from: 'bob@example.test',
          to: ['alice@example.test'],
          text: expect.stringContaining('renew at last year'),
          mailbox: 'INBOX',
        }),
      ],
    });
    const syncedAt = cached.fetchedAt;
    // A reply arrives; a fresh cache does not know it yet.
    await append({
      from: 'Bob <bob@example.test>',
      to: 'alice@example.test',
      subject: 'Re: Renewal terms',
      text: 'Also, 20 more seats.',
      messageId: '<renew-2@example.test>',
      inReplyTo: '<renew-1@example.test>',
      references: '<renew-1@example.test>',
      date: new Date(t.clock.now() - DAY),
    });
    t.clock.advance(10 * 60_000);
    const stillCached = await ok(mcp, 'get_mail_thread', { threadId: 'renew-1@example.test' });
    expect(stillCached).toMatchObject({ source: 'cache', fetchedAt: syncedAt });
    expect(stillCached.messages).toHaveLength(1);
    t.clock.advance(6 * 60_000);
    const live = await ok(mcp, 'get_mail_thread', { threadId: 'renew-1@example.test' });
    expect(live).toMatchObject({ source: 'live', fetchedAt: new Date(t.clock.now()).toISOString() });
    expect(live.messages.map((m: { messageId: string }) => m.messageId)).toEqual([
      'renew-1@example.test',
      'renew-2@example.test',
    ]);
    // The live read updated the instance: the cache now has the reply, and is fresh again.
    const after = await ok(mcp, 'get_mail_thread', { threadId: 'renew-1@example.test' });
    expect(after).toMatchObject({ source: 'cache', fetchedAt: live.fetchedAt });
    expect(after.messages).toHaveLength(2);
    expect(await count('thread')).toBe(1);
  });

  it('reads IMAP on force_refresh or max_age_minutes 0; NOT_FOUND for a thread the mailbox lacks', async () => {
    expect(
      (await ok(mcp, 'get_mail_thread', { threadId: 'renew-1@example.test', force_refresh: true })).source,
    ).toBe('live');
    expect(
      (await ok(mcp, 'get_mail_thread', { threadId: 'renew-1@example.test', max_age_minutes: 0 })).source,
    ).toBe('live');
    await fails(mcp, 'get_mail_thread', { threadId: 'nobody@example.test' }, 'NOT_FOUND');
  });

  it('FORBIDDEN without a mail source; another org sees nothing; bad args → VALIDATION_FAILED', async () => {
    await fails(
      mcp,
      'get_mail_thread',
      { agent_slug: 'blind', threadId: 'renew-1@example.test' },
      'FORBIDDEN',
    );
    await fails(stranger, 'get_mail_thread', { threadId: 'renew-1@example.test' }, 'NOT_FOUND');
    for (const [args, field] of [
      [{ threadId: '<a b@c>' }, 'arguments.threadId'],
      [{ threadId: 'x@y', max_age_minutes: -1 }, 'arguments.max_age_minutes'],
      [{ threadId: 'x@y', force_refresh: 'yes' }, 'arguments.force_refresh'],
    ] as const) {
      const e = await fails(mcp, 'get_mail_thread', args, 'VALIDATION_FAILED');
      expect(e.details.issues[0].field).toBe(field);
    }
  });
});
