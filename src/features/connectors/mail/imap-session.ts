/**
 * IMAP sessions of the mail connector (imapflow): one connection per operation, its failures
 * mapped to `ConnectorError` (refused login → AUTH_FAILED with the server's words; refused
 * connections, resets → UNAVAILABLE; timeouts → TIMEOUT), and the reads the connector needs:
 * the mailboxes to read, new message UIDs, and every message of one thread.
 */
import type { ImapFlow } from 'imapflow';
import type { simpleParser as SimpleParser } from 'mailparser';

// imapflow and mailparser load on first use, not with r3: they cost start-up time every process
// pays, and only a mail connector needs them.
let imapflow: Promise<typeof import('imapflow')> | null = null;
let mailparser: Promise<typeof import('mailparser')> | null = null;
const loadImapFlow = () => {
  imapflow ??= import('imapflow');
  return imapflow;
};
const parse: typeof SimpleParser = (async (...args: Parameters<typeof SimpleParser>) => {
  mailparser ??= import('mailparser');
  return (await mailparser).simpleParser(...args);
}) as typeof SimpleParser;

import { ConnectorError } from '../errors.js';
import { bareId, idsOf, type MailMessage } from './threads.js';

/** Where and as whom to connect. */
export interface ImapSettings {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password: string;
  /** Connect and greeting timeout; socket inactivity bound is four times this. */
  timeoutMs: number;
}

/** Messages of one thread read at most (the newest are kept). */
const MAX_THREAD_MESSAGES = 200;

const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'NoConnection',
  'EConnectionClosed',
]);
const TIMEOUTS = new Set(['ETIMEOUT', 'ETIMEDOUT', 'CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);

/** An imapflow (or socket) error as a `ConnectorError`. */
export function imapError(error: unknown, host: string): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const e = error as {
    code?: string;
    authenticationFailed?: boolean;
    responseText?: string;
    message?: string;
  };
  if (e?.authenticationFailed) {
    return new ConnectorError(
      'AUTH_FAILED',
      `IMAP server ${host} refused the login: ${e.responseText ?? e.message ?? 'authentication failed'}`,
    );
  }
  if (e?.code && TIMEOUTS.has(e.code))
    return new ConnectorError('TIMEOUT', `IMAP server ${host} did not answer in time (${e.code})`);
  if (e?.code && NETWORK.has(e.code)) {
    return new ConnectorError(
      'UNAVAILABLE',
      `IMAP server ${host} is unreachable: ${e.message ?? e.code}`,
      {},
      { cause: error },
    );
  }
  return new ConnectorError(
    'BAD_RESPONSE',
    `IMAP server ${host}: ${e?.responseText ?? e?.message ?? String(error)}`,
    {},
    { cause: error },
  );
}

/** Runs `fn` on a logged-in session, then logs out; every failure is a `ConnectorError`. */
export async function withImap<T>(settings: ImapSettings, fn: (client: ImapFlow) => Promise<T>): Promise<T> {
  const { ImapFlow } = await loadImapFlow();
  const client = new ImapFlow({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: { user: settings.username, pass: settings.password },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs * 4,
  });
  // A socket error after connect() is reported through 'error' too: without a listener it would
  // be thrown as an uncaught exception.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    client.close();
    throw imapError(error, settings.host);
  }
  try {
    return await fn(client);
  } catch (error) {
    throw imapError(error, settings.host);
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** The mailboxes a sync reads: the configured ones, else INBOX and the `\Sent` special-use mailbox. */
export async function mailboxesOf(
  client: ImapFlow,
  configured: readonly string[] | undefined,
): Promise<string[]> {
  if (configured && configured.length > 0) return [...configured];
  const sent = await sentMailbox(client);
  return sent ? ['INBOX', sent] : ['INBOX'];
}

/** The path of the `\Sent` special-use mailbox, or null. */
export async function sentMailbox(client: ImapFlow): Promise<string | null> {
  const list = await client.list();
  return list.find((box) => box.specialUse === '\\Sent')?.path ?? null;
}

/** One header block parsed: the ids a thread is built from. */
export interface HeaderIds {
  uid: number;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
}

/** The thread ids of messages `uids` of the selected mailbox. */
export async function headerIds(client: ImapFlow, uids: readonly number[]): Promise<HeaderIds[]> {
  if (uids.length === 0) return [];
  const found: HeaderIds[] = [];
  for await (const message of client.fetch(
    uids.join(','),
    { uid: true, headers: ['message-id', 'in-reply-to', 'references'] },
    { uid: true },
  )) {
    const parsed = await parse(message.headers ?? Buffer.alloc(0));
    found.push({
      uid: message.uid,
      messageId: parsed.messageId ? bareId(parsed.messageId) : null,
      inReplyTo: idsOf(parsed.inReplyTo)[0] ?? null,
      references: idsOf(parsed.references),
    });
  }
  return found.sort((a, b) => a.uid - b.uid);
}

function addresses(value: unknown): string[] {
  const objects = Array.isArray(value) ? value : value ? [value] : [];
  return objects.flatMap((o: { value?: Array<{ address?: string }> }) =>
    (o.value ?? []).flatMap((a) => (a.address ? [a.address.toLowerCase()] : [])),
  );
}

/** Parses one raw message; null when it has no Message-ID (it cannot be threaded). */
export async function parseMessage(
  source: Buffer,
  mailbox: string,
  internalDate?: Date,
): Promise<MailMessage | null> {
  const parsed = await parse(source);
  if (!parsed.messageId) return null;
  const date = parsed.date ?? internalDate ?? new Date(0);
  return {
    messageId: bareId(parsed.messageId),
    inReplyTo: idsOf(parsed.inReplyTo)[0] ?? null,
    references: idsOf(parsed.references),
    from: addresses(parsed.from)[0] ?? '',
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: parsed.subject ?? '',
    date: date.toISOString(),
    text: (parsed.text ?? '').trim(),
    mailbox,
  };
}

/** UIDs of the selected mailbox's messages whose headers name `id` (as Message-ID, In-Reply-To or References). */
async function uidsNaming(client: ImapFlow, id: string): Promise<number[]> {
  const bracketed = `<${id}>`;
  const uids = await client.search(
    {
      or: [
        { header: { 'message-id': bracketed } },
        { header: { references: bracketed } },
        { header: { 'in-reply-to': bracketed } },
      ],
    },
    { uid: true },
  );
  return Array.isArray(uids) ? uids : [];
}

/** Every message of thread `threadId` in `mailboxes` (parsed, up to 200, newest kept). */
export async function threadMessagesOf(
  client: ImapFlow,
  mailboxes: readonly string[],
  threadId: string,
): Promise<MailMessage[]> {
  const messages: MailMessage[] = [];
  for (const mailbox of mailboxes) {
    const lock = await client.getMailboxLock(mailbox, { readOnly: true });
    try {
      const uids = (await uidsNaming(client, threadId)).sort((a, b) => a - b).slice(-MAX_THREAD_MESSAGES);
      if (uids.length === 0) continue;
      for await (const message of client.fetch(
        uids.join(','),
        { uid: true, source: true, internalDate: true },
        { uid: true },
      )) {
        if (!message.source) continue;
        const internal = message.internalDate instanceof Date ? message.internalDate : undefined;
        const parsed = await parseMessage(message.source, mailbox, internal);
        if (parsed) messages.push(parsed);
      }
    } finally {
      lock.release();
    }
  }
  return messages;
}
