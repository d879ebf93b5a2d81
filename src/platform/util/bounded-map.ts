/**
 * Sets `key` to `value` in `map` and, past `max` entries, forgets the oldest. A map iterates in
 * insertion order, so the first key is the oldest; setting a key that is already there keeps its
 * place (callers that want least-recently-used order delete and set it again on a hit).
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.set(key, value);
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done) return;
    map.delete(oldest.value);
  }
}
