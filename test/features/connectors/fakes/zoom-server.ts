/**
 * A Zoom-shaped cloud-recordings API for tests over a real socket: `GET /v2/users/{id}`,
 * `GET /v2/users/{id}/recordings` (from/to dates, at most 30 days per query as Zoom enforces,
 * `page_size`, `next_page_token`), `GET /v2/meetings/{id|uuid}/recordings` (UUIDs double-encoded
 * when Zoom requires it), and transcript downloads serving WebVTT (`text/vtt`) behind the same
 * Bearer token. Faults on demand: 429 with `Retry-After`, slow answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeMeeting {
  uuid: string;
  id: number;
  topic: string;
  start_time: string;
  duration: number;
  /** The transcript; null for a meeting whose transcript is not ready. */
  vtt: string | null;
}

type Fault = { status: number; retryAfter?: string } | { delayMs: number };

export interface FakeZoom {
  url: string;
  token: string;
  meetings: FakeMeeting[];
  requests: Array<{ path: string; query: Record<string, string> }>;
  add(meeting: Partial<FakeMeeting> & { vtt: string | null; start_time: string }): FakeMeeting;
  fault(fault: Fault, count?: number): void;
  close(): Promise<void>;
}

const DAY = 86_400_000;

export async function startFakeZoom(options: { token?: string } = {}): Promise<FakeZoom> {
  const token = options.token ?? 'zoom-access-token-1';
  const meetings: FakeMeeting[] = [];
  const requests: FakeZoom['requests'] = [];
  const faults: Fault[] = [];
  let nextId = 81_000_000_000;
  let base = '';

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(JSON.stringify(body));
  };

  const view = (m: FakeMeeting) => ({
    uuid: m.uuid,
    id: m.id,
    account_id: 'acc1',
    host_id: 'host1',
    topic: m.topic,
    type: 2,
    start_time: m.start_time,
    timezone: 'UTC',
    duration: m.duration,
    recording_count: m.vtt === null ? 1 : 2,
    recording_files: [
      {
        id: `${m.id}-mp4`,
        meeting_id: m.uuid,
        file_type: 'MP4',
        file_extension: 'MP4',
        status: 'completed',
        download_url: `${base}/rec/download/${m.id}.mp4`,
        recording_type: 'shared_screen_with_speaker_view',
      },
      ...(m.vtt === null
        ? []
        : [
            {
              id: `${m.id}-vtt`,
              meeting_id: m.uuid,
              file_type: 'TRANSCRIPT',
              file_extension: 'VTT',
              status: 'completed',
              download_url: `${base}/rec/download/${m.id}.vtt`,
              recording_type: 'audio_transcript',
            },
          ]),
    ],
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const fault = faults.shift();
    if (fault && 'delayMs' in fault) await new Promise((r) => setTimeout(r, fault.delayMs));
    else if (fault) {
      res.writeHead(fault.status, {
        'content-type': 'application/json',
        ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}),
      });
      res.end(
        JSON.stringify({
          code: 429,
          message: 'You have reached the maximum per-second rate limit for this API. Try again later.',
        }),
      );
      return;
    }
    if (req.headers.authorization !== `Bearer ${token}`)
      return json(res, 401, { code: 124, message: 'Invalid access token.' });
    const download = /^\/rec\/download\/(\d+)\.vtt$/.exec(url.pathname);
    if (download) {
      const m = meetings.find((x) => String(x.id) === download[1]);
      if (!m || m.vtt === null)
        return json(res, 404, { code: 3301, message: 'This recording does not exist.' });
      res.writeHead(200, { 'content-type': 'text/vtt;charset=UTF-8' });
      res.end(m.vtt);
      return;
    }
    const user = /^\/v2\/users\/([^/]+)$/.exec(url.pathname);
    if (user)
      return json(res, 200, {
        id: 'host1',
        email: 'host@example.com',
        first_name: 'Host',
        account_id: 'acc1',
      });
    const list = /^\/v2\/users\/([^/]+)\/recordings$/.exec(url.pathname);
    if (list) {
      const from = url.searchParams.get('from') ?? '';
      const to = url.searchParams.get('to') ?? '';
      if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) {
        return json(res, 300, { code: 300, message: 'Invalid parameter: from/to.' });
      }
      const fromMs = Date.parse(`${from}T00:00:00Z`);
      const toMs = Date.parse(`${to}T00:00:00Z`) + DAY;
      if (toMs - fromMs > 31 * DAY)
        return json(res, 400, { code: 300, message: 'The date range must be within one month.' });
      const size = Math.min(300, Number(url.searchParams.get('page_size') ?? 30));
      const offset = Number(url.searchParams.get('next_page_token') || 0);
      const found = meetings
        .filter((m) => Date.parse(m.start_time) >= fromMs && Date.parse(m.start_time) < toMs)
        .sort((a, b) => b.start_time.localeCompare(a.start_time));
      const page = found.slice(offset, offset + size);
      return json(res, 200, {
        from,
        to,
        page_count: Math.ceil(found.length / size),
        page_size: size,
        total_records: found.length,
        next_page_token: offset + size < found.length ? String(offset + size) : '',
        meetings: page.map(view),
      });
    }
    const one = /^\/v2\/meetings\/([^/]+)\/recordings$/.exec(url.pathname);
    if (one) {
      // The path arrives once decoded by URL parsing rules; a double-encoded UUID needs one more.
      let id = decodeURIComponent(one[1] ?? '');
      if (id.includes('%')) id = decodeURIComponent(id);
      const m = meetings.find((x) => x.uuid === id || String(x.id) === id);
      if (!m) return json(res, 404, { code: 3301, message: 'This recording does not exist.' });
      return json(res, 200, view(m));
    }
    json(res, 404, { code: 404, message: 'Not found' });
  }

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      handle(req, res).catch((e: unknown) => {
        res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/v2`,
    token,
    meetings,
    requests,
    add(partial) {
      const id = partial.id ?? nextId++;
      const meeting: FakeMeeting = {
        uuid: partial.uuid ?? `uuid-${id}==`,
        id,
        topic: partial.topic ?? `Meeting ${id}`,
        start_time: partial.start_time,
        duration: partial.duration ?? 30,
        vtt: partial.vtt,
      };
      meetings.push(meeting);
      return meeting;
    },
    fault(fault, count = 1) {
      for (let i = 0; i < count; i++) faults.push(fault);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
