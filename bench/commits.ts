/**
 * `npm run bench:commits`: how long PostgreSQL takes to commit on this machine, with nothing else
 * running — the least every r3 transaction waits at its COMMIT. One connection commits a one-row
 * insert every 5 ms for BENCH_DURATION seconds (default 10); with `synchronous_commit` on (the
 * server's default, which r3 keeps) each COMMIT waits for the WAL's flush to disk.
 *
 * Reported: commits/s, the COMMIT's time (sent to answered) p50/p90/p99/p99.9/max, and each commit
 * over 50 ms with when it came. A disk whose flushes stall now and then (seen on a virtual machine's
 * disk: 100 ms to over a second, several times a minute; docs/performance.md, Missions) holds every
 * transaction in flight for that long; `bench:missions` prints how many of its commits took that long.
 */
import pg from 'pg';
import { createBenchDatabase, DURATION_S } from './lib.js';
import { quantile } from './stats.js';

const bench = await createBenchDatabase('commits');
const client = new pg.Client({ connectionString: bench.url });
try {
  await client.connect();
  await client.query('create table probe (n bigint)');
  const [setting] = (await client.query<{ synchronous_commit: string }>('show synchronous_commit')).rows;
  const times: number[] = [];
  const slow: string[] = [];
  const started = performance.now();
  const until = started + DURATION_S * 1000;
  while (performance.now() < until) {
    await client.query('begin');
    await client.query('insert into probe values ($1)', [times.length]);
    const sent = performance.now();
    await client.query('commit');
    const took = performance.now() - sent;
    times.push(took);
    if (took > 50) slow.push(`${took.toFixed(0)} ms at ${((sent - started) / 1000).toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => quantile(sorted, q).toFixed(2);
  console.log(
    `${times.length} commits in ${DURATION_S} s (synchronous_commit ${setting?.synchronous_commit}), one connection, nothing else running`,
  );
  console.log(
    `  COMMIT sent → answered: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, p99.9 ${at(0.999)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`,
  );
  console.log(`  over 50 ms: ${slow.length}${slow.length > 0 ? ` (${slow.join(', ')})` : ''}`);
} finally {
  await client.end().catch(() => undefined);
  await bench.drop();
}
