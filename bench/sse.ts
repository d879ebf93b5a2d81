/**
 * `npm run bench:sse`: 5,000 concurrent event streams on one r3 process.
 *
 * Set-up: workflow runs paused at the first of many approve gates; 5,000 clients (raw sockets in
 * this process, a minimal chunked + SSE parser each) follow them, spread evenly over the runs. Then
 * gates are approved at a steady rate through the API: every approval records two run events
 * (`approved`, then `paused_for_review` at the next gate) that go through the outbox, the bus and
 * the process's per-run subscription to every client of that run.
 *
 * Reported: time to open the streams, r3's resident memory before and after (per 1,000 streams),
 * events delivered against expected, and delivery latency p50/p99 from each event's recorded time
 * (`at`, r3's clock, stamped as the transition starts) to its arrival at the client. Runs once with
 * the in-process bus and, when NATS answers, once with NATS JetStream.
 *
 * The npm script runs this under bench/raise-fd-limit.sh: 5,000 streams take 5,000 descriptors in
 * this process and as many in r3.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import {
  api,
  BENCH_NATS_URL,
  type BenchDatabase,
  benchBusPrefix,
  type Child,
  createBenchDatabase,
  createBenchToken,
  natsAnswers,
  percentiles,
  spawnR3,
} from './lib.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 5_000);
const RUNS = Number(process.env.BENCH_SSE_RUNS ?? 100);
const GATES = 40;
const RATE = Number(process.env.BENCH_SSE_RATE ?? 100);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);

function openFilesLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s+/)[3] ?? 0);
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

/** One SSE client on a raw socket: HTTP head, chunked decoding, frames. */
class StreamClient {
  status = 0;
  frames = 0;
  ended = false;
  private socket: net.Socket;
  private raw: Buffer = Buffer.alloc(0);
  private headDone = false;
  private chunkLeft = -1;
  private text = '';
  private headResolve!: () => void;
  readonly head = new Promise<void>((resolve) => {
    this.headResolve = resolve;
  });

  constructor(
    url: URL,
    path: string,
    token: string,
    private readonly onEvent: (name: string, runId: number, at: number, received: number) => void,
  ) {
    this.socket = net.connect(Number(url.port), url.hostname);
    this.socket.setNoDelay(true);
    this.socket.on('connect', () => {
      this.socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
      );
    });
    this.socket.on('data', (chunk: Buffer) => this.feed(chunk));
    const end = () => {
      this.ended = true;
      this.headResolve();
    };
    this.socket.on('close', end);
    this.socket.on('error', end);
  }

  close(): void {
    this.socket.destroy();
  }

  private feed(chunk: Buffer): void {
    const received = performance.timeOrigin + performance.now();
    this.raw = this.raw.length ? Buffer.concat([this.raw, chunk]) : chunk;
    if (!this.headDone) {
      const end = this.raw.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.status = Number(this.raw.subarray(9, 12).toString('latin1'));
      this.raw = this.raw.subarray(end + 4);
      this.headDone = true;
      this.headResolve();
    }
    // Chunked transfer coding: `<hex size>\r\n<data>\r\n`, repeated; size 0 ends the body.
    for (;;) {
      if (this.chunkLeft < 0) {
        const line = this.raw.indexOf('\r\n');
        if (line < 0) break;
        const size = Number.parseInt(this.raw.subarray(0, line).toString('latin1'), 16);
        this.raw = this.raw.subarray(line + 2);
        if (size === 0) {
          this.ended = true;
          break;
        }
        this.chunkLeft = size;
      }
      if (this.chunkLeft > 0) {
        const take = Math.min(this.chunkLeft, this.raw.length);
        if (take === 0) break;
        this.text += this.raw.subarray(0, take).toString('utf8');
        this.raw = this.raw.subarray(take);
        this.chunkLeft -= take;
      }
      if (this.chunkLeft === 0) {
        if (this.raw.length < 2) break;
        this.raw = this.raw.subarray(2);
        this.chunkLeft = -1;
      }
    }
    for (let end = this.text.indexOf('\n\n'); end >= 0; end = this.text.indexOf('\n\n')) {
      const frame = this.text.slice(0, end);
      this.text = this.text.slice(end + 2);
      if (frame.startsWith(':')) continue;
      this.frames++;
      const name = /^event: (\S+)$/m.exec(frame)?.[1] ?? 'message';
      const at = /"at":"([^"]+)"/.exec(frame)?.[1];
      const runId = Number(/"runId":(\d+)/.exec(frame)?.[1]);
      if (at) this.onEvent(name, runId, Date.parse(at), received);
    }
  }
}

interface Result {
  label: string;
  streams: number;
  openS: number;
  rssBefore: number;
  rssAfter: number;
  approvals: number;
  expected: number;
  delivered: number;
  latencies: number[];
  /** From the approve answer (the commit is done) to arrival: relay, bus and stream only. */
  fromCommit: number[];
}

async function scenario(label: string, db: BenchDatabase, env: Record<string, string>): Promise<Result> {
  const r3: Child = await spawnR3(db.url, {
    R3_SSE_MAX_STREAMS_PER_TOKEN: '0',
    R3_RATE_LIMIT_PER_MIN: '0',
    R3_DB_POOL_SIZE: '20',
    R3_SECRET_KEY: 'bench-sse-master-secret-0123456789abcdef',
    ...env,
  });
  try {
    const token = await createBenchToken(db.url, [
      'read:all',
      'write:resources',
      'run:invoke',
      'run:approve',
    ]);
    await api(r3.url, token, 'POST', '/api/v1/skills', {
      manifest: { slug: 'prep', name: 'Prep' },
      promptMd: 'Prep {{input.text}}',
    });
    await api(r3.url, token, 'POST', '/api/v1/workflows', {
      slug: 'gates',
      name: 'Gates',
      steps: [
        { name: 'prep', type: 'skill', skill: 'prep', input: { text: '{{input.text}}' } },
        ...Array.from({ length: GATES }, (_, i) => ({ name: `gate${i + 1}`, type: 'approve' })),
      ],
    });
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(
        (await api(r3.url, token, 'POST', '/api/v1/workflows/gates/runs', { input: { text: 'x' } })).runId,
      );
    }
    // Every run executes its first step, then pauses at gate1.
    for (const runId of runs) {
      for (let i = 0; ; i++) {
        const run = await api(r3.url, token, 'GET', `/api/v1/runs/${runId}`);
        if (run.status === 'paused') break;
        if (i > 300) throw new Error(`run ${runId} did not pause`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssBefore = rssMb(r3.child.pid as number);

    let measureFrom = Number.POSITIVE_INFINITY;
    const latencies: number[] = [];
    const fromCommit: number[] = [];
    // Per run, its approvals: [sent, answered] (answered is 0 until the answer arrives).
    const approvalsOf = new Map<number, Array<[number, number]>>();
    // Events that arrived before the bench saw their approval's answer: settled when it comes.
    const early: Array<{ runId: number; at: number; received: number }> = [];
    const settle = (runId: number, at: number, received: number): boolean => {
      const approval = approvalsOf
        .get(runId)
        ?.find(([sent, answered]) => sent - 1 <= at && (answered === 0 || at <= answered));
      if (!approval || approval[1] === 0) return false;
      fromCommit.push(Math.max(0, received - approval[1]));
      return true;
    };
    let delivered = 0;
    const onEvent = (name: string, runId: number, at: number, received: number) => {
      if (at < measureFrom || (name !== 'approved' && name !== 'paused_for_review')) return;
      delivered++;
      latencies.push(received - at);
      if (!settle(runId, at, received)) early.push({ runId, at, received });
    };
    const url = new URL(r3.url);
    const clients: StreamClient[] = [];
    const opening = performance.now();
    for (let i = 0; i < STREAMS; i += 250) {
      const batch: StreamClient[] = [];
      for (let j = i; j < Math.min(STREAMS, i + 250); j++) {
        batch.push(new StreamClient(url, `/api/v1/runs/${runs[j % RUNS]}/stream`, token, onEvent));
      }
      await Promise.all(batch.map((c) => c.head));
      clients.push(...batch);
    }
    // The replay of each stream: started, step_started, step_completed, paused_for_review.
    for (let i = 0; clients.some((c) => c.frames < 4); i++) {
      if (i > 600) throw new Error('streams did not replay');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const openS = (performance.now() - opening) / 1000;
    const refused = clients.filter((c) => c.status !== 200 || c.ended).length;
    if (refused > 0) throw new Error(`${refused} streams were refused or ended`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rssAfter = rssMb(r3.child.pid as number);

    // Steady approvals, round robin over the runs; a run's next approval waits for its previous one.
    measureFrom = Date.now();
    let approvals = 0;
    let next = 0;
    const busy = new Set<number>();
    const inflight = new Set<Promise<void>>();
    const deadline = performance.now() + DURATION_S * 1000;
    const interval = 1000 / RATE;
    let due = performance.now();
    while (performance.now() < deadline) {
      const runId = runs[next++ % RUNS] as number;
      if (!busy.has(runId)) {
        busy.add(runId);
        const approval: [number, number] = [Date.now(), 0];
        approvalsOf.set(runId, [...(approvalsOf.get(runId) ?? []), approval]);
        const p = api(r3.url, token, 'POST', `/api/v1/runs/${runId}/approve`, {})
          .then(() => {
            approval[1] = performance.timeOrigin + performance.now();
            approvals++;
          })
          .finally(() => {
            busy.delete(runId);
            inflight.delete(p);
          });
        inflight.add(p);
      }
      due += interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await Promise.all(inflight);
    const perRun = STREAMS / RUNS;
    const expected = approvals * 2 * perRun;
    for (let i = 0; delivered < expected && i < 100; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    for (const c of clients) c.close();
    for (const e of early) settle(e.runId, e.at, e.received);
    return {
      label,
      streams: STREAMS,
      openS,
      rssBefore,
      rssAfter,
      approvals,
      expected,
      delivered,
      latencies,
      fromCommit,
    };
  } finally {
    await r3.stop();
  }
}

const limit = openFilesLimit();
if (limit < STREAMS + 1_000) {
  console.warn(
    `open-files limit is ${limit}: ${STREAMS} streams need about ${STREAMS + 1_000} (run via npm run bench:sse)`,
  );
}
const results: Result[] = [];
const inProcess = await createBenchDatabase('sse');
try {
  results.push(await scenario('in-process bus', inProcess, {}));
} finally {
  await inProcess.drop();
}
if (await natsAnswers()) {
  const withNats = await createBenchDatabase('sse_nats');
  const bus = benchBusPrefix('sse');
  try {
    results.push(
      await scenario('NATS JetStream', withNats, { NATS_URL: BENCH_NATS_URL, R3_BUS_PREFIX: bus.prefix }),
    );
  } finally {
    await withNats.drop();
    await bus.drop();
  }
} else {
  console.log(`(NATS does not answer at ${BENCH_NATS_URL}: the NATS row is skipped)`);
}

console.log(
  `\nbench:sse — ${STREAMS} streams over ${RUNS} workflow runs, ${RATE} approvals/s for ${DURATION_S}s ` +
    `(2 events each, ${STREAMS / RUNS} streams per run); open-files limit ${limit}`,
);
console.log(
  'bus'.padEnd(16),
  'open s'.padStart(7),
  'rss MB'.padStart(12),
  'MB/1k'.padStart(6),
  'appr/s'.padStart(7),
  'events/s'.padStart(9),
  'delivered'.padStart(14),
  ' recorded→client p50/p90/p99/max ms'.padStart(36),
  ' commit→client p50/p99 ms'.padStart(26),
);
for (const r of results) {
  const p = percentiles(r.latencies);
  const c = percentiles(r.fromCommit);
  console.log(
    r.label.padEnd(16),
    r.openS.toFixed(1).padStart(7),
    `${r.rssBefore.toFixed(0)}→${r.rssAfter.toFixed(0)}`.padStart(12),
    (((r.rssAfter - r.rssBefore) / r.streams) * 1000).toFixed(1).padStart(6),
    (r.approvals / DURATION_S).toFixed(0).padStart(7),
    Math.round(r.delivered / DURATION_S)
      .toString()
      .padStart(9),
    `${r.delivered}/${r.expected}`.padStart(14),
    `${p.p50.toFixed(1)} / ${p.p90.toFixed(1)} / ${p.p99.toFixed(1)} / ${p.max.toFixed(1)}`.padStart(36),
    `${c.p50.toFixed(1)} / ${c.p99.toFixed(1)}`.padStart(26),
  );
}
