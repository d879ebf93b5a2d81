/**
 * Queries over the instances synced from connected sources (the domain tools' reads,
 * docs/mcp.md#domain-tools), computed in PostgreSQL:
 *
 * - `page`: instances of some (source, object type) pairs whose metadata matches a filter, one page in
 *   a stable order with a keyset cursor, the exact total over the filter, and facet counts — the total
 *   and every facet in one grouping-sets scan. It reads `object_records` (migration 0025), the narrow
 *   projection of the active synced instances the triggers on `object_instances` keep exact, never the
 *   wide instance rows. Equality and list filters find their candidates through its `terms` (migration
 *   0026: a GIN index of hashes of (org, type, source, property, value), so a posting list holds one
 *   scope's matches and only those rows are read), then test the metadata itself (each property's
 *   `->>` text: equal, among a list's, or missing), which alone decides;
 *   the facets' values are taken out of the metadata once per matching row, below the grouping, so
 *   the grouping sorts and hashes short texts, not whole documents.
 * - `find`: one instance by external id; `lookup`: instances by id / external id / type;
 *   `changes`: what was created or updated since a time (briefings).
 *
 * Metadata values are compared as text (connector properties are strings: HubSpot sends numbers as
 * strings). A sort orders numbers numerically, then other text, then missing values.
 */
import { createHash } from 'node:crypto';
import { type Db, plannedForValues } from '../../platform/db/sql.js';
import { validationFailed } from '../../platform/errors.js';

/** Instances of one object type synced from one source. */
export interface RecordScope {
  source: string;
  type: string;
}

/** A filter value: equal to it (numbers and booleans as their text), missing (null), or any of a list. */
export type FilterValue = string | number | boolean | null | Array<string | number | boolean>;

/** What `page` is asked for. */
export interface RecordPageQuery {
  filter: Record<string, FilterValue>;
  /** A property to sort by, and the direction; null: by instance id. */
  sort: { property: string; descending: boolean } | null;
  limit: number;
  /** The previous page's `nextCursor`, or null. */
  cursor: string | null;
  facets: readonly string[];
}

/** One synced instance as the domain tools show it. */
export interface RecordItem {
  id: number;
  externalId: string;
  properties: Record<string, unknown>;
}

/** One page with the exact total over the filter and the facets. */
export interface RecordPage {
  items: RecordItem[];
  total: number;
  facets: Record<string, Record<string, number>>;
  nextCursor: string | null;
}

/** One instance in full. */
export interface StoredRecord {
  id: number;
  /** Null for an instance ingested by hand. */
  source: string | null;
  type: string;
  externalId: string | null;
  title: string;
  content: string;
  metadata: Record<string, unknown>;
  syncedAt: string | null;
  updatedAt: string;
}

/** Values a facet reports at most (the most frequent). */
export const MAX_FACET_VALUES = 100;

/** Filter properties up to which the total and facets statement is a named one (see `page`). */
const NAMED_FILTERS = 2;

/** A statement's name part: a digest of its text (the same text, the same name; another, another). */
function statementKey(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 32);
}

/** The keyset position after an item: the sort key (class, number, text) and the id. */
interface Cursor {
  /** The sort it belongs to (`+prop`, `-prop`, or `id`). */
  s: string;
  k: [number, string, string] | null;
  id: number;
}

const NUMERIC = `'^-?[0-9]+(\\.[0-9]+)?$'`;

function sortName(sort: RecordPageQuery['sort']): string {
  return sort ? `${sort.descending ? '-' : '+'}${sort.property}` : 'id';
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string, sort: string): Cursor {
  const refuse = (message: string) => validationFailed([{ field: 'arguments.cursor', message }]);
  let cursor: Cursor;
  try {
    cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
  } catch {
    throw refuse('is not a cursor this tool gave');
  }
  const keyOk =
    cursor?.k === null ||
    (Array.isArray(cursor?.k) &&
      cursor.k.length === 3 &&
      [0, 1, 2].includes(cursor.k[0]) &&
      /^-?[0-9]+(\.[0-9]+)?$/.test(cursor.k[1]) &&
      typeof cursor.k[2] === 'string');
  if (!cursor || typeof cursor !== 'object' || !Number.isSafeInteger(cursor.id) || !keyOk) {
    throw refuse('is not a cursor this tool gave');
  }
  if (cursor.s !== sort) throw refuse(`belongs to another sort (${cursor.s}); ask again without it`);
  if ((cursor.k === null) !== (sort === 'id')) throw refuse('is not a cursor this tool gave');
  return cursor;
}

/** The queries over synced instances (one per process). */
export class RecordQueries {
  constructor(private readonly sql: Db) {}

  /** One page of the instances of `scopes` (see the top of this file); empty scopes → nothing. */
  async page(orgId: number, scopes: readonly RecordScope[], q: RecordPageQuery): Promise<RecordPage> {
    const empty: RecordPage = { items: [], total: 0, facets: {}, nextCursor: null };
    const facetNames = [...new Set(q.facets)];
    const sort = sortName(q.sort);
    const cursor = q.cursor === null ? null : decodeCursor(q.cursor, sort);
    if (scopes.length === 0) {
      return { ...empty, facets: Object.fromEntries(facetNames.map((f) => [f, {}])) };
    }
    const values: unknown[] = [orgId];
    const p = (value: unknown) => `$${values.push(value)}`;
    // The metadata tests that decide, and the terms (migration 0026) that find the candidates: an
    // equality's term must be among the record's, a list's terms must meet them. Every test compares
    // the property's text (`->>`), as the terms hash it: cheaper per row than a containment test
    // (docs/performance.md, "Choices in the code"), and the same for an equality as for a list of one.
    const tests: string[] = [];
    const equal: Array<[string, string]> = [];
    const lists: Array<[string, string[]]> = [];
    for (const [property, value] of Object.entries(q.filter)) {
      if (value === null) tests.push(`metadata ->> ${p(property)} is null`);
      else if (Array.isArray(value)) {
        const texts = value.map(String);
        lists.push([property, texts]);
        tests.push(`metadata ->> ${p(property)} = any(${p(texts)}::text[])`);
      } else {
        const [name, text] = [p(property), p(String(value))];
        equal.push([name, text]);
        tests.push(`metadata ->> ${name} = ${text}`);
      }
    }
    const inScope = scopes.map((s) => {
      const [type, source] = [p(s.type), p(s.source)];
      const terms = equal.map(([name, text]) => `r3_record_term($1, ${type}, ${source}, ${name}, ${text})`);
      return [
        `type_slug = ${type} and source_slug = ${source}`,
        ...(terms.length > 0 ? [`terms @> array[${terms.join(', ')}]`] : []),
        ...lists.map(
          ([property, texts]) =>
            `terms && r3_record_terms($1, ${type}, ${source}, ${p(property)}, ${p(texts)}::text[])`,
        ),
      ].join(' and ');
    });
    const scope = ['org_id = $1', `(${inScope.map((s) => `(${s})`).join(' or ')})`, ...tests].join(' and ');

    // The page: one more than asked, to know whether another follows.
    const pageValues = [...values];
    const pp = (value: unknown) => `$${pageValues.push(value)}`;
    let order = 'id';
    let key = 'null::int as cls, null::text as num, null::text as txt';
    let after = 'true';
    if (q.sort) {
      const v = `(metadata ->> ${pp(q.sort.property)})`;
      const cls = `(case when ${v} ~ ${NUMERIC} then 0 when ${v} is not null then 1 else 2 end)`;
      const num = `(case when ${v} ~ ${NUMERIC} then ${v}::numeric else 0 end)`;
      const txt = `coalesce(${v}, '')`;
      const dir = q.sort.descending ? ' desc' : '';
      order = `${cls}, ${num}${dir}, ${txt}${dir}, id${dir}`;
      key = `${cls} as cls, ${num}::text as num, ${txt} as txt`;
      if (cursor?.k) {
        const [c, n, t] = [pp(cursor.k[0]), `${pp(cursor.k[1])}::numeric`, pp(cursor.k[2])];
        const id = pp(cursor.id);
        after = q.sort.descending
          ? `(${cls} > ${c} or (${cls} = ${c} and (${num}, ${txt}, id) < (${n}, ${t}, ${id})))`
          : `(${cls}, ${num}, ${txt}, id) > (${c}, ${n}, ${t}, ${id})`;
      }
    } else if (cursor) after = `id > ${pp(cursor.id)}`;
    const pageSql = `select id, external_id, metadata, ${key} from object_records
                      where ${scope} and ${after} order by ${order} limit ${pp(q.limit + 1)}`;

    // The total and each facet in one scan: grouping set () is the total, (f<i>) facet i — each facet's
    // value read out of the metadata once per row, in the scan.
    const groupValues = [...values];
    const facetColumns = facetNames.map((f, i) => `metadata ->> $${groupValues.push(f)} as f${i}`);
    const facetKeys = facetNames.map((_, i) => `f${i}`);
    const groupSql =
      facetNames.length === 0
        ? `select -1 as facet, null::text as value, count(*)::int as n from object_records where ${scope}`
        : `select case ${facetKeys.map((k, i) => `when grouping(${k}) = 0 then ${i}`).join(' ')} else -1 end as facet,
                  coalesce(${facetKeys.join(', ')}) as value, count(*)::int as n
             from (select ${facetColumns.join(', ')} from object_records where ${scope}) matching
            group by grouping sets (${['()', ...facetKeys.map((k) => `(${k})`)].join(', ')})`;

    // The page is planned for its values: a generic plan cannot know how many records a filter's terms
    // post, and for a common value sorted all of its records for a page in id order instead of
    // walking the id order. The total and facets read every match whatever the plan, and a generic
    // plan reads a filter's matches through the terms' index (a scan of every record of the scopes
    // only when a filter has no terms, as any plan would): that statement is sent alone, three round
    // trips fewer on the call's longer path. Its plan, generic anyway, is kept by the session: a named
    // statement is parsed and planned once per session instead of at every call (figures:
    // docs/performance.md, "Choices in the code"). Named only for the shapes a caller repeats, so a session keeps a bounded
    // number of them: one scope, at most NAMED_FILTERS filter properties (each an equality, a list or
    // missing), at most 10 facets — under 150 statements a session.
    const groupRows = <T>(text: string, values: unknown[]) =>
      scopes.length === 1 && Object.keys(q.filter).length <= NAMED_FILTERS
        ? this.sql.prepared<T>(`records_facets_${statementKey(text)}`, text, values)
        : this.sql.query<T>(text, values);
    const [pageRows, groups] = await Promise.all([
      plannedForValues<{
        id: number;
        external_id: string;
        metadata: Record<string, unknown>;
        cls: number | null;
        num: string | null;
        txt: string | null;
      }>(this.sql, pageSql, pageValues),
      groupRows<{ facet: number; value: string | null; n: number }>(groupSql, groupValues),
    ]);
    const more = pageRows.length > q.limit;
    const rows = pageRows.slice(0, q.limit);
    const last = rows.at(-1);
    const facets: Record<string, Record<string, number>> = Object.fromEntries(facetNames.map((f) => [f, {}]));
    let total = 0;
    const byFacet = facetNames.map(() => [] as Array<{ value: string; n: number }>);
    for (const g of groups) {
      if (g.facet === -1) total = g.n;
      else if (g.value !== null) byFacet[g.facet]?.push({ value: g.value, n: g.n });
    }
    facetNames.forEach((name, i) => {
      const counts = (byFacet[i] ?? [])
        .sort((a, b) => b.n - a.n || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        .slice(0, MAX_FACET_VALUES);
      facets[name] = Object.fromEntries(counts.map((c) => [c.value, c.n]));
    });
    return {
      items: rows.map((r) => ({ id: r.id, externalId: r.external_id, properties: r.metadata })),
      total,
      facets,
      nextCursor:
        more && last
          ? encodeCursor({
              s: sort,
              k: q.sort ? [last.cls ?? 2, last.num ?? '0', last.txt ?? ''] : null,
              id: last.id,
            })
          : null,
    };
  }

  /**
   * The instance of `scope` with external id `externalId`, or, when `alsoProperty` names a metadata
   * property, the newest instance whose property equals it. Null when there is none.
   */
  async find(
    orgId: number,
    scope: RecordScope,
    externalId: string,
    alsoProperty?: string,
  ): Promise<StoredRecord | null> {
    const rows = await this.sql.query<Row>(
      `select ${COLUMNS} from object_instances
        where org_id = $1 and source_slug = $2 and type_slug = $3 and status = 'active'
          and (external_id = $4 or ($5::text is not null and metadata ->> $5 = $4))
        order by (external_id = $4) desc, updated_at desc, id desc limit 1`,
      [orgId, scope.source, scope.type, externalId, alsoProperty ?? null],
    );
    return rows[0] ? stored(rows[0]) : null;
  }

  /**
   * Instances of `sources` (null: any, manual ones included) by ids and/or external ids (either
   * matches), optionally of one type; with neither, the newest. At most `limit`.
   */
  async lookup(
    orgId: number,
    sources: readonly string[] | null,
    by: { type?: string | undefined; ids?: readonly number[]; externalIds?: readonly string[] },
    limit: number,
  ): Promise<StoredRecord[]> {
    const rows = await this.sql.query<Row>(
      `select ${COLUMNS} from object_instances
        where org_id = $1 and ($2::text[] is null or source_slug = any($2::text[]))
          and ($3::text is null or type_slug = $3)
          and (($4::bigint[] is null and $5::text[] is null)
               or id = any(coalesce($4::bigint[], '{}')) or external_id = any(coalesce($5::text[], '{}')))
        order by updated_at desc, id desc limit $6`,
      [orgId, sources, by.type ?? null, by.ids ?? null, by.externalIds ?? null, limit],
    );
    return rows.map(stored);
  }

  /**
   * What changed in `sources` since `since`: counts of created and updated instances per object type,
   * and the `top` most recently changed instances.
   */
  async changes(
    orgId: number,
    sources: readonly string[] | null,
    since: Date,
    top: number,
  ): Promise<{
    counts: Array<{ type: string; created: number; updated: number }>;
    items: Array<StoredRecord & { change: 'created' | 'updated' }>;
  }> {
    const scope = `org_id = $1 and ($2::text[] is null or source_slug = any($2::text[]))
                   and status = 'active' and updated_at >= $3`;
    const [counts, items] = await Promise.all([
      this.sql.query<{ type: string; created: number; updated: number }>(
        `select type_slug as type, count(*) filter (where created_at >= $3)::int as created,
                count(*) filter (where created_at < $3)::int as updated
           from object_instances where ${scope} group by type_slug order by type_slug`,
        [orgId, sources, since],
      ),
      this.sql.query<Row & { created_at: Date }>(
        `select ${COLUMNS}, created_at from object_instances where ${scope}
          order by updated_at desc, id desc limit $4`,
        [orgId, sources, since, top],
      ),
    ]);
    return {
      counts,
      items: items.map((r) => ({
        ...stored(r),
        change: r.created_at.getTime() >= since.getTime() ? 'created' : 'updated',
      })),
    };
  }
}

const COLUMNS = 'id, source_slug, type_slug, external_id, title, content, metadata, synced_at, updated_at';

interface Row {
  id: number;
  source_slug: string | null;
  type_slug: string;
  external_id: string | null;
  title: string;
  content: string;
  metadata: Record<string, unknown>;
  synced_at: Date | null;
  updated_at: Date;
}

function stored(r: Row): StoredRecord {
  return {
    id: r.id,
    source: r.source_slug,
    type: r.type_slug,
    externalId: r.external_id,
    title: r.title,
    content: r.content,
    metadata: r.metadata,
    syncedAt: r.synced_at?.toISOString() ?? null,
    updatedAt: r.updated_at.toISOString(),
  };
}
