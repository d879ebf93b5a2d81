/**
 * The text of a batch outbox row (`outbox.messages`, migration 0012): one message a line,
 * `subject \t event_id \t payload`, in publish order. Subjects and event ids hold no tabs or line
 * breaks, and `JSON.stringify` escapes both inside strings, so the separators are unambiguous.
 */

/** One message of a batch. */
export interface OutboxLine {
  subject: string;
  eventId: string;
  /** The payload's JSON text. */
  payload: string;
}

/** The `messages` text of `lines`, serializing each payload. */
export function encodeOutboxLines(
  lines: ReadonlyArray<{ subject: string; event_id: string; payload: unknown }>,
): string {
  let text = '';
  for (const line of lines) {
    if (text !== '') text += '\n';
    text += `${line.subject}\t${line.event_id}\t${JSON.stringify(line.payload)}`;
  }
  return text;
}

/** The messages of a batch row's text, in order. */
export function decodeOutboxLines(text: string): OutboxLine[] {
  const lines: OutboxLine[] = [];
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const tab1 = text.indexOf('\t', start);
    const tab2 = text.indexOf('\t', tab1 + 1);
    if (tab1 < 0 || tab2 < 0 || tab2 > end) {
      throw new Error(
        `malformed outbox line: ${JSON.stringify(text.slice(start, Math.min(end, start + 200)))}`,
      );
    }
    lines.push({
      subject: text.slice(start, tab1),
      eventId: text.slice(tab1 + 1, tab2),
      payload: text.slice(tab2 + 1, end),
    });
    start = end + 1;
  }
  return lines;
}
