/**
 * The `meetings` connector: Zoom's cloud-recordings API (`/v2`) with a Bearer access token.
 *
 * A sync lists the user's recordings (`GET /users/{userId}/recordings`) in windows of at most 30 days
 * (Zoom's limit per query), from `lookbackDays` ago — or, incrementally, from two days before the
 * last sync (a transcript is ready hours after its meeting) — to today, following
 * `next_page_token` inside a window. Each meeting with a completed `TRANSCRIPT` file becomes a record
 * whose externalId is the meeting's UUID: its WebVTT is downloaded and parsed into speaker turns
 * (`content` holds one `Speaker: text` line per turn, `metadata.turns` their speakers and times).
 */
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
import { createHttpClient, type HttpClient, type RetryPolicy } from '../http-client.js';
import { type TranscriptTurn, transcriptTurns, turnLines, WebVttError } from './webvtt-turns.js';

/** The `connection` settings of a meetings source. */
export const meetingsConnectionSchema = z.looseObject({
  baseUrl: z.url({ protocol: /^https?$/ }).default('https://api.zoom.us/v2'),
  /** Whose recordings (`me`: the token's user). */
  userId: z.string().min(1).max(200).default('me'),
  /** How far back a first sync reads. */
  lookbackDays: z.number().int().min(1).max(3650).default(90),
  /** Meetings per list page (Zoom allows up to 300). */
  pageSize: z.number().int().min(1).max(300).default(30),
});
/** Parsed meetings connection settings. */
export type MeetingsConnection = z.output<typeof meetingsConnectionSchema>;

/** The credentials of a meetings source. */
export const meetingsCredentialsSchema = z.strictObject({ accessToken: z.string().min(1).max(4096) });
/** Meetings credentials. */
export type MeetingsCredentials = z.output<typeof meetingsCredentialsSchema>;

/** What the connector needs besides settings and credentials. */
export interface MeetingsConnectorOptions {
  retry?: RetryPolicy;
  timeoutMs?: number;
  fetch?: typeof fetch;
  guard?: (url: URL) => Promise<void>;
  /** The clock (epoch ms) that says what "today" is. */
  now?: () => number;
}

/** A recording file as Zoom lists it (unchecked). */
interface ZoomFile {
  file_type?: unknown;
  file_extension?: unknown;
  download_url?: unknown;
  status?: unknown;
}

/** A meeting as Zoom lists it (unchecked). */
interface ZoomMeeting {
  uuid?: unknown;
  id?: unknown;
  topic?: unknown;
  start_time?: unknown;
  duration?: unknown;
  host_id?: unknown;
  recording_files?: unknown;
}

interface ListAnswer {
  meetings?: ZoomMeeting[];
  next_page_token?: string;
}

const DAY = 86_400_000;
const WINDOW_DAYS = 30;
const cursorSchema = z.object({
  from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  token: z.string().optional(),
});

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Zoom's error body: `{code, message}`. */
function zoomErrorMessage(_status: number, body: unknown): string | undefined {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : undefined;
}

/** A meeting id or UUID as a path segment: UUIDs starting with `/` or holding `//` are encoded twice. */
export function meetingPathId(id: string): string {
  const once = encodeURIComponent(id);
  return id.startsWith('/') || id.includes('//') ? encodeURIComponent(once) : once;
}

function transcriptFile(meeting: ZoomMeeting): ZoomFile | undefined {
  const files = Array.isArray(meeting.recording_files) ? (meeting.recording_files as ZoomFile[]) : [];
  return files.find(
    (f) => f.file_type === 'TRANSCRIPT' && (f.status === undefined || f.status === 'completed'),
  );
}

/** Creates the connector of one meetings source. */
export function createMeetingsConnector(
  connection: MeetingsConnection,
  credentials: MeetingsCredentials,
  options: MeetingsConnectorOptions = {},
): Connector {
  const http: HttpClient = createHttpClient({
    name: 'Zoom',
    baseUrl: connection.baseUrl,
    authorization: `Bearer ${credentials.accessToken}`,
    errorMessage: zoomErrorMessage,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.guard ? { guard: options.guard } : {}),
  });
  const now = options.now ?? Date.now;
  const signalOf = (signal?: AbortSignal) => (signal ? { signal } : {});

  /** The meeting as a record, or why it cannot be one; undefined when it has no transcript yet. */
  async function toRecord(
    meeting: ZoomMeeting,
    signal?: AbortSignal,
  ): Promise<
    { ok: true; record: SourceRecord } | { ok: false; externalId: string | null; reason: string } | undefined
  > {
    const uuid = typeof meeting.uuid === 'string' && meeting.uuid !== '' ? meeting.uuid : null;
    if (uuid === null) return { ok: false, externalId: null, reason: 'the meeting has no uuid' };
    const file = transcriptFile(meeting);
    if (!file) return undefined;
    if (typeof file.download_url !== 'string') {
      return { ok: false, externalId: uuid, reason: 'the transcript has no download_url' };
    }
    const vtt = await http.text({ path: file.download_url, ...signalOf(signal) });
    let turns: TranscriptTurn[];
    try {
      turns = transcriptTurns(vtt);
    } catch (error) {
      if (error instanceof WebVttError)
        return { ok: false, externalId: uuid, reason: `transcript: ${error.message}` };
      throw error;
    }
    const topic =
      typeof meeting.topic === 'string' && meeting.topic.trim() !== '' ? meeting.topic.trim() : null;
    const startedAt = typeof meeting.start_time === 'string' ? meeting.start_time : null;
    const speakers = [...new Set(turns.flatMap((t) => (t.speaker ? [t.speaker] : [])))];
    return {
      ok: true,
      record: {
        externalId: uuid,
        title: topic ?? `Meeting ${String(meeting.id ?? uuid)}`,
        content: turnLines(turns),
        metadata: {
          meetingId: meeting.id === undefined ? null : String(meeting.id),
          uuid,
          topic,
          startedAt,
          duration: typeof meeting.duration === 'number' ? meeting.duration : null,
          hostId: typeof meeting.host_id === 'string' ? meeting.host_id : null,
          speakers,
          turns: turns.map(({ speaker, start, end }) => ({ speaker, start, end })),
        },
        updatedAt: startedAt,
      },
    };
  }

  async function syncPage(request: SyncPageRequest): Promise<SyncPage> {
    if (request.record !== 'meeting') {
      throw new ConnectorError('REJECTED', `the meetings connector has no record kind "${request.record}"`);
    }
    const today = now();
    const start = request.since ? Date.parse(request.since) - 2 * DAY : today - connection.lookbackDays * DAY;
    let cursor: z.output<typeof cursorSchema>;
    try {
      cursor = cursorSchema.parse(
        request.cursor === null ? { from: day(start) } : JSON.parse(request.cursor),
      );
    } catch {
      throw new ConnectorError('REJECTED', 'the meetings sync cursor is unreadable');
    }
    const from = Date.parse(`${cursor.from}T00:00:00Z`);
    const to = Math.min(from + (WINDOW_DAYS - 1) * DAY, today);
    const answer = await http.json<ListAnswer>({
      path: `users/${encodeURIComponent(connection.userId)}/recordings`,
      query: {
        from: cursor.from,
        to: day(to),
        page_size: connection.pageSize,
        next_page_token: cursor.token,
      },
      ...signalOf(request.signal),
    });
    if (!answer || !Array.isArray(answer.meetings)) {
      throw new ConnectorError('BAD_RESPONSE', 'Zoom answered a recordings list without a meetings array');
    }
    const page: SyncPage = { records: [], skipped: [], next: null };
    for (const meeting of answer.meetings) {
      const result = await toRecord(meeting, request.signal);
      if (!result) continue;
      if (result.ok) page.records.push(result.record);
      else page.skipped.push({ externalId: result.externalId, reason: result.reason });
    }
    if (answer.next_page_token)
      page.next = JSON.stringify({ from: cursor.from, token: answer.next_page_token });
    else if (day(to) < day(today)) page.next = JSON.stringify({ from: day(to + DAY) });
    return page;
  }

  return {
    kind: 'meetings',
    recordKinds: ['meeting'],
    async check(signal?: AbortSignal): Promise<CheckResult> {
      const user = await http.json<{ email?: unknown; id?: unknown }>({
        path: `users/${encodeURIComponent(connection.userId)}`,
        ...signalOf(signal),
      });
      const account =
        typeof user?.email === 'string' ? user.email : typeof user?.id === 'string' ? user.id : null;
      if (account === null) throw new ConnectorError('BAD_RESPONSE', 'Zoom answered a user without an id');
      return { account: `Zoom user ${account}` };
    },
    syncPage,
    async fetchRecord(record: string, externalId: string, signal?: AbortSignal) {
      if (record !== 'meeting') return null;
      let meeting: ZoomMeeting;
      try {
        meeting = await http.json<ZoomMeeting>({
          path: `meetings/${meetingPathId(externalId)}/recordings`,
          ...signalOf(signal),
        });
      } catch (error) {
        if (error instanceof ConnectorError && error.code === 'NOT_FOUND') return null;
        throw error;
      }
      const result = await toRecord(meeting, signal);
      if (!result) return null;
      if (!result.ok)
        throw new ConnectorError('BAD_RESPONSE', `Zoom meeting ${externalId}: ${result.reason}`);
      return result.record;
    },
    async execute(): Promise<ActionResult> {
      throw new ConnectorError('REJECTED', 'the meetings connector has no actions');
    },
    close: async () => undefined,
  };
}
