/**
 * `mail.send` proposals against a real IMAP server (Dovecot) and an SMTP server (smtp-server): an
 * approved proposal sends one message (its Message-ID derived from the proposal's idempotency key,
 * a reply threaded with In-Reply-To/References) and files it in `\Sent`; a rejected one sends
 * nothing. Skipped with a message where Dovecot is missing (a failure under CI).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import {
  type Dovecot,
  probeDovecot,
  requireDovecot,
  startDovecot,
  withImapSession,
} from '../../helpers/dovecot.js';
import { connectHttp, ok } from '../../helpers/mcp.js';
import { waitFor } from '../../helpers/wait.js';
import { type FakeSmtp, startFakeSmtp } from '../connectors/fakes/smtp-server.js';

const dovecot = probeDovecot();
const USERS = { alice: 'alice-pw', bob: 'bob-pw' };

describe.skipIf(dovecot.skip)('mail.send proposals (IMAP on Dovecot, SMTP)', () => {
  let imap: Dovecot;
  let smtp: FakeSmtp;
  let t: TestApp;
  let c: Callers;
  let mcp: Client;

  async function asUser<T>(user: keyof typeof USERS, fn: (client: ImapFlow) => Promise<T>): Promise<T> {
    return withImapSession(imap, user, USERS[user], fn);
  }

  /** Message-IDs in `user`'s `mailbox`. */
  const messageIds = (user: keyof typeof USERS, mailbox: string) =>
    asUser(user, async (client) => {
      const lock = await client.getMailboxLock(mailbox);
      try {
        const ids: string[] = [];
        for await (const m of client.fetch('1:*', { envelope: true })) ids.push(m.envelope?.messageId ?? '');
        return ids;
      } catch {
        return [];
      } finally {
        lock.release();
      }
    });

  beforeAll(async () => {
    requireDovecot(dovecot);
    imap = await startDovecot(dovecot.binary, USERS);
    smtp = await startFakeSmtp({ alice: USERS.alice }, async (mail) => {
      for (const to of mail.to) {
        const user = to.split('@')[0] as keyof typeof USERS;
        if (USERS[user]) await asUser(user, (client) => client.append('INBOX', mail.raw));
      }
    });
    const question = await new MailComposer({
      from: 'Bob <bob@example.test>',
      to: 'alice@example.test',
      subject: 'Pricing for Q2',
      text: 'What is the price for 50 seats?',
      messageId: '<q1@example.test>',
    })
      .compile()
      .build();
    await asUser('alice', (client) => client.append('INBOX', question));
    t = await startTestApp({ R3_CONNECTORS_ALLOW_PRIVATE: 'true', R3_CONNECTOR_TIMEOUT: '5s' });
    c = await callers(t, 'mail-org');
    const post = async (path: string, body: unknown, method = 'POST') => {
      const res = await t.request(method, path, { token: c.writer, body });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    };
    await post('/api/v1/sources', {
      slug: 'mailbox',
      name: 'Mailbox',
      kind: 'mail',
      connection: {
        host: imap.host,
        port: imap.port,
        secure: false,
        smtpHost: smtp.host,
        smtpPort: smtp.port,
        smtpSecure: false,
        account: 'alice@example.test',
      },
    });
    await post('/api/v1/sources/mailbox/credentials', { username: 'alice', password: USERS.alice }, 'PUT');
    await post('/api/v1/agents', { slug: 'mailer', name: 'Mailer', sourceSlugs: ['mailbox'] });
    mcp = await connectHttp(t.url, c.writer);
  });

  afterAll(async () => {
    await mcp?.close();
    await t?.close();
    await smtp?.close();
    await imap?.stop();
  });

  const settled = async (id: number) => {
    let body: any;
    await waitFor(
      async () => {
        body = (await t.request('GET', `/api/v1/proposals/${id}`, { token: c.reader })).body;
        return ['executed', 'failed'].includes(body.status);
      },
      `proposal ${id} to settle`,
      15_000,
    );
    return body;
  };

  it('approve sends the reply once, threaded, and files it in Sent; approving again is 409', async () => {
    const { proposalId } = await ok(mcp, 'propose_action', {
      action: 'mail.send',
      params: {
        to: 'bob@example.test',
        subject: 'Re: Pricing for Q2',
        text: '50 seats are 4,000 EUR a year.',
        inReplyTo: '<q1@example.test>',
      },
      rationale: 'Bob asked for the price.',
      agent_slug: 'mailer',
    });
    expect(smtp.received).toHaveLength(0);
    const decide = () =>
      t.request('POST', '/api/v1/reviews/decide', {
        token: c.writer,
        body: { kind: 'action', id: proposalId, action: 'approve' },
      });
    expect((await decide()).status).toBe(200);
    expect((await decide()).status).toBe(409);
    const done = await settled(proposalId);
    expect(done).toMatchObject({
      status: 'executed',
      source: 'mailbox',
      result: {
        sent: true,
        to: ['bob@example.test'],
        messageId: expect.stringMatching(/^r3\.[0-9a-f]{32}@example\.test$/),
      },
    });
    expect(smtp.received).toHaveLength(1);
    const raw = smtp.received[0]?.raw.toString('utf8') ?? '';
    expect(raw).toContain(`Message-ID: <${done.result.messageId}>`);
    expect(raw).toMatch(/In-Reply-To: <q1@example\.test>/);
    expect(raw).toMatch(/References: <q1@example\.test>/);
    expect(smtp.received[0]?.to).toEqual(['bob@example.test']);
    expect(await messageIds('alice', 'Sent')).toContain(`<${done.result.messageId}>`);
    expect(await messageIds('bob', 'INBOX')).toContain(`<${done.result.messageId}>`);
  });

  it('reject sends nothing', async () => {
    const before = smtp.received.length;
    const { proposalId } = await ok(mcp, 'propose_action', {
      action: 'mail.send',
      params: { to: 'bob@example.test', subject: 'Discount', text: '90% off!' },
      rationale: 'Be generous.',
      agent_slug: 'mailer',
    });
    const res = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'action', id: proposalId, action: 'reject', reason: 'no' },
    });
    expect(res.status).toBe(200);
    await t.app.jobs.drain();
    expect((await t.request('GET', `/api/v1/proposals/${proposalId}`, { token: c.reader })).body.status).toBe(
      'rejected',
    );
    expect(smtp.received.length).toBe(before);
  });
});
