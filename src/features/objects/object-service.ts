/**
 * Object instances: runtime data connected systems push in (ingest), listed, read with their linked
 * documents, and updated. Every instance is indexed for hybrid search as it is written (indexing.ts).
 *
 * Terminology (src/features/objects/):
 * - **instance** (object): one row of `object_instances`, of an object **type** (authored), optionally
 *   from a **source** (whose retrieval overrides apply in search).
 * - **document**: an instance as search and links see it; an instance's `documents` are the instances
 *   linked to it, in either direction, with the link's `relation`.
 * - **reindex**: recomputing the full-text vector and embedding of existing instances (reindex.ts).
 */
import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Config } from '../../platform/config.js';
import type { Database } from '../../platform/db/database.js';
import type { Sql } from '../../platform/db/sql.js';
import { type FieldIssue, notFound, validationFailed } from '../../platform/errors.js';
import type { Logger } from '../../platform/log.js';
import type { Clock } from '../../platform/util/clock.js';
import { type DocumentVector, embedDocuments, searchVectorSql } from './indexing.js';
import { MetadataValidator } from './metadata-schema.js';
import { type CreatedObjects, insertObjectCreatedEvents } from './object-events.js';
import { type IngestBody, ingestBodySchema, type ObjectPatch, type ObjectStatus } from './object-schemas.js';
import {
  type IngestedObject,
  type LinkedDocument,
  type LinkingRun,
  MAX_DOCUMENTS,
  type ObjectDetail,
  type ObjectPage,
  VIEW_COLUMNS,
  type ViewRow,
  view,
} from './object-views.js';
import { insertInstances, insertLinks } from './object-writes.js';
import type { Embedder } from './search/embedder.js';

export type { IngestedObject, LinkedDocument, ObjectDetail, ObjectPage } from './object-views.js';

export interface ObjectServiceDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  config: Pick<Config, 'baseUrl'>;
  embedder: Embedder;
  /** Called after a commit that wrote outbox rows (`object.created`), to wake the outbox relay. */
  onOutbox?: () => void;
  /** What creating instances also writes (their events, the listeners' work); events only when absent. */
  created?: CreatedObjects;
}

interface TypeInfo {
  language: string;
  schema: Record<string, unknown>;
}

export class ObjectService {
  private readonly metadata = new MetadataValidator();

  constructor(private readonly deps: ObjectServiceDeps) {}

  /** The API link of an instance. */
  url(id: number): string {
    return `${this.deps.config.baseUrl}/api/v1/objects/${id}`;
  }

  /**
   * Ingests one instance of type `typeSlug` (404 when the org has no such type; 400 when metadata does
   * not match the type's schema, or `source`/`links` name nothing in the org). The place the
   * `object.created` event is emitted from.
   */
  async ingestObject(
    orgId: number,
    by: Attribution,
    typeSlug: string,
    input: IngestBody,
  ): Promise<IngestedObject> {
    const [created] = await this.ingest(orgId, by, typeSlug, [input], (_i, field) => `body.${field}`);
    return created as IngestedObject;
  }

  /**
   * Ingests many instances of one type in one transaction (the batch path of the same ingest).
   * Inputs are parsed with the ingest body schema; issues name `items.<i>.<field>`.
   */
  ingestMany(
    orgId: number,
    by: Attribution,
    typeSlug: string,
    inputs: readonly unknown[],
  ): Promise<IngestedObject[]> {
    const parsed: IngestBody[] = [];
    const issues: FieldIssue[] = [];
    inputs.forEach((input, i) => {
      const result = ingestBodySchema.safeParse(input);
      if (result.success) parsed.push(result.data);
      else {
        for (const issue of result.error.issues) {
          issues.push({ field: ['items', i, ...issue.path.map(String)].join('.'), message: issue.message });
        }
      }
    });
    if (issues.length > 0) throw validationFailed(issues);
    return this.ingest(orgId, by, typeSlug, parsed, (i, field) => `items.${i}.${field}`);
  }

  private async ingest(
    orgId: number,
    by: Attribution,
    typeSlug: string,
    inputs: readonly IngestBody[],
    fieldOf: (index: number, field: string) => string,
  ): Promise<IngestedObject[]> {
    const sql = this.deps.db.sql;
    const sources = [...new Set(inputs.flatMap((i) => (i.source ? [i.source] : [])))];
    // The type and the sources the inputs name, in one round trip (the hot path of single ingests).
    const [type] = await sql.prepared<TypeInfo & { sources: string[] }>(
      'objects_ingest_type',
      `select t.language, t.manifest -> 'schema' as schema,
              array(select s.slug from sources s where s.org_id = $1 and s.slug = any($3::text[])) as sources
         from object_types t where t.org_id = $1 and t.slug = $2`,
      [orgId, typeSlug, sources],
    );
    if (!type) throw notFound('object type', typeSlug);
    const issues: FieldIssue[] = [];
    inputs.forEach((input, i) => {
      issues.push(...this.metadata.check(type.schema, input.metadata, fieldOf(i, 'metadata')));
      if (input.source && !type.sources.includes(input.source)) {
        issues.push({
          field: fieldOf(i, 'source'),
          message: `no source "${input.source}" in this organization`,
        });
      }
    });
    issues.push(...(await this.linkIssues(sql, orgId, inputs, fieldOf)));
    if (issues.length > 0) throw validationFailed(issues);

    const vectors = await this.embed(inputs);
    const at = new Date(this.deps.clock.now());
    const created = await this.deps.db.sql.tx(async (tx) => {
      const ids = await insertInstances(tx, orgId, typeSlug, type.language, inputs, vectors, by, at);
      const links = inputs.flatMap((input, i) =>
        (input.links ?? []).map((l) => ({ from: ids[i] as number, to: l.id, relation: l.relation })),
      );
      await insertLinks(tx, orgId, links, at);
      await recordAuditSql(tx, {
        orgId,
        apiTokenId: by.apiTokenId,
        actor: by.actor,
        action: 'object.ingest',
        targetKind: 'object',
        targetId: ids.length === 1 ? String(ids[0]) : null,
        details: { type: typeSlug, count: ids.length, firstId: ids[0], lastId: ids.at(-1) },
        requestId: by.requestId,
        at,
      });
      const objects = inputs.map((input, i) => ({
        id: ids[i] as number,
        slug: typeSlug,
        title: input.title,
        createdAt: at.toISOString(),
      }));
      if (this.deps.created) await this.deps.created.record(tx, orgId, typeSlug, objects);
      else await insertObjectCreatedEvents(tx, orgId, objects);
      return objects;
    });
    this.deps.onOutbox?.();
    this.deps.created?.committed();
    return created;
  }

  /** Instances of the org, newest first, optionally of one type and/or status. */
  async list(
    orgId: number,
    filter: { type?: string | undefined; status?: ObjectStatus | undefined },
    page: { limit: number; afterId?: number | undefined },
  ): Promise<ObjectPage> {
    const rows = await this.deps.db.sql.prepared<ViewRow>(
      'objects_list',
      `select ${VIEW_COLUMNS} from object_instances
        where org_id = $1 and ($2::text is null or type_slug = $2) and ($3::text is null or status = $3)
          and ($4::bigint is null or id < $4)
        order by id desc limit $5`,
      [orgId, filter.type ?? null, filter.status ?? null, page.afterId ?? null, page.limit + 1],
    );
    const more = rows.length > page.limit;
    const items = (more ? rows.slice(0, page.limit) : rows).map(view);
    return { items, nextAfter: more ? (items.at(-1)?.id ?? null) : null };
  }

  /** One instance with content and linked documents, or null (unknown id, or another org's). */
  async get(orgId: number, id: number): Promise<ObjectDetail | null> {
    const sql = this.deps.db.sql;
    const row = await sql.maybeOne<ViewRow & { content: string }>(
      `select ${VIEW_COLUMNS}, content from object_instances where org_id = $1 and id = $2`,
      [orgId, id],
    );
    if (!row) return null;
    return {
      ...view(row),
      content: row.content,
      url: this.url(row.id),
      documents: await this.documents(orgId, id),
      runs: await this.linkingRuns(orgId, id),
    };
  }

  /** The runs of org `orgId` that used instance `id`, newest first (at most 100; shadow runs left out). */
  private async linkingRuns(orgId: number, id: number): Promise<LinkingRun[]> {
    const rows = await this.deps.db.sql.query<{
      id: number;
      kind: 'skill' | 'workflow';
      slug: string;
      status: string;
      via: 'input' | 'tool';
    }>(
      `select r.id, r.kind, r.slug, r.status, l.via
         from run_objects l join runs r on r.id = l.run_id
        where l.object_id = $2 and l.org_id = $1 and r.org_id = $1 and not r.shadow
        order by r.id desc limit 100`,
      [orgId, id],
    );
    return rows.map((r) => ({
      runId: Number(r.id),
      kind: r.kind,
      slug: r.slug,
      status: r.status,
      via: r.via,
    }));
  }

  /**
   * Updates metadata (replaced whole, checked against the type's schema), status, title or content;
   * anything but a status change re-indexes the instance. 404 for an unknown or foreign id.
   */
  async update(orgId: number, by: Attribution, id: number, patch: ObjectPatch): Promise<ObjectDetail> {
    const sql = this.deps.db.sql;
    const current = await sql.maybeOne<{
      type_slug: string;
      title: string;
      content: string;
      metadata: Record<string, unknown>;
      updated_at: Date;
    }>(
      'select type_slug, title, content, metadata, updated_at from object_instances where org_id = $1 and id = $2',
      [orgId, id],
    );
    if (!current) throw notFound('object', id);
    const type = await this.typeInfo(sql, orgId, current.type_slug);
    if (patch.metadata !== undefined && type) {
      const issues = this.metadata.check(type.schema, patch.metadata, 'body.metadata');
      if (issues.length > 0) throw validationFailed(issues);
    }
    const title = patch.title ?? current.title;
    const content = patch.content ?? current.content;
    const metadata = patch.metadata ?? current.metadata;
    const reindex = patch.title !== undefined || patch.content !== undefined || patch.metadata !== undefined;
    const textChanged = patch.title !== undefined || patch.content !== undefined;
    const [vector] = textChanged ? await this.embed([{ title, content }]) : [undefined];
    const at = new Date(this.deps.clock.now());
    await sql.tx(async (tx) => {
      const params: unknown[] = [
        orgId,
        id,
        title,
        content,
        JSON.stringify(metadata),
        patch.status ?? null,
        at,
      ];
      let set = `title = $3, content = $4, metadata = $5::jsonb, status = coalesce($6, status), updated_at = $7`;
      if (reindex) {
        params.push(type?.language ?? null);
        set += `, language = coalesce($8::text, language),
                  search = ${searchVectorSql('coalesce($8::text, language)', '$3::text', '$4::text', '$5::jsonb')},
                  indexed_at = $7`;
      }
      if (vector) {
        params.push(vector.embedder, vector.embedding, vector.signature);
        const n = params.length;
        set += `, embedder = $${n - 2}, embedding = $${n - 1}, signature = $${n}`;
      }
      await tx.query(`update object_instances set ${set} where org_id = $1 and id = $2`, params);
      await recordAuditSql(tx, {
        orgId,
        apiTokenId: by.apiTokenId,
        actor: by.actor,
        action: 'object.update',
        targetKind: 'object',
        targetId: String(id),
        details: { fields: Object.keys(patch).filter((k) => patch[k as keyof ObjectPatch] !== undefined) },
        requestId: by.requestId,
        at,
      });
    });
    return (await this.get(orgId, id)) as ObjectDetail;
  }

  /** Links `objectId` to `documentId` (both of the org, else 404); an existing link gets the new relation. */
  async link(orgId: number, objectId: number, documentId: number, relation = 'related'): Promise<void> {
    const sql = this.deps.db.sql;
    const rows = await sql.query<{ id: number }>(
      'select id from object_instances where org_id = $1 and id = any($2::bigint[])',
      [orgId, [objectId, documentId]],
    );
    const known = new Set(rows.map((r) => r.id));
    for (const id of [objectId, documentId]) if (!known.has(id)) throw notFound('object', id);
    if (objectId === documentId) {
      throw validationFailed([{ field: 'documentId', message: 'an instance cannot link to itself' }]);
    }
    await insertLinks(
      sql,
      orgId,
      [{ from: objectId, to: documentId, relation }],
      new Date(this.deps.clock.now()),
    );
  }

  private async documents(orgId: number, id: number): Promise<LinkedDocument[]> {
    const rows = await this.deps.db.sql.query<{
      id: number;
      type_slug: string;
      title: string;
      status: ObjectStatus;
      relation: string;
      direction: 'outgoing' | 'incoming';
    }>(
      `select o.id, o.type_slug, o.title, o.status, l.relation, l.direction
         from (select document_id as id, relation, 'outgoing' as direction, created_at
                 from object_links where org_id = $1 and object_id = $2
               union all
               select object_id, relation, 'incoming', created_at
                 from object_links where org_id = $1 and document_id = $2) l
         join object_instances o on o.org_id = $1 and o.id = l.id
        order by l.created_at, o.id
        limit ${MAX_DOCUMENTS}`,
      [orgId, id],
    );
    return rows.map((r) => ({
      id: r.id,
      type: r.type_slug,
      title: r.title,
      status: r.status,
      relation: r.relation,
      direction: r.direction,
      url: this.url(r.id),
    }));
  }

  private async typeInfo(sql: Sql, orgId: number, slug: string): Promise<TypeInfo | null> {
    return sql.maybeOne<TypeInfo>(
      `select language, manifest -> 'schema' as schema from object_types where org_id = $1 and slug = $2`,
      [orgId, slug],
    );
  }

  /** `links[].id` must name instances of this org. */
  private async linkIssues(
    sql: Sql,
    orgId: number,
    inputs: ReadonlyArray<Pick<IngestBody, 'links'>>,
    fieldOf: (index: number, field: string) => string,
  ): Promise<FieldIssue[]> {
    const linked = [...new Set(inputs.flatMap((i) => (i.links ?? []).map((l) => l.id)))];
    if (linked.length === 0) return [];
    const rows = await sql.query<{ id: number }>(
      'select id from object_instances where org_id = $1 and id = any($2::bigint[])',
      [orgId, linked],
    );
    const known = new Set(rows.map((r) => r.id));
    const issues: FieldIssue[] = [];
    inputs.forEach((input, i) => {
      (input.links ?? []).forEach((link, j) => {
        if (!known.has(link.id)) {
          issues.push({
            field: fieldOf(i, `links.${j}.id`),
            message: `no object instance ${link.id} in this organization`,
          });
        }
      });
    });
    return issues;
  }

  private embed(docs: ReadonlyArray<{ title: string; content: string }>): Promise<DocumentVector[]> {
    return embedDocuments(this.deps.embedder, docs, (error) =>
      this.deps.log.warn({ err: error }, 'embedding failed; instances are stored without a vector'),
    );
  }
}
