import { type Embedder, type EmbedOptions, normalizeInPlace } from './embedder.js';
import { FNV_OFFSET, fmix32, fnvRange, fnvStep } from './hash.js';

/**
 * The built-in embedder: feature hashing, no model, no network, deterministic across processes.
 *
 * Features of a text, after NFKC normalisation and lowercasing, split into words of Unicode letters,
 * marks and digits, stop words dropped:
 * - word unigrams (weight 1.0) — the topical signal;
 * - word bigrams of consecutive kept words (weight 0.6) — phrases (`reset password`);
 * - character 3- and 4-grams inside each word, with `^`/`$`-style boundary markers (0.3 each) —
 *   morphology and typos (`invoice` ~ `invoices`), and scripts written without spaces.
 * Each feature's count `tf` becomes `1 + ln(tf)`, times its weight; a feature lands in bucket
 * `hash mod D` with sign `±1` from another bit of the hash, so collisions cancel on average
 * instead of piling up. The vector is then L2-normalised. There is no IDF (no corpus statistics);
 * the stop-word list stands in for it on English text.
 *
 * Changing anything here changes the vector space: bump `LOCAL_EMBEDDER_NAME`'s version so stored
 * vectors are re-embedded.
 */
export const LOCAL_EMBEDDER_NAME = 'local-hash-v1';

/** Options of the local embedder. */
export interface LocalEmbedderOptions {
  /** Vector length. Default 256. */
  dimensions?: number;
  /** Only the first `maxChars` characters of a text are embedded. Default 100,000. */
  maxChars?: number;
}

/** The local embedder; `embedSync` serves hot paths such as embedding a search query. */
export interface LocalEmbedder extends Embedder {
  embedSync(text: string): Float32Array;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/** Words longer than this (hashes, base64, joined URLs) contribute their unigram only. */
const MAX_GRAM_WORD = 40;

const TYPE_UNIGRAM = 0;
const TYPE_BIGRAM = 1;
const TYPE_CHAR = 2;
const TYPE_WEIGHT = [1.0, 0.6, 0.3] as const;

// Distinct FNV offsets per feature family, so `abc` the word and `abc` the trigram differ.
const SEED_UNIGRAM = FNV_OFFSET;
const SEED_BIGRAM = FNV_OFFSET ^ 0x5bd1e995;
const SEED_CHAR3 = FNV_OFFSET ^ 0x27d4eb2f;
const SEED_CHAR4 = FNV_OFFSET ^ 0x165667b1;
const WORD_START = '\u0002';
const WORD_END = '\u0003';

const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have having he her ' +
    'here hers him his how i if in into is it its itself just me my of on or our ours she should so some ' +
    'than that the their theirs them then there these they this those to too us very was we were what ' +
    'when where which while who whom will with would you your yours d ll m re s t ve'
  ).split(' '),
);

/** Validates and fills in the options. */
function settle(options: LocalEmbedderOptions): Required<LocalEmbedderOptions> {
  const dimensions = options.dimensions ?? 256;
  const maxChars = options.maxChars ?? 100_000;
  if (!Number.isInteger(dimensions) || dimensions < 2 || dimensions > 65_536) {
    throw new RangeError(`dimensions must be an integer in [2, 65536], got ${dimensions}`);
  }
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  }
  return { dimensions, maxChars };
}

/**
 * Creates the local embedder (its throughput: docs/performance.md, "Choices in the code"); the per-document allocations are
 * the word list and one small map of feature counts.
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): LocalEmbedder {
  const { dimensions, maxChars } = settle(options);
  // Feature hash → count·4 + type. Reused between calls: embedding is synchronous, so no
  // interleaving can observe it.
  const counts = new Map<number, number>();

  function add(hash: number, type: number): void {
    const previous = counts.get(hash);
    counts.set(hash, previous === undefined ? 4 + type : previous + 4);
  }

  function embedSync(text: string): Float32Array {
    const vector = new Float32Array(dimensions);
    const clipped = text.length > maxChars ? text.slice(0, maxChars) : text;
    const words = clipped.normalize('NFKC').toLowerCase().match(WORD);
    if (words === null) return vector;
    counts.clear();
    let previous: string | undefined;
    for (const word of words) {
      if (STOP_WORDS.has(word)) continue;
      add(fnvRange(SEED_UNIGRAM, word, 0, word.length), TYPE_UNIGRAM);
      if (previous !== undefined) {
        const left = fnvStep(fnvRange(SEED_BIGRAM, previous, 0, previous.length), 0x20);
        add(fnvRange(left, word, 0, word.length), TYPE_BIGRAM);
      }
      previous = word;
      if (word.length > MAX_GRAM_WORD) continue;
      const padded = WORD_START + word + WORD_END;
      for (let i = 0; i + 3 <= padded.length; i++) add(fnvRange(SEED_CHAR3, padded, i, i + 3), TYPE_CHAR);
      for (let i = 0; i + 4 <= padded.length; i++) add(fnvRange(SEED_CHAR4, padded, i, i + 4), TYPE_CHAR);
    }
    for (const [hash, packed] of counts) {
      const mixed = fmix32(hash);
      const type = packed & 3;
      const tf = packed >>> 2;
      const weight = (TYPE_WEIGHT[type] ?? 0) * (1 + Math.log(tf));
      const bucket = (mixed & 0x7fffffff) % dimensions;
      vector[bucket] = (vector[bucket] ?? 0) + (mixed & 0x80000000 ? -weight : weight);
    }
    counts.clear();
    return normalizeInPlace(vector);
  }

  return {
    name: LOCAL_EMBEDDER_NAME,
    dimensions,
    embedSync,
    async embed(texts: readonly string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (const text of texts) {
        if (embedOptions?.signal?.aborted) throw embedOptions.signal.reason;
        out.push(embedSync(text));
      }
      return out;
    },
  };
}
