/** The inserts of ingest: instances (indexed as they go in) and links, each one statement. */

import type { Attribution } from '../../platform/auth/attribution.js';
import type { Sql } from '../../platform/db/sql.js';
import { type DocumentVector, searchVectorSql } from './indexing.js';
import type { IngestBody } from './object-schemas.js';

/** Inserts instances in one statement; returns their ids in input order. */
export async function insertInstances(
  sql: Sql,
  orgId: number,
  typeSlug: string,
  language: string,
  inputs: readonly IngestBody[],
  vectors: readonly DocumentVector[],
  by: Attribution,
  at: Date,
): Promise<number[]> {
  const rows = await sql.prepared<{ id: number }>(
    'objects_insert',
    `insert into object_instances (org_id, type_slug, source_slug, title, content, metadata, status, language,
                                   search, embedder, embedding, signature, indexed_at, created_at, updated_at,
                                   created_by, api_token_id)
     select $1, $2, d.source, d.title, d.content, d.metadata, 'active', $3::text,
            ${searchVectorSql('$3::text', 'd.title', 'd.content', 'd.metadata')},
            d.embedder, d.embedding, d.signature, $4, $4, $4, $5, $6
       from unnest($7::text[], $8::text[], $9::text[], $10::jsonb[], $11::text[], $12::bytea[], $13::bytea[])
            with ordinality as d (source, title, content, metadata, embedder, embedding, signature, n)
      order by d.n
     returning id`,
    [
      orgId,
      typeSlug,
      language,
      at,
      by.actor,
      by.apiTokenId,
      inputs.map((i) => i.source ?? null),
      inputs.map((i) => i.title),
      inputs.map((i) => i.content),
      inputs.map((i) => JSON.stringify(i.metadata)),
      vectors.map((v) => v.embedder),
      vectors.map((v) => v.embedding),
      vectors.map((v) => v.signature),
    ],
  );
  // Rows are inserted in input order, so their sequence ids ascend in input order.
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** Links instances (pairs of this org); an existing link gets the new relation. */
export async function insertLinks(
  sql: Sql,
  orgId: number,
  links: ReadonlyArray<{ from: number; to: number; relation: string }>,
  at: Date,
): Promise<void> {
  // One row per pair (the last relation wins): ON CONFLICT cannot touch a row twice in one statement.
  const byPair = new Map(links.filter((l) => l.from !== l.to).map((l) => [`${l.from}:${l.to}`, l]));
  const distinct = [...byPair.values()];
  if (distinct.length === 0) return;
  await sql.query(
    `insert into object_links (org_id, object_id, document_id, relation, created_at)
     select $1, l.from_id, l.to_id, l.relation, $5
       from unnest($2::bigint[], $3::bigint[], $4::text[]) as l (from_id, to_id, relation)
     on conflict (object_id, document_id) do update set relation = excluded.relation`,
    [orgId, distinct.map((l) => l.from), distinct.map((l) => l.to), distinct.map((l) => l.relation), at],
  );
}
