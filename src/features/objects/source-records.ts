/**
 * Instances from a connected source: upserts by (source, object type, external id), so syncing the
 * same upstream item again updates its instance and never duplicates it.
 *
 * Two steps, so the slow part runs outside any transaction: `prepare` reads the type and the
 * instances that exist, checks each record's metadata against the type's schema (a record that does
 * not match is skipped with the reason, never fatal), and embeds the records whose text is new or
 * changed; `write` then inserts the new ones (indexed, with their `object.created` events), updates
 * the changed ones (re-indexed; metadata-only changes keep their vector), and marks the unchanged
 * ones as seen (`synced_at`), all in the caller's transaction.
 */
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Sql } from '../../platform/db/sql.js';
import { type DocumentVector, embedDocuments, searchVectorSql } from './indexing.js';
import { MetadataValidator } from './metadata-schema.js';
import { type CreatedObjects, insertObjectCreatedEvents } from './object-events.js';
import type { Embedder } from './search/embedder.js';

/** An upstream item to store (a connector's record). */
export interface ExternalRecord {
  externalId: string;
  title: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** A record left out, and why. */
export interface RejectedRecord {
  externalId: string | null;
  reason: string;
}

interface Existing {
  id: number;
  external_id: string;
  title: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** What `prepare` decided; hand it to `write`. */
export interface PreparedRecords {
  orgId: number;
  sourceSlug: string;
  typeSlug: string;
  language: string;
  fresh: Array<{ record: ExternalRecord; vector: DocumentVector }>;
  changed: Array<{ id: number; record: ExternalRecord; vector: DocumentVector | null }>;
  unchanged: Array<{ id: number; externalId: string }>;
  rejected: RejectedRecord[];
}

/** What `write` did. */
export interface WrittenRecords {
  created: Array<{ id: number; externalId: string; title: string; createdAt: string }>;
  updated: number;
  unchanged: number;
  /** Instance id of every record written or seen, by external id. */
  ids: Map<string, number>;
}

/** Thrown by `prepare` when the mapped object type does not exist in the org. */
export class UnknownObjectTypeError extends Error {
  override name = 'UnknownObjectTypeError';
}

/** JSON with object keys sorted, so equal values (jsonb reorders keys) compare equal as text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The writer of source records (one per process). */
export interface SourceRecordWriter {
  prepare(
    orgId: number,
    sourceSlug: string,
    typeSlug: string,
    records: readonly ExternalRecord[],
  ): Promise<PreparedRecords>;
  write(sql: Sql, prepared: PreparedRecords, at: Date, by: Attribution): Promise<WrittenRecords>;
}

/** Creates the writer; `onEmbedError` hears embedder failures (instances are stored without a vector). */
export function createSourceRecordWriter(deps: {
  sql: Sql;
  embedder: Embedder;
  onEmbedError?: (error: unknown) => void;
  /** What creating instances also writes (their events, the listeners' work); events only when absent. */
  created?: CreatedObjects;
}): SourceRecordWriter {
  const validator = new MetadataValidator();

  async function prepare(
    orgId: number,
    sourceSlug: string,
    typeSlug: string,
    records: readonly ExternalRecord[],
  ): Promise<PreparedRecords> {
    const type = await deps.sql.maybeOne<{ language: string; schema: Record<string, unknown> }>(
      `select language, manifest -> 'schema' as schema from object_types where org_id = $1 and slug = $2`,
      [orgId, typeSlug],
    );
    if (!type) throw new UnknownObjectTypeError(`no object type "${typeSlug}" in this organization`);
    const rejected: RejectedRecord[] = [];
    const byId = new Map<string, ExternalRecord>();
    for (const record of records) {
      const issues = validator.check(type.schema, record.metadata, 'metadata');
      if (issues.length > 0) {
        const first = issues[0];
        rejected.push({
          externalId: record.externalId,
          reason: `does not match object type "${typeSlug}": ${first?.field} ${first?.message}`,
        });
      } else byId.set(record.externalId, record);
    }
    // One probe of the unique (org, source, type, external id) index per record, whatever the
    // statistics say: with `external_id = any($4)` a table that grew since its last analyze (a first
    // sync writing 50,000 records) was planned as if the source held one row, the ids became a
    // filter over the index's whole (org, source, type) range, and every batch read every instance
    // written so far (docs/performance.md, "Choices in the code"). `limit 1` keeps the
    // lateral from being flattened into that same join.
    const existing = await deps.sql.query<Existing>(
      `select o.id, o.external_id, o.title, o.content, o.metadata
         from unnest($4::text[]) as e (external_id)
         cross join lateral (
           select id, external_id, title, content, metadata from object_instances
            where org_id = $1 and source_slug = $2 and type_slug = $3 and external_id = e.external_id
            limit 1) o`,
      [orgId, sourceSlug, typeSlug, [...byId.keys()]],
    );
    const known = new Map(existing.map((row) => [row.external_id, row]));
    const fresh: ExternalRecord[] = [];
    const reembed: Array<{ id: number; record: ExternalRecord }> = [];
    const prepared: PreparedRecords = {
      orgId,
      sourceSlug,
      typeSlug,
      language: type.language,
      fresh: [],
      changed: [],
      unchanged: [],
      rejected,
    };
    for (const record of byId.values()) {
      const row = known.get(record.externalId);
      if (!row) fresh.push(record);
      else if (row.title !== record.title || row.content !== record.content)
        reembed.push({ id: row.id, record });
      else if (canonical(row.metadata) !== canonical(record.metadata)) {
        prepared.changed.push({ id: row.id, record, vector: null });
      } else prepared.unchanged.push({ id: row.id, externalId: record.externalId });
    }
    const vectors = await embedDocuments(
      deps.embedder,
      [...fresh, ...reembed.map((r) => r.record)],
      deps.onEmbedError ?? (() => undefined),
    );
    prepared.fresh = fresh.map((record, i) => ({ record, vector: vectors[i] as DocumentVector }));
    prepared.changed.push(
      ...reembed.map((r, i) => ({ ...r, vector: vectors[fresh.length + i] as DocumentVector })),
    );
    return prepared;
  }

  async function write(sql: Sql, p: PreparedRecords, at: Date, by: Attribution): Promise<WrittenRecords> {
    const ids = new Map<string, number>(p.unchanged.map((u) => [u.externalId, u.id]));
    const result: WrittenRecords = { created: [], updated: 0, unchanged: p.unchanged.length, ids };
    if (p.fresh.length > 0) {
      const rows = await sql.prepared<{ id: number; external_id: string; title: string }>(
        'source_records_insert',
        `insert into object_instances (org_id, type_slug, source_slug, external_id, title, content, metadata, status,
                                       language, search, embedder, embedding, signature, indexed_at, synced_at,
                                       created_at, updated_at, created_by, api_token_id)
         select $1, $2, $3, d.external_id, d.title, d.content, d.metadata, 'active', $4::text,
                ${searchVectorSql('$4::text', 'd.title', 'd.content', 'd.metadata')},
                d.embedder, d.embedding, d.signature, $5, $5, $5, $5, $6, $7
           from unnest($8::text[], $9::text[], $10::text[], $11::jsonb[], $12::text[], $13::bytea[], $14::bytea[])
                with ordinality as d (external_id, title, content, metadata, embedder, embedding, signature, n)
          order by d.n
         on conflict (org_id, source_slug, type_slug, external_id) where external_id is not null do nothing
         returning id, external_id, title`,
        [
          p.orgId,
          p.typeSlug,
          p.sourceSlug,
          p.language,
          at,
          by.actor,
          by.apiTokenId,
          p.fresh.map((f) => f.record.externalId),
          p.fresh.map((f) => f.record.title),
          p.fresh.map((f) => f.record.content),
          p.fresh.map((f) => JSON.stringify(f.record.metadata)),
          p.fresh.map((f) => f.vector.embedder),
          p.fresh.map((f) => f.vector.embedding),
          p.fresh.map((f) => f.vector.signature),
        ],
      );
      const createdAt = at.toISOString();
      for (const row of rows.sort((a, b) => a.id - b.id)) {
        ids.set(row.external_id, row.id);
        result.created.push({ id: row.id, externalId: row.external_id, title: row.title, createdAt });
      }
      const created = result.created.map((c) => ({ id: c.id, slug: p.typeSlug, title: c.title, createdAt }));
      if (deps.created) await deps.created.record(sql, p.orgId, p.typeSlug, created);
      else await insertObjectCreatedEvents(sql, p.orgId, created);
    }
    if (p.changed.length > 0) {
      const rows = await sql.prepared<{ id: number }>(
        'source_records_update',
        `update object_instances o
            set title = d.title, content = d.content, metadata = d.metadata, language = $3::text,
                search = ${searchVectorSql('$3::text', 'd.title', 'd.content', 'd.metadata')},
                embedder = case when d.keep then o.embedder else d.embedder end,
                embedding = case when d.keep then o.embedding else d.embedding end,
                signature = case when d.keep then o.signature else d.signature end,
                indexed_at = $2, synced_at = $2, updated_at = $2
           from unnest($4::bigint[], $5::text[], $6::text[], $7::jsonb[], $8::boolean[], $9::text[], $10::bytea[], $11::bytea[])
                as d (id, title, content, metadata, keep, embedder, embedding, signature)
          where o.org_id = $1 and o.id = d.id
         returning o.id`,
        [
          p.orgId,
          at,
          p.language,
          p.changed.map((c) => c.id),
          p.changed.map((c) => c.record.title),
          p.changed.map((c) => c.record.content),
          p.changed.map((c) => JSON.stringify(c.record.metadata)),
          p.changed.map((c) => c.vector === null),
          p.changed.map((c) => c.vector?.embedder ?? null),
          p.changed.map((c) => c.vector?.embedding ?? null),
          p.changed.map((c) => c.vector?.signature ?? null),
        ],
      );
      result.updated = rows.length;
      for (const c of p.changed) ids.set(c.record.externalId, c.id);
    }
    if (p.unchanged.length > 0) {
      await sql.query(
        'update object_instances set synced_at = $2 where org_id = $1 and id = any($3::bigint[])',
        [p.orgId, at, p.unchanged.map((u) => u.id)],
      );
    }
    return result;
  }

  return { prepare, write };
}
