/**
 * The `mail` connector: IMAP to read threads (imapflow, mailparser), SMTP to send (nodemailer).
 *
 * A sync walks the mailboxes (INBOX and the `\Sent` special-use mailbox unless configured) for
 * messages received since the lookback — or since the day before the last sync — in UID order, a
 * page of UIDs at a time; the threads those messages belong to are then read whole from every
 * mailbox, so each page upserts complete threads (see threads.ts for threading). The cursor is
 * `{box, uidValidity, lastUid}`: a mailbox whose UIDVALIDITY changed is read again from the start.
 *
 * `mail.send` composes the message once (its Message-ID derived from the proposal's idempotency
 * key), sends it over SMTP, and appends it to the `\Sent` mailbox. A retry after a crash first
 * looks for that Message-ID in `\Sent`, and does not send again when it is there.
 */
import { createHash } from 'node:crypto';
import type { ImapFlow } from 'imapflow';
import type MailComposerType from 'nodemailer/lib/mail-composer';

// nodemailer loads on first send or check, not with r3 (start-up time; only mail needs it).
let nodemailerModule: Promise<typeof import('nodemailer')> | null = null;
let composerModule: Promise<{ default: typeof MailComposerType }> | null = null;
const loadNodemailer = async () => {
  nodemailerModule ??= import('nodemailer');
  return (await nodemailerModule).default;
};
const loadComposer = async () => {
  composerModule ??= import('nodemailer/lib/mail-composer') as Promise<{
    default: typeof MailComposerType;
  }>;
  return (await composerModule).default;
};

import { z } from 'zod';
import type {
  ActionResult,
  CheckResult,
  Connector,
  SourceRecord,
  SyncPage,
  SyncPageRequest,
} from '../connector.js';
import { ConnectorError } from '../errors.js';
import { backoffMs, type RetryPolicy, sleep } from '../http-client.js';
import {
  headerIds,
  type ImapSettings,
  mailboxesOf,
  sentMailbox,
  threadMessagesOf,
  withImap,
} from './imap-session.js';
import { bareId, threadRecord, threadRoot } from './threads.js';

/** The `connection` settings of a mail source. */
export const mailConnectionSchema = z.looseObject({
  host: z.string().min(1).max(253),
  /** IMAP port (993: implicit TLS; 143 with `secure: false`: STARTTLS when the server offers it). */
  port: z.number().int().min(1).max(65_535).default(993),
  secure: z.boolean().default(true),
  smtpHost: z.string().min(1).max(253).optional(),
  smtpPort: z.number().int().min(1).max(65_535).default(465),
  smtpSecure: z.boolean().default(true),
  /** The address mail is sent from (default: the username). */
  account: z.email().optional(),
  /** Mailboxes a sync reads (default: INBOX and the `\Sent` mailbox). */
  mailboxes: z.array(z.string().min(1).max(500)).min(1).max(20).optional(),
  /** Append sent mail to `\Sent` (turn off for servers that file it themselves). */
  appendToSent: z.boolean().default(true),
  lookbackDays: z.number().int().min(1).max(3650).default(90),
  /** Messages per sync page. */
  pageSize: z.number().int().min(1).max(500).default(50),
});
/** Parsed mail connection settings. */
export type MailConnection = z.output<typeof mailConnectionSchema>;

/** The credentials of a mail source (used for IMAP and SMTP alike). */
export const mailCredentialsSchema = z.strictObject({
  username: z.string().min(1).max(320),
  password: z.string().min(1).max(4096),
});
/** Mail credentials. */
export type MailCredentials = z.output<typeof mailCredentialsSchema>;

/** What the connector needs besides settings and credentials. */
export interface MailConnectorOptions {
  retry?: RetryPolicy;
  timeoutMs?: number;
  now?: () => number;
  /** Refuses a host before connecting (the SSRF guard); throws to refuse. */
  guardHost?: (host: string, port: number) => Promise<void>;
}

const DAY = 86_400_000;
const cursorSchema = z.object({
  box: z.number().int().min(0),
  uidValidity: z.string().optional(),
  lastUid: z.number().int().min(0),
});

/** A nodemailer (SMTP) error as a `ConnectorError`. */
function smtpError(error: unknown, host: string): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const e = error as { code?: string; response?: string; responseCode?: number; message?: string };
  const said = e?.response ?? e?.message ?? String(error);
  if (e?.code === 'EAUTH')
    return new ConnectorError('AUTH_FAILED', `SMTP server ${host} refused the login: ${said}`);
  if (e?.code === 'ETIMEDOUT')
    return new ConnectorError('TIMEOUT', `SMTP server ${host} did not answer in time`);
  if (e?.code === 'ECONNECTION' || e?.code === 'ESOCKET' || e?.code === 'EDNS') {
    return new ConnectorError(
      'UNAVAILABLE',
      `SMTP server ${host} is unreachable: ${said}`,
      {},
      { cause: error },
    );
  }
  if (e?.responseCode !== undefined && e.responseCode >= 400 && e.responseCode < 500) {
    return new ConnectorError('UNAVAILABLE', `SMTP server ${host} deferred the message: ${said}`);
  }
  return new ConnectorError(
    'REJECTED',
    `SMTP server ${host} refused the message: ${said}`,
    {},
    { cause: error },
  );
}

/** Creates the connector of one mail source. */
export function createMailConnector(
  connection: MailConnection,
  credentials: MailCredentials,
  options: MailConnectorOptions = {},
): Connector {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const now = options.now ?? Date.now;
  const imap: ImapSettings = {
    host: connection.host,
    port: connection.port,
    secure: connection.secure,
    username: credentials.username,
    password: credentials.password,
    timeoutMs,
  };
  const smtpHost = connection.smtpHost ?? connection.host;
  const from = connection.account ?? credentials.username;
  const policy = options.retry ?? {};
  const maxRetries = policy.maxRetries ?? 4;

  /** Runs an IMAP operation, retrying what may pass later (unreachable, timed out) with backoff. */
  async function session<T>(fn: (client: ImapFlow) => Promise<T>, signal?: AbortSignal): Promise<T> {
    await options.guardHost?.(connection.host, connection.port);
    for (let n = 0; ; n++) {
      try {
        return await withImap(imap, fn);
      } catch (error) {
        if (!(error instanceof ConnectorError) || !error.retryable || n >= maxRetries) throw error;
        await (policy.sleep ?? sleep)(backoffMs(n, policy), signal);
      }
    }
  }

  async function transport() {
    const nodemailer = await loadNodemailer();
    return nodemailer.createTransport({
      host: smtpHost,
      port: connection.smtpPort,
      secure: connection.smtpSecure,
      auth: { user: credentials.username, pass: credentials.password },
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs * 4,
    });
  }

  async function readThread(
    client: ImapFlow,
    mailboxes: readonly string[],
    threadId: string,
  ): Promise<SourceRecord | null> {
    const messages = (await threadMessagesOf(client, mailboxes, threadId)).filter(
      (m) => threadRoot(m) === threadId,
    );
    return threadRecord(threadId, messages);
  }

  async function syncPage(request: SyncPageRequest): Promise<SyncPage> {
    if (request.record !== 'thread') {
      throw new ConnectorError('REJECTED', `the mail connector has no record kind "${request.record}"`);
    }
    let cursor: z.output<typeof cursorSchema>;
    try {
      cursor = cursorSchema.parse(
        request.cursor === null ? { box: 0, lastUid: 0 } : JSON.parse(request.cursor),
      );
    } catch {
      throw new ConnectorError('REJECTED', 'the mail sync cursor is unreadable');
    }
    const since = new Date(
      request.since ? Date.parse(request.since) - DAY : now() - connection.lookbackDays * DAY,
    );
    return session(async (client) => {
      const mailboxes = await mailboxesOf(client, connection.mailboxes);
      const page: SyncPage = { records: [], skipped: [], next: null };
      const mailbox = mailboxes[cursor.box];
      if (mailbox === undefined) return page;
      const roots = new Set<string>();
      let more = false;
      let lastUid = cursor.lastUid;
      let uidValidity: string;
      const lock = await client.getMailboxLock(mailbox, { readOnly: true });
      try {
        uidValidity = String(client.mailbox ? client.mailbox.uidValidity : '');
        if (cursor.uidValidity !== undefined && cursor.uidValidity !== uidValidity) lastUid = 0;
        const found = await client.search({ since, uid: `${lastUid + 1}:*` }, { uid: true });
        // `n:*` always names the highest UID, even one below n.
        const uids = (Array.isArray(found) ? found : []).filter((uid) => uid > lastUid).sort((a, b) => a - b);
        const batch = uids.slice(0, connection.pageSize);
        more = uids.length > batch.length;
        for (const ids of await headerIds(client, batch)) {
          if (ids.messageId === null)
            page.skipped.push({
              externalId: null,
              reason: `message UID ${ids.uid} in ${mailbox} has no Message-ID`,
            });
          else
            roots.add(
              threadRoot({ messageId: ids.messageId, inReplyTo: ids.inReplyTo, references: ids.references }),
            );
        }
        lastUid = batch.at(-1) ?? lastUid;
      } finally {
        lock.release();
      }
      for (const root of roots) {
        const record = await readThread(client, mailboxes, root);
        if (record) page.records.push(record);
      }
      if (more) page.next = JSON.stringify({ box: cursor.box, uidValidity, lastUid });
      else if (cursor.box + 1 < mailboxes.length)
        page.next = JSON.stringify({ box: cursor.box + 1, lastUid: 0 });
      return page;
    }, request.signal);
  }

  async function send(request: Parameters<Connector['execute']>[0]): Promise<ActionResult> {
    const { action } = request;
    if (action.action !== 'mail.send')
      throw new ConnectorError('REJECTED', `the mail connector cannot execute ${action.action}`);
    const params = action.params;
    const domain = from.includes('@') ? from.slice(from.lastIndexOf('@') + 1) : 'r3.invalid';
    const key = createHash('sha256').update(request.idempotencyKey).digest('hex').slice(0, 32);
    const messageId = `r3.${key}@${domain}`;
    const to = Array.isArray(params.to) ? params.to : [params.to];

    // Look for an earlier attempt's message, and the parent's References for a reply, in one session.
    const { sentBox, already, references } = await session(async (client) => {
      const sentBox = connection.appendToSent ? await sentMailbox(client) : null;
      let already = false;
      if (request.previousAttempts > 0 && sentBox) {
        const lock = await client.getMailboxLock(sentBox, { readOnly: true });
        try {
          const uids = await client.search({ header: { 'message-id': `<${messageId}>` } }, { uid: true });
          already = Array.isArray(uids) && uids.length > 0;
        } finally {
          lock.release();
        }
      }
      let references: string[] = [];
      if (params.inReplyTo) {
        const parent = bareId(params.inReplyTo);
        references = [parent];
        for (const box of await mailboxesOf(client, connection.mailboxes)) {
          const lock = await client.getMailboxLock(box, { readOnly: true });
          try {
            const uids = await client.search({ header: { 'message-id': `<${parent}>` } }, { uid: true });
            const [ids] = await headerIds(client, Array.isArray(uids) ? uids.slice(0, 1) : []);
            if (ids) references = [...ids.references.filter((r) => r !== parent), parent];
          } finally {
            lock.release();
          }
          if (references.length > 1) break;
        }
      }
      return { sentBox, already, references };
    }, request.signal);
    if (already) return { messageId, to, sent: false, note: 'an earlier attempt sent it' };

    const MailComposer = await loadComposer();
    const raw = await new MailComposer({
      from,
      to,
      subject: params.subject,
      text: params.text,
      messageId: `<${messageId}>`,
      date: new Date(request.firstAttemptAt),
      ...(params.inReplyTo
        ? {
            inReplyTo: `<${bareId(params.inReplyTo)}>`,
            references: references.map((r) => `<${r}>`).join(' '),
          }
        : {}),
    })
      .compile()
      .build();
    await options.guardHost?.(smtpHost, connection.smtpPort);
    const mailer = await transport();
    let info: { accepted?: unknown[]; rejected?: unknown[]; response?: string };
    try {
      info = await mailer.sendMail({ envelope: { from, to }, raw });
    } catch (error) {
      throw smtpError(error, smtpHost);
    } finally {
      mailer.close();
    }
    if (sentBox) {
      // Sent: a failure to file the copy does not unsend it, so it is not the action's failure.
      await session((client) =>
        client.append(sentBox, raw, ['\\Seen'], new Date(request.firstAttemptAt)),
      ).catch(() => undefined);
    }
    return {
      messageId,
      to,
      sent: true,
      accepted: (info.accepted ?? []).map(String),
      response: info.response ?? null,
    };
  }

  return {
    kind: 'mail',
    recordKinds: ['thread'],
    async check(signal?: AbortSignal): Promise<CheckResult> {
      await session(async (client) => void (await client.list()), signal);
      await options.guardHost?.(smtpHost, connection.smtpPort);
      const mailer = await transport();
      try {
        await mailer.verify();
      } catch (error) {
        throw smtpError(error, smtpHost);
      } finally {
        mailer.close();
      }
      return { account: `${credentials.username} on ${connection.host}` };
    },
    syncPage,
    async fetchRecord(record: string, externalId: string, signal?: AbortSignal) {
      if (record !== 'thread') return null;
      const threadId = bareId(externalId);
      if (threadId === '' || /[\s<>"]/.test(threadId)) return null;
      return session(
        async (client) => readThread(client, await mailboxesOf(client, connection.mailboxes), threadId),
        signal,
      );
    },
    execute: send,
    close: async () => undefined,
  };
}
