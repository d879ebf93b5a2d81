import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, SyncPage } from '../../../src/features/connectors/connector.js';
import { ConnectorError } from '../../../src/features/connectors/errors.js';
import {
  createMeetingsConnector,
  meetingPathId,
  meetingsConnectionSchema,
} from '../../../src/features/connectors/meetings/meetings-connector.js';
import {
  transcriptTurns,
  turnLines,
  turnsFromLines,
} from '../../../src/features/connectors/meetings/webvtt-turns.js';
import { type FakeZoom, startFakeZoom } from './fakes/zoom-server.js';

const NOW = Date.parse('2025-03-15T12:00:00Z');
const ZOOM_VTT = `WEBVTT

1
00:00:00.000 --> 00:00:02.500
Alice Smith: Hello everyone,

2
00:00:02.500 --> 00:00:04.000
Alice Smith: thanks for joining.

3
00:00:04.000 --> 00:00:07.250
Bob: Happy to be here &amp; ready.

4
00:00:07.250 --> 00:00:09.000
<v Carol Jones>Let's look at the <b>pipeline</b>.</v>
`;

let zoom: FakeZoom;
const sleeps: number[] = [];

function connector(token?: string, lookbackDays = 90): Connector {
  return createMeetingsConnector(
    meetingsConnectionSchema.parse({ baseUrl: zoom.url, lookbackDays, pageSize: 2 }),
    { accessToken: token ?? zoom.token },
    { now: () => NOW, retry: { sleep: async (ms) => void sleeps.push(ms) } },
  );
}

async function syncAll(c: Connector, since: string | null = null): Promise<SyncPage[]> {
  const pages: SyncPage[] = [];
  let cursor: string | null = null;
  do {
    const page = await c.syncPage({ record: 'meeting', cursor, since });
    pages.push(page);
    cursor = page.next;
  } while (cursor !== null);
  return pages;
}

beforeAll(async () => {
  zoom = await startFakeZoom();
});
afterAll(() => zoom.close());
afterEach(() => {
  zoom.meetings.length = 0;
  zoom.requests.length = 0;
  sleeps.length = 0;
});

describe('WebVTT transcripts as speaker turns', () => {
  it('reads Zoom’s "Name: text" cues and voice spans, merging one speaker’s consecutive cues', () => {
    expect(transcriptTurns(ZOOM_VTT)).toEqual([
      { speaker: 'Alice Smith', start: 0, end: 4, text: 'Hello everyone, thanks for joining.' },
      { speaker: 'Bob', start: 4, end: 7.25, text: 'Happy to be here & ready.' },
      { speaker: 'Carol Jones', start: 7.25, end: 9, text: "Let's look at the pipeline." },
    ]);
  });

  it('keeps cues without a speaker, and refuses a text that is not WebVTT', () => {
    expect(transcriptTurns('WEBVTT\n\n00:01.000 --> 00:02.000\njust words\n')).toEqual([
      { speaker: null, start: 1, end: 2, text: 'just words' },
    ]);
    expect(() => transcriptTurns('1\n00:00:00.000 --> 00:00:01.000\nhello')).toThrow(/WEBVTT/);
  });

  it('turns survive the round trip through lines and timing', () => {
    const turns = transcriptTurns(ZOOM_VTT);
    const timing = turns.map(({ speaker, start, end }) => ({ speaker, start, end }));
    expect(turnsFromLines(turnLines(turns), timing)).toEqual(turns);
  });
});

describe('meetings connector (Zoom cloud recordings)', () => {
  it('checks the connection, and reports Zoom’s message for a bad token without echoing it', async () => {
    await expect(connector().check()).resolves.toEqual({ account: 'Zoom user host@example.com' });
    const error = (await connector('bad-token-xyz')
      .check()
      .catch((e: unknown) => e)) as ConnectorError;
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toBe('Zoom answered 401: Invalid access token.');
  });

  it('syncs meetings with transcripts in 30-day windows over the lookback, following next_page_token', async () => {
    for (let i = 0; i < 5; i++)
      zoom.add({ start_time: `2025-03-0${i + 1}T10:00:00Z`, vtt: ZOOM_VTT, topic: `Standup ${i}` });
    zoom.add({ start_time: '2025-01-20T10:00:00Z', vtt: ZOOM_VTT, topic: 'January review' });
    zoom.add({ start_time: '2025-03-10T10:00:00Z', vtt: null, topic: 'No transcript yet' });
    zoom.add({ start_time: '2024-10-01T10:00:00Z', vtt: ZOOM_VTT, topic: 'Too old' });
    const pages = await syncAll(connector());
    const records = pages.flatMap((p) => p.records);
    expect(records.map((r) => r.title).sort()).toEqual([
      'January review',
      'Standup 0',
      'Standup 1',
      'Standup 2',
      'Standup 3',
      'Standup 4',
    ]);
    const lists = zoom.requests.filter((r) => r.path.endsWith('/recordings'));
    for (const list of lists) {
      expect(Date.parse(list.query.to ?? '') - Date.parse(list.query.from ?? '')).toBeLessThanOrEqual(
        29 * 86_400_000,
      );
    }
    expect(lists[0]?.query.from).toBe('2024-12-15');
    expect(lists.at(-1)?.query.to).toBe('2025-03-15');
    expect(lists.some((l) => l.query.next_page_token)).toBe(true);
    const standup = records.find((r) => r.title === 'Standup 0');
    expect(standup?.content).toBe(
      "Alice Smith: Hello everyone, thanks for joining.\nBob: Happy to be here & ready.\nCarol Jones: Let's look at the pipeline.",
    );
    expect(standup?.metadata).toMatchObject({
      speakers: ['Alice Smith', 'Bob', 'Carol Jones'],
      turns: [
        { speaker: 'Alice Smith', start: 0, end: 4 },
        { speaker: 'Bob', start: 4, end: 7.25 },
        { speaker: 'Carol Jones', start: 7.25, end: 9 },
      ],
      startedAt: '2025-03-01T10:00:00Z',
    });
  });

  it('syncs incrementally from two days before the last sync', async () => {
    zoom.add({ start_time: '2025-03-13T10:00:00Z', vtt: ZOOM_VTT });
    zoom.add({ start_time: '2025-03-01T10:00:00Z', vtt: ZOOM_VTT });
    const pages = await syncAll(connector(), '2025-03-14T00:00:00Z');
    expect(pages.flatMap((p) => p.records)).toHaveLength(1);
    expect(zoom.requests[0]?.query.from).toBe('2025-03-12');
  });

  it('skips a meeting whose transcript is not WebVTT, and goes on', async () => {
    zoom.add({ start_time: '2025-03-02T10:00:00Z', vtt: 'this is not a transcript', uuid: 'broken==' });
    zoom.add({ start_time: '2025-03-03T10:00:00Z', vtt: ZOOM_VTT });
    const pages = await syncAll(connector(undefined, 20));
    expect(pages.flatMap((p) => p.records)).toHaveLength(1);
    expect(pages.flatMap((p) => p.skipped)).toEqual([
      {
        externalId: 'broken==',
        reason: 'transcript: No valid signature. (File needs to start with "WEBVTT".)',
      },
    ]);
  });

  it('fetches one meeting live by UUID (double-encoded when Zoom needs it) or id', async () => {
    const m = zoom.add({
      start_time: '2025-03-03T10:00:00Z',
      vtt: ZOOM_VTT,
      uuid: '/ajXp112QmuoKj4854875==',
    });
    expect(meetingPathId(m.uuid)).toBe('%252FajXp112QmuoKj4854875%253D%253D');
    const record = await connector().fetchRecord('meeting', m.uuid);
    expect(record).toMatchObject({ externalId: m.uuid, title: m.topic });
    await expect(connector().fetchRecord('meeting', String(m.id))).resolves.toMatchObject({
      externalId: m.uuid,
    });
    await expect(connector().fetchRecord('meeting', 'nope')).resolves.toBeNull();
  });

  it('waits out a 429’s Retry-After', async () => {
    zoom.add({ start_time: '2025-03-10T10:00:00Z', vtt: ZOOM_VTT });
    zoom.fault({ status: 429, retryAfter: '1' });
    const pages = await syncAll(connector(undefined, 10));
    expect(pages.flatMap((p) => p.records)).toHaveLength(1);
    expect(sleeps).toEqual([1000]);
  });

  it('has no actions', async () => {
    await expect(connector().execute({} as never)).rejects.toMatchObject({ code: 'REJECTED' });
  });
});
