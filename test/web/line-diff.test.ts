/** The line diff the review screen shows before an edited approval: kept, removed and added lines in order. */
import { describe, expect, it } from 'vitest';
import { diffText, lineDiff } from '../../web/src/review/line-diff.js';

const ops = (before: string, after: string) => lineDiff(before, after).map((l) => `${l.op}${l.text}`);

describe('lineDiff', () => {
  it('keeps equal texts whole', () => {
    expect(ops('a\nb', 'a\nb')).toEqual([' a', ' b']);
  });

  it('marks a changed line as removed then added, between kept head and tail', () => {
    expect(ops('a\nb\nc', 'a\nB\nc')).toEqual([' a', '-b', '+B', ' c']);
  });

  it('finds the longest common lines in the middle (an insertion and a deletion)', () => {
    expect(ops('x\na\nb\nc\ny', 'x\na\nn\nc\nd\ny')).toEqual([' x', ' a', '-b', '+n', ' c', '+d', ' y']);
    expect(ops('a\nb\nc', 'b\nc\na')).toEqual(['-a', ' b', ' c', '+a']);
  });

  it('adds to and removes from empty texts', () => {
    expect(ops('', 'a')).toEqual(['-', '+a']);
    expect(ops('a\n', 'a\nb\n')).toEqual([' a', '+b', ' ']);
  });

  it('compares values other than text as indented JSON', () => {
    expect(diffText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(diffText('text')).toBe('text');
  });
});
