/**
 * bench:auth — does a known token id with a wrong secret answer as fast as an unknown id? (Issue 19:
 * it was measurably slower, which tells an attacker which ids exist.) Drives `GET /api/v1/tokens`
 * on one `r3 serve` with three kinds of Bearer token — an unknown id, the real id with a wrong
 * secret, and the real token — in interleaved rounds, and prints throughput and latency percentiles
 * with the wrong-secret rows as a share of the unknown-id rows measured in the same run.
 *
 * Then the OAuth token endpoint's code exchange (issue 41, goal p99 < 50 ms): codes are made the way
 * the consent page makes them (a browser session's authorize and Allow), in batches well inside their
 * 60 s, and each is exchanged once (`grant_type=authorization_code` with its PKCE verifier) by
 * BENCH_OAUTH_CONCURRENCY clients; every exchange's latency counts.
 *
 *   npm run bench:auth                  BENCH_DURATION=3 (seconds per round), BENCH_ROUNDS=3,
 *                                       BENCH_EXCHANGES=600, BENCH_OAUTH_CONCURRENCY=4
 */
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { issueToken, parseToken } from '../src/platform/auth/tokens.js';
import {
  createBenchDatabase,
  createBenchToken,
  DURATION_S,
  type LoadResult,
  load,
  percentiles,
  printTable,
  r3Cli,
  spawnR3,
} from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const EXCHANGES = Number(process.env.BENCH_EXCHANGES ?? 600);
const OAUTH_CONCURRENCY = Number(process.env.BENCH_OAUTH_CONCURRENCY ?? 4);
/** Codes made before each exchange phase (each lives 60 s). */
const BATCH = 100;
const REDIRECT = 'http://127.0.0.1:9/callback';

/** A browser session of user `bench` (a sign-in link spent by POST /api/v1/sessions). */
async function benchSession(base: string, databaseUrl: string): Promise<{ cookie: string; csrf: string }> {
  const link = JSON.parse(
    await r3Cli(['login-link', '--org', 'bench', '--user', 'bench', '--json'], { DATABASE_URL: databaseUrl }),
  ) as { url: string };
  const response = await fetch(`${base}/api/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ link: new URL(link.url).hash.replace('#link=', '') }),
  });
  if (response.status !== 201) throw new Error(`sign-in answered ${response.status}`);
  const body = (await response.json()) as { session: { csrfToken: string } };
  return {
    cookie: (response.headers.get('set-cookie') ?? '').split(';')[0] as string,
    csrf: body.session.csrfToken,
  };
}

/** A code (and its verifier) allowed by `session` for `clientId`, as the consent page gets one. */
async function allowedCode(
  base: string,
  session: { cookie: string; csrf: string },
  clientId: string,
): Promise<{ code: string; verifier: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${base}/oauth/authorize`);
  for (const [key, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'read:all run:invoke',
    resource: `${base}/api/mcp`,
  })) {
    url.searchParams.set(key, value);
  }
  const started = await fetch(url, { redirect: 'manual' });
  const request = new URL(started.headers.get('location') ?? '').searchParams.get('request');
  if (!request) throw new Error(`authorize answered ${started.status}`);
  const decided = await fetch(`${base}/api/v1/oauth/requests/${request}/decision`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: session.cookie,
      origin: base,
      'x-csrf-token': session.csrf,
    },
    body: JSON.stringify({ allow: true }),
  });
  const { redirectTo } = (await decided.json()) as { redirectTo: string };
  return { code: new URL(redirectTo).searchParams.get('code') as string, verifier };
}

/** Exchanges every code once, `OAUTH_CONCURRENCY` at a time; answers each exchange's milliseconds. */
async function exchangeAll(
  base: string,
  clientId: string,
  codes: Array<{ code: string; verifier: string }>,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < codes.length) {
      const { code, verifier } = codes[next++] as { code: string; verifier: string };
      const started = performance.now();
      const response = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: clientId,
          code_verifier: verifier,
          resource: `${base}/api/mcp`,
        }).toString(),
      });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`the token endpoint answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: OAUTH_CONCURRENCY }, worker));
  return latencies;
}

/** bench:auth's OAuth row: the code exchange's latency percentiles and throughput. */
async function benchCodeExchange(base: string, databaseUrl: string): Promise<void> {
  const session = await benchSession(base, databaseUrl);
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', redirect_uris: [REDIRECT] }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const latencies: number[] = [];
  let exchangeMs = 0;
  while (latencies.length < EXCHANGES) {
    const codes: Array<{ code: string; verifier: string }> = [];
    for (let i = 0; i < Math.min(BATCH, EXCHANGES - latencies.length); i++) {
      codes.push(await allowedCode(base, session, clientId));
    }
    const started = performance.now();
    latencies.push(...(await exchangeAll(base, clientId, codes)));
    exchangeMs += performance.now() - started;
  }
  const p = percentiles(latencies);
  if (process.env.BENCH_OAUTH_METRICS === '1') {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    console.log(
      metrics
        .split('\n')
        .filter((line) =>
          /^r3_db_commit_duration_seconds_(sum|count)|^r3_http_request_duration_seconds_(sum|count)\{.*oauth\/token/.test(
            line,
          ),
        )
        .join('\n'),
    );
  }
  console.log(
    `\nPOST /oauth/token, authorization_code (${latencies.length} exchanges, ${OAUTH_CONCURRENCY} clients, load ${loadavg()[0]?.toFixed(1)}):`,
  );
  console.log(
    `  ${Math.round(latencies.length / (exchangeMs / 1000))} exchanges/s, p50 ${p.p50.toFixed(2)} ms, p90 ${p.p90.toFixed(2)} ms, ` +
      `p99 ${p.p99.toFixed(2)} ms, max ${p.max.toFixed(2)} ms (goal: p99 < 50 ms: ${p.p99 < 50 ? 'met' : 'NOT met'})`,
  );
}

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
  await benchCodeExchange(server.url, database.url);
} finally {
  await server.stop();
  await database.drop();
}
