/**
 * `npm run bench:http`: authenticated JSON GETs that read PostgreSQL, at 1, 16 and 64 connections,
 * beside a bare uWS hello server measured in the same run (the ceiling on this machine):
 *
 * - `GET /api/v1/runs/:id`: token lookup + one run by primary key (the cheapest read there is);
 * - `GET /api/v1/tokens`: token lookup + the org's token list;
 * - the same run read with the shared rate limiter on (the limit raised so nothing is refused): every
 *   request also takes a step of its token's bucket in PostgreSQL;
 * - `GET /api/v1/runs/:id` served over node:http instead of a native uWS build: on this Node
 *   (`R3_HTTP_ENGINE=node`) and on Node 22 where no native build loads (glibc < 2.38), so the README
 *   can say what the fallback costs (BENCH_ENGINES=0 leaves these rows out).
 *
 * BENCH_CONNECTIONS (default `1,16,64`) and BENCH_PARTS (default `runs,tokens,engines,limiter`) pick
 * rows; the headlines (`npm run bench:summary`) are the two `GET /runs/:id` shares of bare uWS at the
 * most connections measured. Each r3 row also prints the CPU a request cost r3's main thread and the
 * database's backends (µs): steadier than throughput on a shared machine.
 */
import {
  completedRun,
  cpuMs,
  createBenchDatabase,
  createBenchSkill,
  createBenchToken,
  databaseCpuMs,
  type LoadResult,
  load,
  nodeBinary,
  printTable,
  r3Cli,
  reportHeadlines,
  share,
  spawnR3,
  spawnServer,
  unlimitOrg,
} from './lib.js';

const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,16,64').split(',').map(Number);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'runs,tokens,engines,limiter').split(','));
const RUNS_LABEL = 'r3 GET /runs/:id (auth, no limit)';
const LIMITED_LABEL = 'r3 GET /runs/:id (auth + limiter)';

const db = await createBenchDatabase('http');
const env = { DATABASE_URL: db.url };
const bare = await spawnServer(['--import', 'tsx', 'bench/bare-uws.ts'], {}, /listening on (http:\/\/\S+)/);
const r3 = await spawnR3(db.url);
try {
  const token = await createBenchToken(db.url, ['read:all', 'write:resources', 'run:invoke']);
  const headers = { authorization: `Bearer ${token}` };
  await unlimitOrg(db.url);
  await createBenchSkill(r3.url, token, 'bench');
  const runUrl = `${r3.url}/api/v1/runs/${await completedRun(r3.url, token, 'bench')}`;
  const tokensUrl = `${r3.url}/api/v1/tokens`;
  const rows: LoadResult[] = [];
  const costs: string[] = [];
  /** `load` on r3, noting the CPU per request of r3's main thread and of the database. */
  const measured = async (label: string, url: string, c: number, request = { headers }) => {
    const pid = r3.child.pid as number;
    const before = [cpuMs(pid, pid), await databaseCpuMs(db.url)];
    const row = await load(label, url, c, request);
    const after = [cpuMs(pid, pid), await databaseCpuMs(db.url)];
    const requests = row.rps * Number(process.env.BENCH_DURATION ?? 10);
    const per = (i: number) => {
      const [a, b] = [before[i], after[i]];
      return a == null || b == null ? '?' : (((b - a) * 1000) / requests).toFixed(1);
    };
    costs.push(
      `${label.padEnd(34)} ${String(c).padStart(5)}  r3 main ${per(0)} µs/req, database ${per(1)} µs/req`,
    );
    return row;
  };
  await load('warm-up', runUrl, 16, { headers, duration: 3 });
  if (PARTS.has('tokens')) await load('warm-up', tokensUrl, 16, { headers, duration: 2 });

  for (const c of CONNECTIONS) rows.push(await load('bare uWS hello', `${bare.url}/`, c));
  if (PARTS.has('runs')) for (const c of CONNECTIONS) rows.push(await measured(RUNS_LABEL, runUrl, c));
  if (PARTS.has('tokens')) {
    for (const c of CONNECTIONS) rows.push(await measured('r3 GET /tokens (auth, no limit)', tokensUrl, c));
  }
  if (PARTS.has('engines') && process.env.BENCH_ENGINES !== '0') {
    const fallbacks: Array<[string, string | null, Record<string, string>]> = [
      [
        `r3 GET /runs/:id node:http, ${process.version.split('.')[0]}`,
        process.execPath,
        { R3_HTTP_ENGINE: 'node' },
      ],
      ['r3 GET /runs/:id Node 22 auto', nodeBinary(22), {}],
    ];
    for (const [label, node, extra] of fallbacks) {
      if (!node) {
        console.log(`(no Node binary for "${label}": row skipped)`);
        continue;
      }
      const other = await spawnR3(db.url, extra, node);
      try {
        await load('warm-up', `${other.url}${new URL(runUrl).pathname}`, 16, { headers, duration: 2 });
        for (const c of CONNECTIONS)
          rows.push(await load(label, `${other.url}${new URL(runUrl).pathname}`, c, { headers }));
      } finally {
        await other.stop();
      }
    }
  }

  if (PARTS.has('limiter')) {
    await r3Cli(['org', 'limits', '--org', 'bench', '--per-min', '100000000', '--burst', '100000000'], env);
    for (const c of CONNECTIONS) rows.push(await measured(LIMITED_LABEL, runUrl, c));
  }

  printTable(
    `bench:http — ${process.env.BENCH_DURATION ?? 10}s per row, load generator in-process, servers in child processes`,
    rows,
    (row) => rows.find((r) => r.label === 'bare uWS hello' && r.connections === row.connections),
  );
  console.log(
    `\nCPU per request (main thread of r3; PostgreSQL's backends of this database)\n${costs.join('\n')}`,
  );
  const most = Math.max(...CONNECTIONS);
  const at = (label: string) => rows.find((r) => r.label === label && r.connections === most);
  const ceiling = at('bare uWS hello');
  const headline = (label: string, what: string, goal: string) => {
    const row = at(label);
    if (!row || !ceiling) return [];
    const value = row.rps / ceiling.rps;
    return [
      {
        what,
        goal,
        value,
        better: 'higher' as const,
        figure: `${share(value)} (${row.rps.toLocaleString('en')} vs ${ceiling.rps.toLocaleString('en')} req/s, ${most} conns)`,
      },
    ];
  };
  reportHeadlines([
    ...headline(RUNS_LABEL, 'GET /runs/:id ÷ bare uWS (authenticated, no limiter)', '≥ 0.35'),
    ...headline(LIMITED_LABEL, 'GET /runs/:id ÷ bare uWS (authenticated, limiter on)', '≥ 0.22 (ef5e43b)'),
  ]);
} finally {
  await Promise.all([r3.stop(), bare.stop()]);
  await db.drop();
}
