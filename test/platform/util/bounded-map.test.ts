/** `setBounded`: a map that forgets its oldest entries past a size. */
import { describe, expect, it } from 'vitest';
import { setBounded } from '../../../src/platform/util/bounded-map.js';

describe('setBounded', () => {
  it('forgets the oldest key past the bound, and keeps the place of a key set again', () => {
    const map = new Map<string, number>();
    for (const [key, value] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const) {
      setBounded(map, key, value, 3);
    }
    setBounded(map, 'a', 10, 3);
    expect([...map]).toEqual([
      ['a', 10],
      ['b', 2],
      ['c', 3],
    ]);
    setBounded(map, 'd', 4, 3);
    expect([...map.keys()]).toEqual(['b', 'c', 'd']);
  });

  it('trims a map that is already past the bound', () => {
    const map = new Map([
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
    ]);
    setBounded(map, 4, 'four', 2);
    expect([...map.keys()]).toEqual([3, 4]);
  });
});
