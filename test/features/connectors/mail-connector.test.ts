import type { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAction } from '../../../src/features/connectors/actions.js';
import type { Connector, SourceRecord, SyncPage } from '../../../src/features/connectors/connector.js';
import { ConnectorError } from '../../../src/features/connectors/errors.js';
import {
  createMailConnector,
  mailConnectionSchema,
} from '../../../src/features/connectors/mail/mail-connector.js';
import { threadMessages } from '../../../src/features/connectors/mail/threads.js';
import {
  type Dovecot,
  probeDovecot,
  requireDovecot,
  startDovecot,
  withImapSession,
} from '../../helpers/dovecot.js';
import { type FakeSmtp, startFakeSmtp } from './fakes/smtp-server.js';

const dovecot = probeDovecot();
const USERS = { alice: 'alice-pw', bob: 'bob-pw', carol: 'carol-pw' };
const NOW = Date.parse('2025-03-15T12:00:00Z');

let imap: Dovecot;
let smtp: FakeSmtp;

async function asUser<T>(user: keyof typeof USERS, fn: (client: ImapFlow) => Promise<T>): Promise<T> {
  return withImapSession(imap, user, USERS[user], fn);
}

async function append(
  user: keyof typeof USERS,
  mailbox: string,
  mail: Record<string, unknown>,
): Promise<void> {
  const raw = await new MailComposer(mail).compile().build();
  await asUser(user, (c) =>
    c.append(mailbox, raw, ['\\Seen'], (mail.date as Date | undefined) ?? new Date(NOW)),
  );
}

function connector(options: { password?: string; pageSize?: number; port?: number } = {}): Connector {
  return createMailConnector(
    mailConnectionSchema.parse({
      host: imap.host,
      port: options.port ?? imap.port,
      secure: false,
      smtpPort: smtp.port,
      smtpSecure: false,
      account: 'alice@example.test',
      lookbackDays: 30,
      pageSize: options.pageSize ?? 50,
    }),
    { username: 'alice', password: options.password ?? USERS.alice },
    { now: () => NOW, timeoutMs: 2_000, retry: { maxRetries: 2, sleep: async () => undefined } },
  );
}

async function syncAll(c: Connector): Promise<SyncPage[]> {
  const pages: SyncPage[] = [];
  let cursor: string | null = null;
  do {
    const page = await c.syncPage({ record: 'thread', cursor, since: null });
    pages.push(page);
    cursor = page.next;
  } while (cursor !== null);
  return pages;
}

/** The last version of each thread the pages upserted (what the instances end up holding). */
function finalThreads(pages: SyncPage[]): Map<string, SourceRecord> {
  return new Map(pages.flatMap((p) => p.records).map((r) => [r.externalId, r]));
}

describe.skipIf(dovecot.skip)('mail connector (IMAP on Dovecot, SMTP)', () => {
  beforeAll(async () => {
    requireDovecot(dovecot);
    imap = await startDovecot(dovecot.binary, USERS);
    smtp = await startFakeSmtp({ alice: USERS.alice }, async (mail) => {
      for (const to of mail.to) {
        const user = to.split('@')[0] as keyof typeof USERS;
        if (USERS[user]) await asUser(user, (c) => c.append('INBOX', mail.raw));
      }
    });
    const day = (d: number) => new Date(NOW - d * 86_400_000);
    await append('alice', 'INBOX', {
      from: 'Bob <bob@example.test>',
      to: 'alice@example.test',
      subject: 'Pricing for Q2',
      text: 'What is the price for 50 seats?',
      messageId: '<m1@example.test>',
      date: day(5),
    });
    await append('alice', 'INBOX', {
      from: 'carol@example.test',
      to: 'alice@example.test',
      subject: 'Lunch',
      text: 'Lunch on Friday?',
      messageId: '<lunch@example.test>',
      date: day(4),
    });
    await append('alice', 'Sent', {
      from: 'alice@example.test',
      to: 'bob@example.test',
      subject: 'Re: Pricing for Q2',
      text: 'It is 40 per seat.',
      messageId: '<m2@example.test>',
      inReplyTo: '<m1@example.test>',
      references: '<m1@example.test>',
      date: day(3),
    });
    await append('alice', 'INBOX', {
      from: 'bob@example.test',
      to: 'alice@example.test',
      cc: 'carol@example.test',
      subject: 'Re: Pricing for Q2',
      text: 'Can you do 35?',
      messageId: '<m3@example.test>',
      inReplyTo: '<m2@example.test>',
      references: '<m1@example.test> <m2@example.test>',
      date: day(2),
    });
    // No Message-ID: it cannot be threaded, so it is skipped and counted.
    const raw = Buffer.from(
      'From: x@example.test\r\nTo: alice@example.test\r\nSubject: anonymous\r\nDate: Wed, 12 Mar 2025 10:00:00 +0000\r\n\r\nhello\r\n',
    );
    await asUser('alice', (c) => c.append('INBOX', raw, [], day(3)));
    await append('alice', 'INBOX', {
      from: 'old@example.test',
      to: 'alice@example.test',
      subject: 'Too old',
      text: 'before the lookback',
      messageId: '<old@example.test>',
      date: day(60),
    });
  });
  afterAll(async () => {
    await smtp?.close();
    await imap?.stop();
  });

  it('checks IMAP and SMTP logins', async () => {
    await expect(connector().check()).resolves.toEqual({ account: `alice on ${imap.host}` });
  });

  it('refuses a wrong password with the server’s words, never the password', async () => {
    const error = (await connector({ password: 'not-the-password-123' })
      .check()
      .catch((e: unknown) => e)) as ConnectorError;
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toMatch(/IMAP server 127\.0\.0\.1 refused the login: .*Authentication failed/);
    expect(error.message).not.toContain('not-the-password-123');
  });

  it('reports an unreachable server as UNAVAILABLE after retrying', async () => {
    const error = (await connector({ port: 1 })
      .check()
      .catch((e: unknown) => e)) as ConnectorError;
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.retryable).toBe(true);
  });

  it('syncs whole threads across INBOX and Sent, page by page, skipping a message without Message-ID', async () => {
    const pages = await syncAll(connector({ pageSize: 2 }));
    expect(pages.length).toBeGreaterThan(2);
    const threads = finalThreads(pages);
    expect([...threads.keys()].sort()).toEqual(['lunch@example.test', 'm1@example.test']);
    const pricing = threads.get('m1@example.test') as SourceRecord;
    expect(pricing.title).toBe('Pricing for Q2');
    expect(pricing.metadata).toMatchObject({
      threadId: 'm1@example.test',
      messageCount: 3,
      participants: ['bob@example.test', 'alice@example.test', 'carol@example.test'],
    });
    const messages = threadMessages(pricing.content, pricing.metadata);
    expect(messages.map((m) => [m.messageId, m.mailbox, m.text])).toEqual([
      ['m1@example.test', 'INBOX', 'What is the price for 50 seats?'],
      ['m2@example.test', 'Sent', 'It is 40 per seat.'],
      ['m3@example.test', 'INBOX', 'Can you do 35?'],
    ]);
    expect(pages.flatMap((p) => p.skipped)).toEqual([
      { externalId: null, reason: expect.stringMatching(/^message UID \d+ in INBOX has no Message-ID$/) },
    ]);
  });

  it('fetches one thread live', async () => {
    const record = await connector().fetchRecord('thread', '<m1@example.test>');
    expect(record?.metadata).toMatchObject({ messageCount: 3 });
    await expect(connector().fetchRecord('thread', 'nothing@example.test')).resolves.toBeNull();
  });

  it('sends a reply over SMTP with threading headers, files it in Sent, and a retry does not send it twice', async () => {
    const parsed = parseAction('mail.send', {
      to: 'bob@example.test',
      subject: 'Re: Pricing for Q2',
      text: 'Deal: 37 per seat.',
      inReplyTo: 'm3@example.test',
    });
    if (!parsed.ok) throw new Error('bad action');
    const request = {
      action: parsed.value,
      idempotencyKey: 'proposal-7',
      previousAttempts: 0,
      firstAttemptAt: new Date(NOW).toISOString(),
    };
    const result = await connector().execute(request);
    expect(result).toMatchObject({ sent: true, to: ['bob@example.test'], accepted: ['bob@example.test'] });
    expect(smtp.received).toHaveLength(1);
    const mail = await simpleParser(smtp.received[0]?.raw ?? Buffer.alloc(0));
    expect(mail.messageId).toBe(`<${String(result.messageId)}>`);
    expect(mail.inReplyTo).toBe('<m3@example.test>');
    expect(mail.references).toEqual(['<m1@example.test>', '<m2@example.test>', '<m3@example.test>']);
    // Delivered to Bob; a copy in Alice's Sent; and now part of the thread.
    const bobs = await asUser('bob', async (c) => {
      const lock = await c.getMailboxLock('INBOX');
      try {
        return await c.search({ header: { 'message-id': mail.messageId ?? '' } }, { uid: true });
      } finally {
        lock.release();
      }
    });
    expect(bobs).toHaveLength(1);
    const thread = await connector().fetchRecord('thread', 'm1@example.test');
    expect(thread?.metadata).toMatchObject({ messageCount: 4 });

    const again = await connector().execute({ ...request, previousAttempts: 1 });
    expect(again).toMatchObject({ messageId: result.messageId, sent: false });
    expect(smtp.received).toHaveLength(1);
  });

  it('refuses an SMTP login the server does not know', async () => {
    const c = createMailConnector(
      mailConnectionSchema.parse({
        host: imap.host,
        port: imap.port,
        secure: false,
        smtpPort: smtp.port,
        smtpSecure: false,
      }),
      { username: 'carol', password: USERS.carol },
      { timeoutMs: 2_000 },
    );
    const error = (await c.check().catch((e: unknown) => e)) as ConnectorError;
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toMatch(/^SMTP server 127\.0\.0\.1 refused the login: 535/);
  });
});
