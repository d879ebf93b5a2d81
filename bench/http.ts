/**
 * `npm run bench:http`: an authenticated JSON GET that reads PostgreSQL (GET /api/v1/tokens: token
 * lookup + list query) at 1, 16 and 64 connections, beside a bare uWS hello server measured in the
 * same run. Also the same GET with the shared rate limiter on (limit raised so nothing is refused).
 */
import {
  createBenchDatabase,
  createBenchToken,
  type LoadResult,
  load,
  printTable,
  r3Cli,
  spawnR3,
  spawnServer,
  unlimitOrg,
} from './lib.js';

const CONNECTIONS = [1, 16, 64];

const db = await createBenchDatabase('http');
const env = { DATABASE_URL: db.url };
const bare = await spawnServer(['--import', 'tsx', 'bench/bare-uws.ts'], {}, /listening on (http:\/\/\S+)/);
const r3 = await spawnR3(db.url);
try {
  const token = await createBenchToken(db.url);
  const headers = { authorization: `Bearer ${token}` };
  const rows: LoadResult[] = [];
  await load('warm-up', `${r3.url}/api/v1/tokens`, 16, { headers, duration: 3 });

  await unlimitOrg(db.url);
  for (const c of CONNECTIONS) rows.push(await load('bare uWS hello', `${bare.url}/`, c));
  for (const c of CONNECTIONS)
    rows.push(await load('r3 GET /tokens (auth, no limit)', `${r3.url}/api/v1/tokens`, c, { headers }));
  await r3Cli(['org', 'limits', '--org', 'bench', '--per-min', '100000000', '--burst', '100000000'], env);
  for (const c of CONNECTIONS)
    rows.push(await load('r3 GET /tokens (auth + limiter)', `${r3.url}/api/v1/tokens`, c, { headers }));

  printTable(
    `bench:http — ${process.env.BENCH_DURATION ?? 10}s per row, autocannon in-process, servers in child processes`,
    rows,
    (row) => rows.find((r) => r.label === 'bare uWS hello' && r.connections === row.connections),
  );
} finally {
  await Promise.all([r3.stop(), bare.stop()]);
  await db.drop();
}
