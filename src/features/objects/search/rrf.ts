/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): combines rankings whose scores are
 * not comparable (full-text `ts_rank`, vector cosine) by rank alone.
 *
 * fused(id) = multiplier(id) · Σ over rankings r containing id of weight_r / (k + rank_r(id))
 *
 * - rank is 1-based within a ranking after ordering its items by score, highest first; items with
 *   equal scores share the best rank of their group (1, 2, 2, 4), so the order in which a backend
 *   returned tied items does not bias the result. A repeated id keeps its best occurrence; a NaN
 *   score ranks last.
 * - k (default 60) damps the head: the first rank is worth 1/61, the tenth 1/70.
 * - multiplier is applied after fusion: the object type's `sourceRelevance` weight for the item's
 *   source, times the source's retrieval boost. Default 1.
 * - ties in the fused score are broken by id (numbers numerically, strings by code unit), so the
 *   same inputs always give the same order.
 */

/** One item of an input ranking. */
export interface RankedItem<Id extends string | number = string> {
  id: Id;
  /** Higher is better. */
  score: number;
}

/** One input ranking: a retriever's results. */
export interface Ranking<Id extends string | number = string> {
  /** Names the retriever (`fulltext`, `vector`); keys of `FusedItem.ranks`. */
  name: string;
  /** Contribution factor of this retriever. Default 1. */
  weight?: number;
  items: ReadonlyArray<RankedItem<Id>>;
}

/** Options of `fuse`. */
export interface FuseOptions<Id extends string | number = string> {
  /** RRF constant. Default 60. */
  k?: number;
  /** Per-item factor applied after fusion; must be finite and ≥ 0. */
  multiplier?: (id: Id) => number;
  /** Keep only the best `limit` items. */
  limit?: number;
}

/** One fused result. */
export interface FusedItem<Id extends string | number = string> {
  id: Id;
  score: number;
  /** 1-based rank of the item in each ranking that contains it, by ranking name. */
  ranks: Record<string, number>;
}

function checkFactor(what: string, value: number): void {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`${what} must be finite and >= 0, got ${value}`);
}

function descending(a: number, b: number): number {
  return a === b ? 0 : a < b ? 1 : -1;
}

function compareIds(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Fuses `rankings` as described at the top of this file; best first. */
export function fuse<Id extends string | number = string>(
  rankings: ReadonlyArray<Ranking<Id>>,
  options: FuseOptions<Id> = {},
): Array<FusedItem<Id>> {
  const k = options.k ?? 60;
  checkFactor('k', k);
  const fused = new Map<Id, FusedItem<Id>>();
  const names = new Set<string>();
  for (const ranking of rankings) {
    if (names.has(ranking.name))
      throw new RangeError(`duplicate ranking name ${JSON.stringify(ranking.name)}`);
    names.add(ranking.name);
    const weight = ranking.weight ?? 1;
    checkFactor(`weight of ranking ${ranking.name}`, weight);
    // Stable sort keeps the backend's order among equal scores; the shared rank removes its bias.
    const ordered = ranking.items
      .map((item, index) => ({
        id: item.id,
        score: Number.isNaN(item.score) ? -Infinity : item.score,
        index,
      }))
      .sort((a, b) => descending(a.score, b.score) || a.index - b.index);
    let rank = 0;
    let previousScore = Number.NaN;
    for (let position = 0; position < ordered.length; position++) {
      const entry = ordered[position];
      if (entry === undefined) continue;
      const { id, score } = entry;
      if (score !== previousScore) rank = position + 1;
      previousScore = score;
      let item = fused.get(id);
      if (item === undefined) {
        item = { id, score: 0, ranks: {} };
        fused.set(id, item);
      } else if (item.ranks[ranking.name] !== undefined) {
        continue;
      }
      item.ranks[ranking.name] = rank;
      item.score += weight / (k + rank);
    }
  }
  const out = [...fused.values()];
  if (options.multiplier) {
    for (const item of out) {
      const factor = options.multiplier(item.id);
      checkFactor(`multiplier of ${String(item.id)}`, factor);
      item.score *= factor;
    }
  }
  out.sort((a, b) => descending(a.score, b.score) || compareIds(a.id, b.id));
  return options.limit === undefined ? out : out.slice(0, Math.max(0, options.limit));
}
