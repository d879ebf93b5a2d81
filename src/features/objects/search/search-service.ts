/**
 * Hybrid search over object instances (`GET /api/v1/search`, MCP `search_query`):
 *
 * 1. candidates: the best {@link FTS_CANDIDATES} full-text hits (`websearch_to_tsquery` in each object
 *    type's language, ranked by `ts_rank_cd` with title over content over metadata) ∪ the
 *    {@link VECTOR_CANDIDATES} nearest signatures (signature-index.ts); archived instances never;
 * 2. vector channel: the candidates' stored vectors scored exactly against the query's (dot product of
 *    unit vectors = cosine), those under {@link MIN_SIMILARITY} dropped;
 * 3. fusion: ranks per channel by `fuse()` (rrf.ts), each document scored by `fusedScore`
 *    (workspace/retrieval.ts) with its source's retrieval overrides and, when the query names types, its
 *    type's `sourceRelevance` for its source. A document whose title equals the query (case and spacing
 *    aside; the newest {@link EXACT_CANDIDATES}) adds the score of a document ranked first in both
 *    channels, which no other document of equally weighted sources can reach: an exact title leads;
 * 4. the best `limit` get a `ts_headline` snippet (matches wrapped in `**`) and their API link.
 */
import type { Database } from '../../../platform/db/database.js';
import { plannedForValues } from '../../../platform/db/sql.js';
import type { Clock } from '../../../platform/util/clock.js';
import type { SourceRetrieval } from '../../workspace/index.js';
import {
  DEFAULT_RETRIEVAL,
  fusedScore,
  type ResolvedRetrieval,
  resolveRetrieval,
} from '../../workspace/index.js';
import type { Embedder } from './embedder.js';
import type { LocalEmbedder } from './local-embedder.js';
import { fuse, type RankedItem } from './rrf.js';
import { SignatureIndex, signatureQuery } from './signature-index.js';
import { decodeVector, dot } from './vector-codec.js';

/** Full-text hits considered per query. */
export const FTS_CANDIDATES = 100;
/**
 * The full-text channel ranks (ts_rank_cd) at most this many matches per language: all of them for a
 * specific query; for a word found in a large share of the documents, the first ones the index yields
 * (ranking every match costs a fixed time per match: docs/performance.md, "Choices in the code"). Such documents still reach the results through the
 * vector and exact-title channels.
 */
export const FTS_WINDOW = 1_000;
/** Exact-title matches considered per query. */
export const EXACT_CANDIDATES = 20;
/** Prefilter neighbours considered per query. */
export const VECTOR_CANDIDATES = 100;
/** Below this cosine a candidate is not a vector match. */
export const MIN_SIMILARITY = 0.15;
/** Default and maximum `limit`. */
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 100;

const DAY_MS = 86_400_000;
/** ts_rank_cd weights {D, C, B, A}: title (A) over content (B) over metadata (C). */
const RANK_WEIGHTS = '{0.05, 0.2, 0.4, 1.0}';
const HEADLINE_OPTIONS =
  'StartSel=**, StopSel=**, MaxWords=40, MinWords=15, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "';
/** Characters of content a snippet is cut from. */
const HEADLINE_CHARS = 20_000;

/** One result (docs/mcp.md). */
export interface SearchResult {
  id: number;
  /** The object type slug. */
  type: string;
  title: string;
  snippet: string;
  score: number;
  url: string;
}

export interface SearchOptions {
  /** Only instances of these object types. */
  types?: readonly string[] | undefined;
  /** Only instances from these sources (an agent's: docs/mcp.md#domain-tools `search_knowledge`). */
  sources?: readonly string[] | undefined;
  limit?: number | undefined;
}

export interface SearchServiceDeps {
  db: Database;
  clock: Clock;
  embedder: Embedder;
  baseUrl: () => string;
  /** Overrides the index built from `db` (tests, benchmarks). */
  signatures?: SignatureIndex;
}

interface Settings {
  types: Map<string, { language: string; relevance: Record<string, number> }>;
  sources: Map<string, ResolvedRetrieval>;
  /** Language → the query as a tsquery of that language (absent when it has no lexemes there). */
  tsqueries: Map<string, string>;
}

interface CandidateRow {
  id: number;
  type_slug: string;
  source_slug: string | null;
  updated_at: Date;
  embedding: Buffer | null;
  fts_rank: number | null;
  exact_title: boolean;
}

/** Lowercased, spacing collapsed: how titles and queries are compared for the exact-title term. */
export function normalizeTitle(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

export class SearchService {
  readonly signatures: SignatureIndex;

  constructor(private readonly deps: SearchServiceDeps) {
    this.signatures =
      deps.signatures ??
      new SignatureIndex(deps.db.sql, { embedder: deps.embedder.name, dimensions: deps.embedder.dimensions });
  }

  /** Ranked documents of `orgId` for `query`; see the top of this file. */
  async search(
    orgId: number,
    query: string,
    options: SearchOptions = {},
  ): Promise<{ results: SearchResult[] }> {
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT));
    const text = query.trim();
    if (text === '') return { results: [] };
    const settings = await this.settings(orgId, text);
    const wanted = options.types ? new Set(options.types) : null;
    const types = [...settings.types.keys()].filter((t) => !wanted || wanted.has(t));
    if (types.length === 0) return { results: [] };
    const languages = [...new Set(types.map((t) => settings.types.get(t)?.language ?? 'english'))];
    const tsqueries = languages.flatMap((language) => {
      const tsquery = settings.tsqueries.get(language);
      return tsquery ? [{ language, tsquery }] : [];
    });

    const vector = await this.embedQuery(text);
    const nonZero = vector.some((x) => x !== 0);
    const nearest = nonZero
      ? await this.signatures.nearest(
          orgId,
          signatureQuery(vector, Math.max(32, vector.length >> 2)),
          VECTOR_CANDIDATES,
          wanted ? new Set(types) : undefined,
        )
      : [];
    const rows = await this.candidates(
      orgId,
      text,
      tsqueries,
      wanted ? types : null,
      options.sources ?? null,
      nearest,
    );

    const fts: RankedItem<number>[] = [];
    const similar: RankedItem<number>[] = [];
    const title: RankedItem<number>[] = [];
    const byId = new Map<number, CandidateRow>();
    for (const row of rows) {
      byId.set(row.id, row);
      if (row.fts_rank !== null) fts.push({ id: row.id, score: row.fts_rank });
      if (row.exact_title) title.push({ id: row.id, score: 1 });
      if (nonZero && row.embedding) {
        const similarity = dot(vector, decodeVector(row.embedding, vector.length));
        if (similarity >= MIN_SIMILARITY) similar.push({ id: row.id, score: similarity });
      }
    }
    const ranked = fuse<number>([
      { name: 'fulltext', items: fts },
      { name: 'vector', items: similar },
      { name: 'title', items: title },
    ]);
    const now = this.deps.clock.now();
    const scored = ranked
      .map((item) => {
        const row = byId.get(item.id) as CandidateRow;
        const source = row.source_slug;
        const retrieval = (source && settings.sources.get(source)) || DEFAULT_RETRIEVAL;
        const relevance = wanted && source ? (settings.types.get(row.type_slug)?.relevance[source] ?? 1) : 1;
        const doc = {
          ...(item.ranks.fulltext !== undefined ? { ftsRank: item.ranks.fulltext } : {}),
          ...(item.ranks.vector !== undefined ? { vectorRank: item.ranks.vector } : {}),
          ageDays: Math.max(0, (now - row.updated_at.getTime()) / DAY_MS),
        };
        const titleTerm =
          item.ranks.title === undefined
            ? 0
            : fusedScore({ ftsRank: 1, vectorRank: 1, ageDays: doc.ageDays }, retrieval, { relevance });
        return { id: item.id, score: fusedScore(doc, retrieval, { relevance }) + titleTerm };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || b.id - a.id)
      .slice(0, limit);
    return { results: await this.present(orgId, text, scored) };
  }

  private async embedQuery(text: string): Promise<Float32Array> {
    const embedder = this.deps.embedder as Partial<LocalEmbedder> & Embedder;
    if (typeof embedder.embedSync === 'function') return embedder.embedSync(text);
    const [vector] = await embedder.embed([text]);
    return vector ?? new Float32Array(embedder.dimensions);
  }

  /**
   * Object types (language, sourceRelevance), sources (retrieval) and the query parsed in each of the
   * org's languages, in one round trip. The parsed tsqueries go back as constants, so the planner sees
   * how common each word is and the query is parsed once, not once per row.
   */
  private async settings(orgId: number, text: string): Promise<Settings> {
    const rows = await this.deps.db.sql.prepared<{
      kind: 'type' | 'source' | 'tsquery';
      key: string;
      text: string | null;
      data: unknown;
    }>(
      'search_settings',
      `select 'type' as kind, slug as key, language as text, manifest -> 'sourceRelevance' as data
         from object_types where org_id = $1
       union all
       select 'source', slug, null, manifest -> 'retrieval' from sources where org_id = $1
       union all
       select 'tsquery', l.language, websearch_to_tsquery(l.language::regconfig, $2)::text, null
         from (select distinct language from object_types where org_id = $1) l`,
      [orgId, text],
    );
    const settings: Settings = { types: new Map(), sources: new Map(), tsqueries: new Map() };
    for (const row of rows) {
      if (row.kind === 'type') {
        settings.types.set(row.key, {
          language: row.text ?? 'english',
          relevance: (row.data ?? {}) as Record<string, number>,
        });
      } else if (row.kind === 'source') {
        settings.sources.set(
          row.key,
          resolveRetrieval((row.data ?? undefined) as SourceRetrieval | undefined),
        );
      } else if (row.text) settings.tsqueries.set(row.key, row.text);
    }
    return settings;
  }

  /**
   * Full-text hits, exact-title hits and the prefilter's ids, with what fusion needs, in one statement.
   * Planned with the actual tsqueries as constants (`force_custom_plan` in its transaction).
   */
  private candidates(
    orgId: number,
    text: string,
    tsqueries: ReadonlyArray<{ language: string; tsquery: string }>,
    types: string[] | null,
    sources: readonly string[] | null,
    nearest: number[],
  ): Promise<CandidateRow[]> {
    const scope = (p = '') =>
      `${p}org_id = $1 and ${p}status = 'active' and ($2::text[] is null or ${p}type_slug = any($2::text[]))
       and ($6::text[] is null or ${p}source_slug = any($6::text[]))`;
    const params: unknown[] = [orgId, types, nearest, this.deps.embedder.name, normalizeTitle(text), sources];
    const branches = tsqueries.map(({ language, tsquery }) => {
      params.push(language, tsquery);
      const [lang, tsq] = [`$${params.length - 1}::text`, `$${params.length}::tsquery`];
      return `(select id, ts_rank_cd('${RANK_WEIGHTS}', search, ${tsq}) as rank from (
                 select id, search from object_instances
                  where ${scope()} and language = ${lang} and search @@ ${tsq}
                  limit ${FTS_WINDOW}) w)`;
    });
    const fts =
      branches.length === 0
        ? 'select null::bigint as id, null::real as rank where false'
        : `select id, rank from (${branches.join(' union all ')}) m order by rank desc, id desc limit ${FTS_CANDIDATES}`;
    // The GIN index must drive the full-text branch: a plan that walks rows in another order until it
    // has found enough matches is fast on average but very slow when matches cluster (one type, one
    // period), which real data does. Bitmap scans keep every branch bounded. Planned for this query's
    // values: a generic plan cannot know how selective the tsqueries are.
    return plannedForValues<CandidateRow>(
      this.deps.db.sql,
      `with fts as materialized (${fts}),
       exact as materialized (
         select id from object_instances where ${scope()} and lower(title) = $5 order by id desc limit ${EXACT_CANDIDATES}
       ),
       ids as (select id from fts union select id from exact union select unnest($3::bigint[]))
       select o.id, o.type_slug, o.source_slug, o.updated_at, fts.rank as fts_rank,
              case when o.embedder = $4 then o.embedding end as embedding,
              exact.id is not null as exact_title
         from ids join object_instances o on o.id = ids.id
         left join fts on fts.id = o.id
         left join exact on exact.id = o.id
        where ${scope('o.')}`,
      params,
      ['enable_seqscan = off', 'enable_indexscan = off'],
    );
  }

  /** Titles, types and snippets of the results, in score order. */
  private async present(
    orgId: number,
    text: string,
    scored: ReadonlyArray<{ id: number; score: number }>,
  ): Promise<SearchResult[]> {
    if (scored.length === 0) return [];
    const rows = await this.deps.db.sql.prepared<{
      id: number;
      type_slug: string;
      title: string;
      snippet: string;
    }>(
      'search_present',
      `select id, type_slug, title,
              ts_headline(language::regconfig, left(content, ${HEADLINE_CHARS}),
                          websearch_to_tsquery(language::regconfig, $3), '${HEADLINE_OPTIONS}') as snippet
         from object_instances where org_id = $1 and id = any($2::bigint[])`,
      [orgId, scored.map((s) => s.id), text],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const base = this.deps.baseUrl();
    return scored.flatMap(({ id, score }) => {
      const row = byId.get(id);
      if (!row) return [];
      return [
        {
          id,
          type: row.type_slug,
          title: row.title,
          snippet: row.snippet,
          score,
          url: `${base}/api/v1/objects/${id}`,
        },
      ];
    });
  }
}
