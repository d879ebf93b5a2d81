/**
 * How a source's retrieval overrides (`retrieval` in `sources/<slug>.yaml`) and an object type's
 * `sourceRelevance` enter hybrid search scoring, kept next to the manifests so the search service and
 * the docs use one definition.
 *
 * A document found by full-text and/or vector search gets, with reciprocal-rank fusion (1-based ranks,
 * constant k):
 *
 *   score = weight × relevance × (ftsWeight / (k + ftsRank) + vectorWeight / (k + vectorRank)) × decay
 *
 * where a channel that did not find the document contributes 0, `relevance` is the queried object
 * type's `sourceRelevance[source]` (1 when the query names no type), and `decay` is
 * 0.5^(ageDays / recencyHalfLifeDays) (1 without a half-life). A document older than `maxAgeDays`
 * scores 0; a score of 0 means "leave it out".
 */
import type { SourceRetrieval } from './source-manifest.js';

/** Retrieval settings with every field decided. */
export interface ResolvedRetrieval {
  weight: number;
  ftsWeight: number;
  vectorWeight: number;
  maxAgeDays: number | null;
  recencyHalfLifeDays: number | null;
}

/** The search service's defaults when a source overrides nothing: equal channels, no age limit. */
export const DEFAULT_RETRIEVAL: ResolvedRetrieval = {
  weight: 1,
  ftsWeight: 1,
  vectorWeight: 1,
  maxAgeDays: null,
  recencyHalfLifeDays: null,
};

/** The usual reciprocal-rank-fusion constant. */
export const RRF_K = 60;

/** A source's settings: its overrides where present, the defaults elsewhere. */
export function resolveRetrieval(
  overrides: SourceRetrieval | undefined,
  defaults: ResolvedRetrieval = DEFAULT_RETRIEVAL,
): ResolvedRetrieval {
  return {
    weight: overrides?.weight ?? defaults.weight,
    ftsWeight: overrides?.ftsWeight ?? defaults.ftsWeight,
    vectorWeight: overrides?.vectorWeight ?? defaults.vectorWeight,
    maxAgeDays: overrides?.maxAgeDays ?? defaults.maxAgeDays,
    recencyHalfLifeDays: overrides?.recencyHalfLifeDays ?? defaults.recencyHalfLifeDays,
  };
}

/** Where one document ranked in each channel (1 = best), and how old it is. */
export interface RankedDocument {
  ftsRank?: number;
  vectorRank?: number;
  ageDays?: number;
}

/** The fused score of a document of a source (see the formula above); 0 means leave it out. */
export function fusedScore(
  doc: RankedDocument,
  settings: ResolvedRetrieval,
  options: { relevance?: number; k?: number } = {},
): number {
  const k = options.k ?? RRF_K;
  const age = doc.ageDays ?? 0;
  if (settings.maxAgeDays !== null && age > settings.maxAgeDays) return 0;
  const fts = doc.ftsRank === undefined ? 0 : settings.ftsWeight / (k + doc.ftsRank);
  const vector = doc.vectorRank === undefined ? 0 : settings.vectorWeight / (k + doc.vectorRank);
  const decay = settings.recencyHalfLifeDays === null ? 1 : 0.5 ** (age / settings.recencyHalfLifeDays);
  return settings.weight * (options.relevance ?? 1) * (fts + vector) * decay;
}
