/**
 * Mail threads from message headers, the way mail clients thread (RFC 5256's REFERENCES idea,
 * without needing the server's THREAD extension): a message's thread root is the first Message-ID
 * of its `References`, else its `In-Reply-To`, else its own `Message-ID`. A thread is every message
 * with that root; its `threadId` is the root Message-ID without angle brackets.
 *
 * A thread as a record: `content` is the messages' texts one after another (what full-text search
 * reads), `metadata.messages` their headers with the offset and length of each text in `content`,
 * so the thread comes back exactly from the stored instance.
 */
import type { SourceRecord } from '../connector.js';

/** One parsed message. */
export interface MailMessage {
  /** Without angle brackets. */
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  /** ISO time from the Date header (or the server's internal date). */
  date: string;
  text: string;
  /** The mailbox it was read from. */
  mailbox: string;
}

/** A message's headers as a thread record keeps them. */
export type StoredMessage = Omit<MailMessage, 'text'> & { textOffset: number; textLength: number };

/** A Message-ID without its angle brackets and surrounding space. */
export function bareId(id: string): string {
  return id.trim().replace(/^<|>$/g, '');
}

/** Message-IDs of a header value (`<a@x> <b@y>`), without brackets. */
export function idsOf(value: string | string[] | undefined | null): string[] {
  const text = Array.isArray(value) ? value.join(' ') : (value ?? '');
  const bracketed = text.match(/<[^<>\s]+>/g);
  if (bracketed) return bracketed.map(bareId);
  return text.split(/\s+/).filter(Boolean).map(bareId);
}

/** The thread root of a message (see the top of this file). */
export function threadRoot(message: Pick<MailMessage, 'messageId' | 'inReplyTo' | 'references'>): string {
  return message.references[0] ?? message.inReplyTo ?? message.messageId;
}

const SEPARATOR = '\n\n';

/**
 * The record of one thread from its messages (duplicates by Message-ID — a copy in INBOX and in
 * Sent — kept once), oldest first. Null when there are none.
 */
export function threadRecord(threadId: string, messages: readonly MailMessage[]): SourceRecord | null {
  const unique = [...new Map(messages.map((m) => [m.messageId, m])).values()].sort(
    (a, b) => a.date.localeCompare(b.date) || a.messageId.localeCompare(b.messageId),
  );
  const first = unique[0];
  const last = unique.at(-1);
  if (!first || !last) return null;
  let content = '';
  const stored: StoredMessage[] = unique.map(({ text, ...headers }) => {
    if (content !== '') content += SEPARATOR;
    const textOffset = content.length;
    content += text;
    return { ...headers, textOffset, textLength: text.length };
  });
  const subject = first.subject.replace(/^((re|fwd?|aw|sv)\s*:\s*)+/i, '').trim() || '(no subject)';
  const participants = [...new Set(unique.flatMap((m) => [m.from, ...m.to, ...m.cc]).filter(Boolean))];
  return {
    externalId: threadId,
    title: subject,
    content,
    metadata: {
      threadId,
      subject,
      participants,
      messageCount: stored.length,
      lastMessageAt: last.date,
      messages: stored,
    },
    updatedAt: last.date,
  };
}

/** The messages of a stored thread record, texts included ({@link threadRecord}'s inverse). */
export function threadMessages(content: string, metadata: { messages?: unknown }): MailMessage[] {
  const stored = Array.isArray(metadata.messages) ? (metadata.messages as StoredMessage[]) : [];
  return stored.map(({ textOffset, textLength, ...headers }) => ({
    ...headers,
    text: content.slice(textOffset, textOffset + textLength),
  }));
}
