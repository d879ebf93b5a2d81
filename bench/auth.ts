/**
 * bench:auth — does a known token id with a wrong secret answer as fast as an unknown id? (Issue 19:
 * it was measurably slower, which tells an attacker which ids exist.) Drives `GET /api/v1/tokens`
 * on one `r3 serve` with three kinds of Bearer token — an unknown id, the real id with a wrong
 * secret, and the real token — in interleaved rounds, and prints throughput and latency percentiles
 * with the wrong-secret rows as a share of the unknown-id rows measured in the same run.
 *
 *   npm run bench:auth                  BENCH_DURATION=3 (seconds per round), BENCH_ROUNDS=3
 */
import { issueToken, parseToken } from '../src/platform/auth/tokens.js';
import {
  createBenchDatabase,
  createBenchToken,
  DURATION_S,
  type LoadResult,
  load,
  printTable,
  spawnR3,
} from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

const database = await createBenchDatabase('auth');
const server = await spawnR3(database.url, { R3_RATE_LIMIT_PER_MIN: '0' });
try {
  const real = await createBenchToken(database.url);
  const parsed = parseToken(real);
  if (!parsed) throw new Error('the bench token does not parse');
  const kinds = {
    'unknown id': issueToken(parsed.env).token,
    'known id, wrong secret': issueToken(parsed.env, parsed.tokenId).token,
    'real token': real,
  };
  const rows: LoadResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [label, token] of Object.entries(kinds)) {
      rows.push(
        await load(`${label} (round ${round})`, `${server.url}/api/v1/tokens`, CONNECTIONS, {
          headers: { authorization: `Bearer ${token}` },
          duration: Math.max(1, Math.round(DURATION_S / 3)),
        }),
      );
    }
  }
  printTable(
    `GET /api/v1/tokens by token kind, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds`,
    rows,
    (row) => rows.find((r) => r.label === row.label.replace(/^[^(]+/, 'unknown id ')),
  );
  const sum = (label: string, key: 'rps' | 'p50' | 'p99') => {
    const mine = rows.filter((r) => r.label.startsWith(label));
    return mine.reduce((total, r) => total + r[key], 0) / mine.length;
  };
  const unknown = {
    rps: sum('unknown id', 'rps'),
    p50: sum('unknown id', 'p50'),
    p99: sum('unknown id', 'p99'),
  };
  const wrong = {
    rps: sum('known id, wrong secret', 'rps'),
    p50: sum('known id, wrong secret', 'p50'),
    p99: sum('known id, wrong secret', 'p99'),
  };
  console.log(
    `\nwrong secret vs unknown id (mean of rounds): throughput ${((wrong.rps / unknown.rps) * 100).toFixed(1)}%, ` +
      `p50 ${((wrong.p50 / unknown.p50) * 100).toFixed(1)}%, p99 ${((wrong.p99 / unknown.p99) * 100).toFixed(1)}%`,
  );
} finally {
  await server.stop();
  await database.drop();
}
