/**
 * 32-bit string hashing for feature hashing: FNV-1a over UTF-16 code units, finished with
 * MurmurHash3's `fmix32` avalanche so that every output bit (bucket index and sign) is usable.
 * Not cryptographic; stable across processes and versions, because stored vectors depend on it.
 */

/** FNV-1a 32-bit offset basis. */
export const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Feeds one UTF-16 code unit into an FNV-1a state. */
export function fnvStep(state: number, code: number): number {
  return Math.imul(state ^ code, FNV_PRIME);
}

/** Feeds `text[start, end)` into an FNV-1a state. */
export function fnvRange(state: number, text: string, start: number, end: number): number {
  let h = state;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/** MurmurHash3's 32-bit finaliser; returns an unsigned 32-bit integer. */
export function fmix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
