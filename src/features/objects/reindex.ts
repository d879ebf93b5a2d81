/**
 * Reindex passes: recompute the full-text vector (with the type's current language) and the embedding
 * (with the current embedder) of a source's documents, optionally narrowed by a filter. A request
 * records a run in `reindex_runs` (status and progress) and queues a job of kind {@link REINDEX_JOB}
 * on the shared job queue in the same transaction, then answers at once. A worker of any r3 process
 * runs the job: batches in id order, one transaction per batch recording `processed` and `cursor_id`,
 * so a retried job (failed attempt, or a worker that died and lost its lease) resumes where the last
 * one stopped. Instances' `updated_at` is not touched: their content did not change.
 */
import { EventEmitter } from 'node:events';
import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Config } from '../../platform/config.js';
import type { Database } from '../../platform/db/database.js';
import type { Sql } from '../../platform/db/sql.js';
import { notFound } from '../../platform/errors.js';
import type { JobContext, JobQueue } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/log.js';
import type { Clock } from '../../platform/util/clock.js';
import type { ReindexFilter, ReindexQueue, ReindexRequest } from '../workspace/index.js';
import { embedDocuments, searchVectorSql } from './indexing.js';
import type { Embedder } from './search/embedder.js';

/** The job kind of a reindex pass; its payload is `{runId}`. */
export const REINDEX_JOB = 'reindex';
/** Attempts of a pass's job before the pass is marked failed. */
const MAX_ATTEMPTS = 3;

export type ReindexStatus = 'queued' | 'running' | 'completed' | 'failed';

/** A reindex run as the API shows it. */
export interface ReindexView {
  reindexId: number;
  /** The source reindexed; null for a pass over every source (after a type's language changed). */
  source: string | null;
  status: ReindexStatus;
  filter: ReindexFilter;
  /** Documents the pass covers (null until it starts). */
  total: number | null;
  processed: number;
  /** The last attempt's error (a failed pass, or one waiting to be retried). */
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  statusUrl: string | null;
}

interface RunRow {
  id: number;
  org_id: number;
  source_slug: string | null;
  filter: ReindexFilter;
  status: ReindexStatus;
  total: number | null;
  processed: number;
  cursor_id: number;
  attempts: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface ReindexServiceDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  embedder: Embedder;
  config: Pick<Config, 'baseUrl'>;
  jobs: JobQueue;
  /** Documents per batch (default 500). */
  batchSize?: number;
}

export class ReindexService implements ReindexQueue {
  private readonly events = new EventEmitter();

  constructor(private readonly deps: ReindexServiceDeps) {
    this.events.setMaxListeners(0);
    deps.jobs.register(REINDEX_JOB, (ctx) => this.handle(ctx), {
      maxAttempts: MAX_ATTEMPTS,
      onDead: (job, error) => this.markFailed(job.orgId ?? 0, runIdOf(job.payload), error),
    });
  }

  /**
   * Queues a pass over `sourceSlug`'s documents (404 for an unknown source) and wakes the workers. The
   * answer is the pass as queued, read in the transaction that queued it: a worker woken by another
   * commit may start it before a read after the commit (the 202 then said `running`).
   */
  async request(
    orgId: number,
    by: Attribution,
    sourceSlug: string,
    filter: ReindexFilter,
  ): Promise<ReindexView> {
    const at = new Date(this.deps.clock.now());
    const queued = await this.deps.db.sql.tx(async (sql) => {
      const source = await sql.maybeOne('select 1 from sources where org_id = $1 and slug = $2', [
        orgId,
        sourceSlug,
      ]);
      if (!source) throw notFound('source', sourceSlug);
      const runId = await this.enqueueIn(sql, {
        orgId,
        sourceSlug,
        filter,
        requestedBy: by.actor,
        apiTokenId: by.apiTokenId,
        at,
      });
      await recordAuditSql(sql, {
        orgId,
        apiTokenId: by.apiTokenId,
        actor: by.actor,
        action: 'source.reindex',
        targetKind: 'source',
        targetId: sourceSlug,
        details: { reindexId: runId, filter },
        requestId: by.requestId,
        at,
      });
      return (await this.get(orgId, runId, sql)) as ReindexView;
    });
    this.notify();
    return queued;
  }

  async enqueueIn(sql: Sql, request: ReindexRequest): Promise<number> {
    const row = await sql.one<{ id: number }>(
      `insert into reindex_runs (org_id, source_slug, filter, status, requested_by, api_token_id, created_at)
       values ($1, $2, $3, 'queued', $4, $5, $6) returning id`,
      [
        request.orgId,
        request.sourceSlug,
        JSON.stringify(request.filter),
        request.requestedBy,
        request.apiTokenId,
        request.at,
      ],
    );
    await this.deps.jobs.enqueue(sql, {
      kind: REINDEX_JOB,
      orgId: request.orgId,
      payload: { runId: row.id },
      key: `reindex:${row.id}`,
      maxAttempts: MAX_ATTEMPTS,
    });
    return row.id;
  }

  notify(): void {
    this.deps.jobs.notifyEnqueued();
  }

  /** One run of the org, or null (unknown, or another org's); `sql`: in a transaction. */
  async get(orgId: number, id: number, sql: Sql = this.deps.db.sql): Promise<ReindexView | null> {
    const row = await sql.maybeOne<RunRow>('select * from reindex_runs where org_id = $1 and id = $2', [
      orgId,
      id,
    ]);
    return row ? this.view(row) : null;
  }

  /** Resolves once run `id` has completed or failed (settled here, or seen settled by polling). */
  async whenSettled(orgId: number, id: number, timeoutMs = 60_000): Promise<ReindexView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const settled = new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        // Runs settled by another process are seen by polling.
        const timer = setTimeout(() => {
          this.events.off('settled', done);
          resolve();
        }, 250);
        timer.unref();
        this.events.once('settled', done);
      });
      const view = await this.get(orgId, id);
      if (!view) throw notFound('reindex', id);
      if (view.status === 'completed' || view.status === 'failed') return view;
      if (Date.now() > deadline) throw new Error(`reindex ${id} did not settle within ${timeoutMs} ms`);
      await settled;
    }
  }

  /** The job handler: runs (or resumes) one pass. */
  private async handle(ctx: JobContext): Promise<void> {
    const sql = this.deps.db.sql;
    const runId = runIdOf(ctx.job.payload);
    const orgId = ctx.job.orgId ?? 0;
    const run = await sql.maybeOne<RunRow>(
      `update reindex_runs set status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, $2)
        where org_id = $3 and id = $1 and status in ('queued', 'running') returning *`,
      [runId, this.now(), orgId],
    );
    if (!run) return;
    try {
      await this.process(run, ctx);
    } catch (error) {
      await sql.query(
        `update reindex_runs set status = 'queued', error = $2 where org_id = $3 and id = $1 and status = 'running'`,
        [runId, String((error as Error)?.message ?? error), orgId],
      );
      throw error;
    }
  }

  private async markFailed(orgId: number, runId: number, error: string): Promise<void> {
    await this.deps.db.sql.query(
      `update reindex_runs set status = 'failed', error = $2, completed_at = $3
        where org_id = $4 and id = $1 and status <> 'completed'`,
      [runId, error, this.now(), orgId],
    );
    this.events.emit('settled', runId);
  }

  private now(): Date {
    return new Date(this.deps.clock.now());
  }

  private async process(run: RunRow, ctx: JobContext): Promise<void> {
    const sql = this.deps.db.sql;
    const { where, params } = filterSql(run);
    if (run.total === null) {
      const { count } = await sql.one<{ count: number }>(
        `select count(*)::int as count from object_instances where ${where}`,
        params,
      );
      await sql.query('update reindex_runs set total = $2 where org_id = $3 and id = $1', [
        run.id,
        count,
        run.org_id,
      ]);
    }
    let cursor = run.cursor_id;
    const batchSize = this.deps.batchSize ?? 500;
    for (;;) {
      if (ctx.signal.aborted) throw new Error('the worker stopped; the pass resumes on the next attempt');
      const docs = await sql.query<{ id: number; title: string; content: string }>(
        `select id, title, content from object_instances
          where ${where} and id > $${params.length + 1} order by id limit ${batchSize}`,
        [...params, cursor],
      );
      if (docs.length === 0) break;
      const vectors = await embedDocuments(this.deps.embedder, docs, (error) => {
        throw error;
      });
      cursor = docs.at(-1)?.id ?? cursor;
      await sql.tx(async (tx) => {
        await reindexBatch(
          tx,
          run.org_id,
          docs.map((d) => d.id),
          vectors,
          this.now(),
        );
        await tx.query(
          'update reindex_runs set processed = processed + $2, cursor_id = $3 where org_id = $4 and id = $1',
          [run.id, docs.length, cursor, run.org_id],
        );
      });
    }
    await sql.tx(async (tx) => {
      await tx.query(
        `update reindex_runs set status = 'completed', completed_at = $2, error = null where org_id = $3 and id = $1`,
        [run.id, this.now(), run.org_id],
      );
      await ctx.complete(tx);
    });
    this.events.emit('settled', run.id);
  }

  private view(row: RunRow): ReindexView {
    return {
      reindexId: row.id,
      source: row.source_slug,
      status: row.status,
      filter: row.filter,
      total: row.total,
      processed: row.processed,
      error: row.error,
      createdAt: row.created_at.toISOString(),
      startedAt: row.started_at?.toISOString() ?? null,
      completedAt: row.completed_at?.toISOString() ?? null,
      statusUrl: row.source_slug
        ? `${this.deps.config.baseUrl}/api/v1/sources/${row.source_slug}/reindex/${row.id}`
        : null,
    };
  }
}

function runIdOf(payload: unknown): number {
  const runId = (payload as { runId?: unknown } | null)?.runId;
  if (typeof runId !== 'number') throw new Error('reindex job without a runId');
  return runId;
}

/** The documents a run covers, as a WHERE clause over object_instances with its parameters. */
function filterSql(run: RunRow): { where: string; params: unknown[] } {
  const params: unknown[] = [run.org_id];
  const clauses = ['org_id = $1'];
  const add = (clause: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(clause(params.length));
  };
  if (run.source_slug !== null) add((n) => `source_slug = $${n}`, run.source_slug);
  if (run.filter.types) add((n) => `type_slug = any($${n}::text[])`, run.filter.types);
  if (run.filter.updatedSince) add((n) => `updated_at >= $${n}`, new Date(run.filter.updatedSince));
  if (run.filter.ids) add((n) => `id = any($${n}::bigint[])`, run.filter.ids);
  return { where: clauses.join(' and '), params };
}

/** Re-indexes instances with their type's current language and the given vectors. */
async function reindexBatch(
  sql: Sql,
  orgId: number,
  ids: number[],
  vectors: ReadonlyArray<{ embedder: string | null; embedding: Buffer | null; signature: Buffer | null }>,
  at: Date,
): Promise<void> {
  const language = `coalesce((select t.language from object_types t where t.org_id = o.org_id and t.slug = o.type_slug), o.language)`;
  await sql.query(
    `update object_instances o
        set language = ${language},
            search = ${searchVectorSql(language, 'o.title', 'o.content', 'o.metadata')},
            embedder = d.embedder, embedding = d.embedding, signature = d.signature, indexed_at = $2
       from unnest($3::bigint[], $4::text[], $5::bytea[], $6::bytea[]) as d (id, embedder, embedding, signature)
      where o.org_id = $1 and o.id = d.id`,
    [
      orgId,
      at,
      ids,
      vectors.map((v) => v.embedder),
      vectors.map((v) => v.embedding),
      vectors.map((v) => v.signature),
    ],
  );
}
