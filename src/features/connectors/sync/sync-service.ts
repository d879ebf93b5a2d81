/**
 * Syncs: a source's connector read page by page into object instances of the mapped types.
 *
 * A request records a `running` sync in `source_syncs` (at most one per source: asking while one
 * runs answers that one) and queues a job of kind {@link SOURCE_SYNC_JOB} in the same transaction.
 * A worker of any r3 process runs it: for each mapped record kind, in the connector's order, it
 * reads a page, prepares its records (schema check, embedding) outside any transaction, then in one
 * transaction upserts them (see objects' source-records) and advances the sync's counts and
 * position (`record_index`, `cursor`) — guarded by the position it started from, so a worker that
 * lost its lease cannot count a page twice. A retried job resumes at the recorded position.
 *
 * Failures: a refusal the upstream will repeat (credentials, a bad setting, an unknown object type)
 * fails the sync at once and sets the source's connection to `error` with the message; a transient
 * one (timeout, 429, 5xx, network) is retried by the job queue with its backoff, the sync staying
 * `running` with the last error shown, until the job's attempts run out.
 */
import { EventEmitter } from 'node:events';
import { recordAuditSql } from '../../../platform/audit/audit.js';
import type { Attribution } from '../../../platform/auth/attribution.js';
import type { Db, Sql } from '../../../platform/db/sql.js';
import { conflict, notFound, validationFailed } from '../../../platform/errors.js';
import type { JobContext, JobQueue } from '../../../platform/jobs/queue.js';
import type { Logger } from '../../../platform/log.js';
import type { Clock } from '../../../platform/util/clock.js';
import { type SourceRecordWriter, UnknownObjectTypeError } from '../../objects/index.js';
import type { ConnectionStore } from '../connections.js';
import { type Connector, isConnectorKind, type SourceRecord, type SyncPage } from '../connector.js';
import { ConnectorError } from '../errors.js';
import type { SourceConfig, SourceLookup } from '../source-config.js';

/** The job kind of a sync; its payload is `{syncId}`. */
export const SOURCE_SYNC_JOB = 'source-sync';
/** Records a sync writes in one transaction at most (whole pages: a batch may pass it by one page). */
const WRITE_BATCH = 500;
/** Instances a sync writes before it refreshes the records' planner statistics. */
const ANALYZE_AFTER = 5_000;
/** Attempts of a sync's job (transient upstream failures) before the sync fails. */
const MAX_ATTEMPTS = 8;

/** What started a sync. */
export type SyncTrigger = 'api' | 'schedule' | 'tool';
/** A sync's status. */
export type SyncStatus = 'running' | 'completed' | 'failed';

/** A sync as the API shows it. */
export interface SyncView {
  syncId: number;
  source: string;
  status: SyncStatus;
  trigger: SyncTrigger;
  /** Incremental from this time (the start of the last completed sync); null: a full sync. */
  since: string | null;
  created: number;
  updated: number;
  skipped: number;
  /** Why it failed, or the last transient error of a running sync being retried. */
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  statusUrl: string;
}

interface SyncRow {
  id: number;
  org_id: number;
  source_slug: string;
  status: SyncStatus;
  trigger: SyncTrigger;
  since: Date | null;
  record_index: number;
  cursor: string | null;
  created: number;
  updated: number;
  skipped: number;
  error: string | null;
  requested_by: string;
  api_token_id: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface SyncServiceDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  jobs: JobQueue;
  connections: ConnectionStore;
  sources: SourceLookup;
  records: SourceRecordWriter;
  baseUrl: () => string;
  /** Called after a commit that wrote outbox rows (`object.created`), to wake the relay. */
  onOutbox?: () => void;
}

/** The position a page was read from no longer holds: another worker moved the sync on. */
class LostSyncError extends Error {}

/** Turns a sync that failed for good into its message. */
function permanent(error: unknown): string | null {
  if (error instanceof ConnectorError && !error.retryable) return error.message;
  if (error instanceof UnknownObjectTypeError) return error.message;
  return null;
}

export class SyncService {
  private readonly settled = new EventEmitter();

  constructor(private readonly deps: SyncServiceDeps) {
    this.settled.setMaxListeners(0);
    deps.jobs.register(SOURCE_SYNC_JOB, (ctx) => this.run(ctx), {
      maxAttempts: MAX_ATTEMPTS,
      onDead: (job, error) => this.fail(job.orgId ?? 0, syncIdOf(job.payload), lastLine(error)),
    });
  }

  /**
   * Starts a sync of `slug` (or answers the one running). 404 for an unknown source; 400 for a
   * source without connector or without `sync.objectTypes`; 409 without credentials.
   * `full` reads everything instead of what changed since the last completed sync.
   */
  async request(
    orgId: number,
    slug: string,
    options: { trigger: SyncTrigger; by: Attribution; full?: boolean },
  ): Promise<{ sync: SyncView; started: boolean }> {
    const source = await this.deps.sources(orgId, slug);
    if (!source) throw notFound('source', slug);
    this.assertSyncable(source);
    const [connection] = (await this.deps.connections.views(orgId, [slug])).values();
    if (!connection?.credentialsSet) {
      throw conflict(`Source "${slug}" has no credentials: PUT /sources/${slug}/credentials first.`, {
        source: slug,
      });
    }
    const at = new Date(this.deps.clock.now());
    const outcome = await this.deps.db.tx(async (sql) => {
      const { id, started } = await this.start(sql, orgId, slug, options, at);
      return { id, started, sync: await this.get(orgId, slug, id, sql) };
    });
    // The answer is the sync as this transaction left it: the worker woken here (or by another
    // commit) may have moved it on before a read after the commit.
    if (outcome.started) this.deps.jobs.notifyEnqueued();
    const { sync } = outcome;
    if (!sync) throw notFound('sync', outcome.id);
    return { sync, started: outcome.started };
  }

  /** Starts a sync of the source in `sql` unless one is running: its id, and whether it is new. */
  private async start(
    sql: Sql,
    orgId: number,
    slug: string,
    options: { trigger: SyncTrigger; by: Attribution; full?: boolean },
    at: Date,
  ): Promise<{ id: number; started: boolean }> {
    const running = await this.running(sql, orgId, slug);
    if (running) return { id: running.id, started: false };
    const since = options.full ? null : await this.deps.connections.syncedThrough(sql, orgId, slug);
    const row = await sql.maybeOne<{ id: number }>(
      `insert into source_syncs (org_id, source_slug, status, trigger, since, requested_by, api_token_id, created_at)
         values ($1, $2, 'running', $3, $4, $5, $6, $7)
         on conflict (org_id, source_slug) where status = 'running' do nothing
         returning id`,
      [orgId, slug, options.trigger, since, options.by.actor, options.by.apiTokenId, at],
    );
    if (!row) {
      const other = await this.running(sql, orgId, slug);
      return { id: other?.id ?? 0, started: false };
    }
    await this.deps.jobs.enqueue(sql, {
      kind: SOURCE_SYNC_JOB,
      orgId,
      payload: { syncId: row.id },
      key: `source-sync:${row.id}`,
      maxAttempts: MAX_ATTEMPTS,
    });
    await recordAuditSql(sql, {
      orgId,
      apiTokenId: options.by.apiTokenId,
      actor: options.by.actor,
      action: 'source.sync',
      targetKind: 'source',
      targetId: slug,
      details: { syncId: row.id, trigger: options.trigger, full: since === null },
      requestId: options.by.requestId,
      at,
    });
    return { id: row.id, started: true };
  }

  /** One sync of the source, or null (unknown, another source's, or another org's); `sql`: in a transaction. */
  async get(orgId: number, slug: string, id: number, sql: Sql = this.deps.db): Promise<SyncView | null> {
    const row = await sql.maybeOne<SyncRow>(
      'select * from source_syncs where org_id = $1 and source_slug = $2 and id = $3',
      [orgId, slug, id],
    );
    return row ? this.view(row) : null;
  }

  /** Resolves once sync `id` completed or failed (settled here, or seen settled by polling). */
  async whenSettled(orgId: number, slug: string, id: number, timeoutMs = 60_000): Promise<SyncView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const heard = new Promise<void>((resolve) => {
        const timer = setTimeout(done, 200);
        timer.unref();
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.settled.once(String(id), done);
      });
      const sync = await this.get(orgId, slug, id);
      if (!sync) throw notFound('sync', id);
      if (sync.status !== 'running') return sync;
      if (Date.now() > deadline) throw new Error(`sync ${id} did not settle within ${timeoutMs} ms`);
      await heard;
    }
  }

  private assertSyncable(source: SourceConfig): void {
    if (!isConnectorKind(source.kind)) {
      throw validationFailed([
        { field: 'params.slug', message: `sources of kind "${source.kind}" have no connector` },
      ]);
    }
    if (!source.sync || Object.keys(source.sync.objectTypes).length === 0) {
      throw validationFailed([
        {
          field: 'params.slug',
          message: `source "${source.slug}" maps no record kinds to object types (sync.objectTypes)`,
        },
      ]);
    }
  }

  private running(sql: Sql, orgId: number, slug: string): Promise<SyncRow | null> {
    return sql.maybeOne<SyncRow>(
      `select * from source_syncs where org_id = $1 and source_slug = $2 and status = 'running'`,
      [orgId, slug],
    );
  }

  /** The job: runs (or resumes) one sync. */
  private async run(ctx: JobContext): Promise<void> {
    const orgId = ctx.job.orgId ?? 0;
    const syncId = syncIdOf(ctx.job.payload);
    const sync = await this.deps.db.maybeOne<SyncRow>(
      `update source_syncs set started_at = coalesce(started_at, $3)
        where org_id = $1 and id = $2 and status = 'running' returning *`,
      [orgId, syncId, new Date(this.deps.clock.now())],
    );
    if (!sync) return;
    const source = await this.deps.sources(orgId, sync.source_slug);
    if (!source) return this.fail(orgId, syncId, `source "${sync.source_slug}" no longer exists`, ctx);
    const why = unsyncable(source);
    if (why) return this.fail(orgId, syncId, why, ctx);
    let connector: Connector | null = null;
    try {
      connector = await this.deps.connections.connector(orgId, source);
      await this.pages(ctx, sync, source, connector);
    } catch (error) {
      if (error instanceof LostSyncError) return;
      const message =
        permanent(error) ?? (error instanceof Error && 'status' in error ? error.message : null);
      if (message !== null) {
        await this.fail(orgId, syncId, message, ctx);
        return;
      }
      await this.deps.db.query(
        `update source_syncs set error = $3 where org_id = $1 and id = $2 and status = 'running'`,
        [orgId, syncId, error instanceof Error ? error.message : String(error)],
      );
      throw error;
    } finally {
      await connector?.close();
    }
  }

  private async pages(
    ctx: JobContext,
    sync: SyncRow,
    source: SourceConfig,
    connector: Connector,
  ): Promise<void> {
    const { db, records, connections } = this.deps;
    const mapping = source.sync?.objectTypes ?? {};
    const unknown = Object.keys(mapping).filter((record) => !connector.recordKinds.includes(record));
    if (unknown.length > 0) {
      throw new ConnectorError(
        'REJECTED',
        `sync.objectTypes names record kinds the ${connector.kind} connector does not have: ${unknown.join(', ')} (it has ${connector.recordKinds.join(', ')})`,
      );
    }
    const kinds = connector.recordKinds.filter((record) => record in mapping);
    const by = { actor: `source:${sync.source_slug}`, apiTokenId: sync.api_token_id };
    let index = sync.record_index;
    let cursor = sync.cursor;
    const read = (record: string, from: string | null): Promise<SyncPage> =>
      connector.syncPage({
        record,
        cursor: from,
        since: sync.since?.toISOString() ?? null,
        signal: ctx.signal,
      });
    // Pages of one record kind are written together, up to WRITE_BATCH records per transaction (one
    // prepare, one upsert, one commit), and the next page is read while a batch is prepared and
    // written, so the upstream's latency overlaps r3's work. The position committed with a batch is
    // the page after its last; a retried job re-reads at most one batch.
    let ahead: Promise<SyncPage> | null = null;
    let created = 0;
    let analyzeAt = ANALYZE_AFTER;
    while (index < kinds.length) {
      if (ctx.signal.aborted) throw new Error('the worker stopped; the sync resumes on the next attempt');
      const record = kinds[index] as string;
      const batch: SourceRecord[] = [];
      let skipped = 0;
      let next: { index: number; cursor: string | null } = { index, cursor };
      do {
        const page: SyncPage = await (ahead ?? read(record, next.cursor));
        batch.push(...page.records);
        skipped += page.skipped.length;
        next = page.next === null ? { index: index + 1, cursor: null } : { index, cursor: page.next };
        ahead = next.index < kinds.length ? read(kinds[next.index] as string, next.cursor) : null;
        // A read ahead that is never awaited (this batch fails) must not be an unhandled rejection.
        ahead?.catch(() => undefined);
      } while (next.index === index && batch.length < WRITE_BATCH);
      const prepared = await records.prepare(sync.org_id, sync.source_slug, mapping[record] as string, batch);
      const wroteEvents = await db.tx(async (tx) => {
        const written = await records.write(tx, prepared, new Date(this.deps.clock.now()), by);
        const moved = await tx.maybeOne(
          `update source_syncs set created = created + $3, updated = updated + $4, skipped = skipped + $5,
                  record_index = $6, cursor = $7, error = null
            where org_id = $1 and id = $2 and status = 'running'
              and record_index = $8 and cursor is not distinct from $9
           returning id`,
          [
            sync.org_id,
            sync.id,
            written.created.length,
            written.updated,
            skipped + prepared.rejected.length,
            next.index,
            next.cursor,
            index,
            cursor,
          ],
        );
        if (!moved) throw new LostSyncError();
        return written.created.length > 0;
      });
      if (wroteEvents) this.deps.onOutbox?.();
      created += prepared.fresh.length;
      if (created >= analyzeAt) {
        // The instances table grows under this sync faster than autovacuum looks at it (a minute
        // apart): a planner still costing it as the few rows it last saw picks the wrong index for
        // the next batch's statements. Statistics refreshed as it doubles cost a few analyzes.
        await db.query('analyze object_instances');
        analyzeAt = created * 2;
      }
      index = next.index;
      cursor = next.cursor;
    }
    await db.tx(async (tx) => {
      await tx.query(
        `update source_syncs set status = 'completed', completed_at = $3, error = null
          where org_id = $1 and id = $2 and status = 'running'`,
        [sync.org_id, sync.id, new Date(this.deps.clock.now())],
      );
      await connections.recordSynced(tx, sync.org_id, sync.source_slug, sync.created_at);
      await ctx.complete(tx);
    });
    // A sync that wrote many instances changes what the planner should know of them and of the
    // domain tools' projection of them (object_records, migrations 0025–0026: their filtered pages and
    // facets pick their index by it): refresh both tables' statistics now rather than when
    // autovacuum gets to it. The projection is vacuumed too: only a vacuum updates the counts its
    // GIN index of terms keeps (an index filled by inserts since the last one is costed as if it
    // were all posting pages, and a filter then reads the whole table: docs/performance.md, "Choices in the code")
    // and empties that index's list of pending entries.
    const wrote = await db.maybeOne<{ n: number }>(
      'select created + updated as n from source_syncs where org_id = $1 and id = $2',
      [sync.org_id, sync.id],
    );
    if ((wrote?.n ?? 0) >= ANALYZE_AFTER) {
      await db.query('analyze object_instances');
      await db.query('vacuum (analyze) object_records');
    }
    this.settled.emit(String(sync.id));
  }

  /** Fails a running sync and marks the source's connection `error` with the message. */
  private async fail(orgId: number, syncId: number, message: string, ctx?: JobContext): Promise<void> {
    await this.deps.db.tx(async (tx) => {
      const row = await tx.maybeOne<{ source_slug: string }>(
        `update source_syncs set status = 'failed', error = $3, completed_at = $4
          where org_id = $1 and id = $2 and status = 'running' returning source_slug`,
        [orgId, syncId, message, new Date(this.deps.clock.now())],
      );
      if (row) await this.deps.connections.record(tx, orgId, row.source_slug, 'error', message);
      if (ctx) await ctx.complete(tx);
    });
    this.settled.emit(String(syncId));
  }

  private view(row: SyncRow): SyncView {
    return {
      syncId: row.id,
      source: row.source_slug,
      status: row.status,
      trigger: row.trigger,
      since: row.since?.toISOString() ?? null,
      created: row.created,
      updated: row.updated,
      skipped: row.skipped,
      error: row.error,
      createdAt: row.created_at.toISOString(),
      startedAt: row.started_at?.toISOString() ?? null,
      completedAt: row.completed_at?.toISOString() ?? null,
      statusUrl: `${this.deps.baseUrl()}/api/v1/sources/${row.source_slug}/syncs/${row.id}`,
    };
  }
}

/** Why `source` cannot be synced, or null. */
function unsyncable(source: SourceConfig): string | null {
  if (!isConnectorKind(source.kind)) return `sources of kind "${source.kind}" have no connector`;
  if (!source.sync || Object.keys(source.sync.objectTypes).length === 0) {
    return `source "${source.slug}" maps no record kinds to object types (sync.objectTypes)`;
  }
  return null;
}

function syncIdOf(payload: unknown): number {
  const id = (payload as { syncId?: unknown } | null)?.syncId;
  if (typeof id !== 'number') throw new Error('source-sync job without a syncId');
  return id;
}

/** The job queue keeps `Name: message`; the sync shows the message. */
function lastLine(error: string): string {
  return error.replace(/^(ConnectorError|Error): /, '');
}
