/**
 * `npm run bench:search`: ingest BENCH_DOCS (default 100,000) generated business documents of five
 * object types through the ingest service (`ObjectService.ingestMany`, the API's path, in batches), then
 * measure hybrid search latency over them with a mix of queries; then, against `r3 serve` on the same
 * database, HTTP ingest throughput (`POST /objects/:slug/instances`) and HTTP search latency for samples.
 * Goals: ingest ≥ 1,000 instances/s, search p99 < 50 ms.
 */
import { performance } from 'node:perf_hooks';
import { ObjectService } from '../src/features/objects/object-service.js';
import { createLocalEmbedder } from '../src/features/objects/search/local-embedder.js';
import { SearchService } from '../src/features/objects/search/search-service.js';
import { TokenService } from '../src/features/tokens/service.js';
import type { WorkspaceResource } from '../src/features/workspace/manifests.js';
import { WorkspaceStore } from '../src/features/workspace/store.js';
import { migrations } from '../src/migrations.js';
import type { Attribution } from '../src/platform/auth/attribution.js';
import { openDatabase } from '../src/platform/db/database.js';
import { createLogger } from '../src/platform/log.js';
import { systemClock } from '../src/platform/util/clock.js';
import { CORPUS_TYPES, type CorpusDoc, createCorpus } from './corpus.js';
import { createBenchDatabase, load, percentiles, spawnR3, unlimitOrg } from './lib.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 1_000);
const STREAMS = Number(process.env.BENCH_INGEST_STREAMS ?? 2);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 2_000);
const HTTP_QUERIES = Number(process.env.BENCH_HTTP_QUERIES ?? 300);

const log = createLogger('warn', 2);
const bench = await createBenchDatabase('search');
const db = await openDatabase(bench.url, { poolSize: 8, log, migrations });
const fmt = (n: number, digits = 2) => n.toFixed(digits).padStart(9);
try {
  await db.migrate();
  const created = await new TokenService(db, 'test', systemClock).create({
    org: 'bench',
    userId: 'bench',
    role: 'owner',
    name: 'bench',
    scopes: ['read:all', 'write:resources', 'run:invoke'],
    expiresAt: null,
  });
  const orgId = (await db.sql.one<{ id: number }>(`select id from orgs where slug = 'bench'`)).id;
  const by: Attribution = { actor: `token:${created.id}`, apiTokenId: created.id, requestId: null };

  const sources = [...new Set(CORPUS_TYPES.map((t) => t.source))];
  const resources: WorkspaceResource[] = [
    ...sources.map(
      (slug): WorkspaceResource => ({
        kind: 'source',
        manifest: {
          slug,
          name: slug,
          description: '',
          kind: slug === 'crm' || slug === 'mail' || slug === 'meetings' || slug === 'files' ? slug : 'http',
          connection: { state: 'connected' },
          retrieval: slug === 'mail' ? { recencyHalfLifeDays: 90 } : {},
        },
      }),
    ),
    ...CORPUS_TYPES.map(
      (t): WorkspaceResource => ({
        kind: 'object_type',
        manifest: {
          slug: t.slug,
          name: t.slug,
          description: '',
          schema: t.schema as Record<string, unknown>,
          sourceRelevance: { ...t.sourceRelevance },
        },
      }),
    ),
  ];
  await new WorkspaceStore({ db, clock: systemClock }).write(orgId, by, { put: resources });

  const embedder = createLocalEmbedder();
  const objects = new ObjectService({
    db,
    clock: systemClock,
    log,
    config: { baseUrl: 'http://bench' },
    embedder,
  });
  const search = new SearchService({ db, clock: systemClock, embedder, baseUrl: () => 'http://bench' });

  // Generate first, so ingest time is ingest only.
  const corpus = createCorpus(42);
  let started = performance.now();
  const docs: CorpusDoc[] = Array.from({ length: DOCS }, (_, i) => corpus.doc(i));
  const chars = docs.reduce((sum, d) => sum + d.title.length + d.content.length, 0);
  console.log(
    `generated ${DOCS} documents (${(chars / DOCS).toFixed(0)} chars on average) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const batches: CorpusDoc[][] = [];
  for (const type of CORPUS_TYPES) {
    const ofType = docs.filter((d) => d.type === type.slug);
    for (let i = 0; i < ofType.length; i += BATCH) batches.push(ofType.slice(i, i + BATCH));
  }
  started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      for (;;) {
        const batch = batches[next++];
        if (!batch) return;
        await objects.ingestMany(
          orgId,
          by,
          batch[0]?.type ?? 'doc',
          batch.map((d) => ({ title: d.title, content: d.content, metadata: d.metadata, source: d.source })),
        );
      }
    }),
  );
  const ingestSeconds = (performance.now() - started) / 1000;
  console.log(
    `\ningest (service, ${STREAMS} streams of ${BATCH}-document batches): ${DOCS} in ${ingestSeconds.toFixed(1)} s = ${Math.round(DOCS / ingestSeconds)} instances/s`,
  );

  started = performance.now();
  await db.sql.query('vacuum analyze object_instances');
  console.log(`vacuum analyze: ${((performance.now() - started) / 1000).toFixed(1)} s`);

  started = performance.now();
  await search.search(orgId, 'warm up the signature index');
  console.log(
    `first search (loads ${search.signatures.size(orgId)} signatures): ${(performance.now() - started).toFixed(0)} ms`,
  );

  const queries = Array.from({ length: QUERIES }, () => corpus.query(docs));
  for (const q of queries.slice(0, 50)) await search.search(orgId, q.text, { types: q.types });
  const samples: number[] = [];
  const byKind = new Map<string, number[]>();
  let results = 0;
  let titleFirst = 0;
  let titleQueries = 0;
  for (const q of queries) {
    const t0 = performance.now();
    const answer = await search.search(orgId, q.text, { types: q.types });
    const ms = performance.now() - t0;
    samples.push(ms);
    byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), ms]);
    results += answer.results.length;
    if (q.kind === 'exact title') {
      titleQueries++;
      if (answer.results[0]?.title.toLowerCase() === q.text.toLowerCase()) titleFirst++;
    }
  }
  console.log(
    `\nhybrid search over ${DOCS} instances, ${QUERIES} queries one at a time (service, in-process):`,
  );
  console.log(
    'kind'.padEnd(22),
    'count'.padStart(6),
    'p50 ms'.padStart(9),
    'p90 ms'.padStart(9),
    'p99 ms'.padStart(9),
    'max ms'.padStart(9),
  );
  const row = (label: string, list: number[]) => {
    const p = percentiles(list);
    console.log(
      label.padEnd(22),
      String(list.length).padStart(6),
      fmt(p.p50),
      fmt(p.p90),
      fmt(p.p99),
      fmt(p.max),
    );
  };
  for (const [kind, list] of [...byKind].sort()) row(kind, list);
  row('all', samples);
  console.log(
    `results per query: ${(results / QUERIES).toFixed(1)}; exact-title queries answered with that title first: ${titleFirst}/${titleQueries}`,
  );

  // HTTP: the same database behind `r3 serve`.
  const r3 = await spawnR3(bench.url);
  try {
    await unlimitOrg(bench.url);
    const headers = { authorization: `Bearer ${created.token}` };
    const extra = createCorpus(7);
    let n = 0;
    const ingest = await load('HTTP ingest (mail)', `${r3.url}/api/v1/objects/mail/instances`, 16, {
      method: 'POST',
      headers,
      duration: 5,
      body: () => {
        const d = extra.doc(5 * n++ + 3);
        return JSON.stringify({ title: d.title, content: d.content, metadata: d.metadata, source: d.source });
      },
    });
    console.log(
      `\nHTTP ingest, POST /objects/mail/instances, 16 connections, 5 s: ${ingest.rps} instances/s, p50 ${ingest.p50.toFixed(2)} ms, p99 ${ingest.p99.toFixed(2)} ms, non-2xx ${ingest.non2xx + ingest.errors}`,
    );
    const httpSamples: number[] = [];
    for (const q of queries.slice(0, HTTP_QUERIES)) {
      const params = new URLSearchParams({ q: q.text, ...(q.types ? { types: q.types.join(',') } : {}) });
      const t0 = performance.now();
      const res = await fetch(`${r3.url}/api/v1/search?${params}`, { headers });
      await res.text();
      httpSamples.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`search answered ${res.status}`);
    }
    const p = percentiles(httpSamples);
    console.log(
      `HTTP search, GET /search, ${HTTP_QUERIES} queries one at a time: p50 ${p.p50.toFixed(2)} ms, p90 ${p.p90.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms`,
    );
  } finally {
    await r3.stop();
  }
} finally {
  await db.close();
  // BENCH_KEEP_DB=1 keeps the database for inspection (EXPLAIN, reruns).
  if (process.env.BENCH_KEEP_DB) console.log(`\nkept ${bench.url}`);
  else await bench.drop();
}
