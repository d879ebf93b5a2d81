/** The text of a batch outbox row: one `subject \t event_id \t payload` line per message. */
import { describe, expect, it } from 'vitest';
import { decodeOutboxLines, encodeOutboxLines } from '../../../src/platform/outbox/lines.js';

describe('outbox lines', () => {
  it('round-trip messages whose payloads hold tabs, line breaks and any text', () => {
    const messages = [
      { subject: 'evt.1.run.7.started', event_id: 'a1', payload: { text: 'tab\there\nand a line', n: 1 } },
      {
        subject: 'evt.1.run.7.step_started',
        event_id: 'a2',
        payload: { text: 'José "J" \u2028 ☃', list: [] },
      },
      { subject: 'evt.2.run.8.started', event_id: 'a3', payload: null },
    ];
    const text = encodeOutboxLines(messages);
    expect(text.split('\n')).toHaveLength(3);
    const decoded = decodeOutboxLines(text);
    expect(decoded.map((m) => [m.subject, m.eventId])).toEqual(messages.map((m) => [m.subject, m.event_id]));
    expect(decoded.map((m) => JSON.parse(m.payload))).toEqual(messages.map((m) => m.payload));
  });

  it('encode no messages as empty text, and decode it as none', () => {
    expect(encodeOutboxLines([])).toBe('');
    expect(decodeOutboxLines('')).toEqual([]);
  });

  it('refuse a line without its three fields', () => {
    expect(() => decodeOutboxLines('evt.1.run.7.started\t{}')).toThrow(/malformed outbox line/);
    expect(() => decodeOutboxLines('a\tb\t{}\nno tabs')).toThrow(/malformed outbox line/);
  });
});
