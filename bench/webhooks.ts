/**
 * `npm run bench:webhooks`: webhook deliveries per second from one r3 process to a local receiver.
 *
 * Set-up: WEBHOOKS webhooks on one org, all subscribed to `object.created`, all pointing at a
 * receiver in this process that checks every delivery's `X-Service-Signature` (HMAC-SHA256 over
 * `<t>.<raw body>` with node:crypto, constant-time compare) and answers 204. Objects are then
 * ingested through the API for BENCH_DURATION seconds by a few clients; each ingest is one event,
 * fanned out to every webhook: outbox → bus → dispatcher (durable consumer) → one delivery actor
 * per webhook → a `deliver` job → signed POST → the attempt recorded with the delivery's transition.
 *
 * Reported: events ingested per second, deliveries verified per second (from the first to the last
 * delivery, and in the steady window while ingesting), attempt rows recorded, failed signatures, and
 * event→delivery latency (the body's `createdAt` to its arrival).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import pg from 'pg';
import { type Received, startReceiver } from '../fakes/webhook-receiver.js';
import {
  api,
  type Child,
  cpuMs,
  createBenchDatabase,
  createBenchToken,
  DURATION_S,
  percentiles,
  spawnR3,
} from './lib.js';

const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 10);
const INGESTERS = Number(process.env.BENCH_INGESTERS ?? 8);
const SECRET = 'whsec_bench_0123456789abcdefghijklmnop';

interface Receipt {
  at: number;
  latency: number;
}

/** Whether a delivery's `X-Service-Signature` is SECRET's over its body, checked with node:crypto. */
function signed(delivery: Received): boolean {
  const header = String(delivery.headers['x-service-signature'] ?? '');
  let t = '';
  const sigs: Buffer[] = [];
  for (const part of header.split(',')) {
    if (part.startsWith('t=')) t = part.slice(2);
    else if (part.startsWith('v1=')) sigs.push(Buffer.from(part.slice(3), 'hex'));
  }
  const expected = createHmac('sha256', SECRET).update(`${t}.`).update(delivery.raw).digest();
  return (
    /^\d+$/.test(t) &&
    Math.abs(delivery.at / 1000 - Number(t)) <= 300 &&
    sigs.some((s) => s.length === expected.length && timingSafeEqual(s, expected))
  );
}

/** The receiver (fakes/): answers 204 to every delivery; `receipts` are those correctly signed. */
async function startVerifyingReceiver(): Promise<{
  url: string;
  /** Deliveries received so far, signed or not. */
  received(): number;
  receipts(): Receipt[];
  invalid(): number;
  close(): Promise<void>;
}> {
  const receiver = await startReceiver();
  receiver.respondWith(204, '');
  const valid = () => receiver.received.items.filter(signed);
  return {
    url: receiver.url,
    received: () => receiver.received.items.length,
    receipts: () =>
      valid().map((delivery) => {
        const createdAt = /"createdAt":"([^"]+)"/.exec(delivery.raw)?.[1];
        return { at: delivery.at, latency: createdAt ? delivery.at - Date.parse(createdAt) : 0 };
      }),
    invalid: () => receiver.received.items.length - valid().length,
    close: () => receiver.close(),
  };
}

const R3_ENV = {
  R3_WEBHOOK_ALLOW_PRIVATE: 'true',
  R3_RATE_LIMIT_PER_MIN: '0',
  R3_DB_POOL_SIZE: '20',
  R3_SECRET_KEY: 'bench-webhooks-master-secret-0123456789abcdef',
  ...(process.env.BENCH_NATS_URL ? { NATS_URL: process.env.BENCH_NATS_URL } : {}),
};

/** Registers the webhooks and the object type; returns the token. */
async function prepare(r3: Child, dbUrl: string, receiverUrl: string): Promise<string> {
  const token = await createBenchToken(dbUrl, ['read:all', 'write:resources', 'run:invoke']);
  await api(r3.url, token, 'POST', '/api/v1/objects/types', { slug: 'ticket', name: 'Ticket' });
  for (let i = 0; i < WEBHOOKS; i++) {
    await api(r3.url, token, 'POST', '/api/v1/webhooks', {
      url: `${receiverUrl}/hook/${i}`,
      events: ['object.created'],
      secret: SECRET,
    });
  }
  return token;
}

/** Ingests objects with INGESTERS clients in a closed loop until `stop()` says so; resolves with the count. */
async function ingestWhile(r3: Child, token: string, more: (done: number) => boolean): Promise<number> {
  let events = 0;
  await Promise.all(
    Array.from({ length: INGESTERS }, async (_, client) => {
      for (let i = 0; more(events); i++) {
        events++;
        await api(r3.url, token, 'POST', '/api/v1/objects/ticket/instances', {
          title: `ticket ${client}-${i}`,
          metadata: {},
          content: 'The printer on the third floor is on fire again.',
        });
      }
    }),
  );
  return events;
}

/** CPU seconds (user + system) a process has used so far (0 off Linux). */
function cpuSeconds(pid: number): number {
  return (cpuMs(pid) ?? 0) / 1000;
}

async function count(dbUrl: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(sql);
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

function report(
  label: string,
  receipts: Receipt[],
  expected: number,
  invalid: number,
  extra: string[],
): void {
  const first = Math.min(...receipts.map((r) => r.at));
  const last = Math.max(...receipts.map((r) => r.at));
  console.log(`\n${label}`);
  console.log(`  deliveries verified   ${receipts.length}/${expected} (bad signatures: ${invalid})`);
  console.log(
    `  deliveries/s          ${(receipts.length / ((last - first) / 1000)).toFixed(0)} (first to last delivery)`,
  );
  for (const line of extra) console.log(`  ${line}`);
}

const workers = process.env.BENCH_WORKERS ?? '32';
const bus = process.env.BENCH_NATS_URL ? 'NATS' : 'in-process bus';
console.log(
  `bench:webhooks — ${WEBHOOKS} webhooks on one org, all on one local receiver that verifies every signature; ` +
    `r3 (${bus}, ${workers} workers) in a child process`,
);

// 1. Backlog drain: deliveries created with no workers running, then one r3 with workers delivers
//    them all. Measures the delivery pipeline alone: claim, ATTEMPT_STARTED, signed POST,
//    ATTEMPT_SUCCEEDED with its attempt row and the job's completion.
{
  const db = await createBenchDatabase('webhooks_drain');
  const receiver = await startVerifyingReceiver();
  const children: Child[] = [];
  try {
    const producer = await spawnR3(db.url, { ...R3_ENV, R3_WORKER_CONCURRENCY: '0' });
    children.push(producer);
    const token = await prepare(producer, db.url, receiver.url);
    const target = Number(process.env.BENCH_BACKLOG ?? 1_000);
    const events = await ingestWhile(producer, token, (n) => n < target);
    const expected = events * WEBHOOKS;
    await until(
      async () => (await count(db.url, 'select count(*)::int as n from webhook_deliveries')) >= expected,
      120_000,
    );
    await producer.stop();
    const started = Date.now();
    const deliverer = await spawnR3(db.url, { ...R3_ENV, R3_WORKER_CONCURRENCY: workers });
    children.push(deliverer);
    const cpuAtStart = cpuSeconds(deliverer.child.pid as number);
    await until(async () => receiver.received() >= expected, 300_000);
    const cpu = cpuSeconds(deliverer.child.pid as number) - cpuAtStart;
    const attempts = await count(db.url, 'select count(*)::int as n from webhook_attempts');
    const delivered = await count(
      db.url,
      `select count(*)::int as n from webhook_deliveries where api_status = 'delivered'`,
    );
    const receipts = receiver.receipts();
    report(
      `backlog drain: ${expected} queued deliveries (${events} events × ${WEBHOOKS} webhooks)`,
      receipts,
      expected,
      receiver.invalid(),
      [
        `start of the delivering process to the last delivery: ${((Math.max(...receipts.map((r) => r.at)) - started) / 1000).toFixed(1)} s`,
        `attempt rows ${attempts}, deliveries delivered ${delivered}`,
        `r3 CPU ${cpu.toFixed(1)} s: ${((cpu * 1000) / expected).toFixed(2)} ms per delivery ` +
          `(${(expected / cpu).toFixed(0)} deliveries per r3 CPU-second)`,
      ],
    );
  } finally {
    for (const child of children) await child.stop();
    await receiver.close();
    await db.drop();
  }
}

// 2. End to end while ingesting: ingest → outbox → bus → dispatcher → deliveries → receiver.
{
  const db = await createBenchDatabase('webhooks_e2e');
  const receiver = await startVerifyingReceiver();
  let child: Child | null = null;
  try {
    const r3 = await spawnR3(db.url, { ...R3_ENV, R3_WORKER_CONCURRENCY: workers });
    child = r3;
    const token = await prepare(r3, db.url, receiver.url);
    const started = Date.now();
    const stopAt = performance.now() + DURATION_S * 1000;
    const events = await ingestWhile(r3, token, () => performance.now() < stopAt);
    const ingestEnded = Date.now();
    const expected = events * WEBHOOKS;
    await until(async () => receiver.received() >= expected, 300_000);
    const receipts = receiver.receipts();
    const inWindow = receipts.filter((r) => r.at >= started && r.at <= ingestEnded).length;
    const attempts = await count(db.url, 'select count(*)::int as n from webhook_attempts');
    const p = percentiles(receipts.map((r) => r.latency));
    report(
      `end to end: ${INGESTERS} clients ingesting for ${DURATION_S}s`,
      receipts,
      expected,
      receiver.invalid(),
      [
        `events ingested ${events} (${(events / ((ingestEnded - started) / 1000)).toFixed(0)}/s); deliveries/s while ingesting ${(inWindow / ((ingestEnded - started) / 1000)).toFixed(0)}`,
        `attempt rows ${attempts}`,
        `event→delivery latency p50 ${p.p50.toFixed(0)} ms, p90 ${p.p90.toFixed(0)} ms, p99 ${p.p99.toFixed(0)} ms`,
      ],
    );
  } finally {
    await child?.stop();
    await receiver.close();
    await db.drop();
  }
}
