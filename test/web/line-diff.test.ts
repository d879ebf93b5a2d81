/** The line diff the review screen shows before an edited approval: kept, removed and added lines in order. */
import { describe, expect, it } from 'vitest';
import { diffText, lineDiff, wordDiff } from '../../web/src/review/line-diff.js';

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

describe('wordDiff', () => {
  const words = (before: string, after: string) => wordDiff(before, after).map((w) => `${w.op}${w.text}`);

  it('marks changed words, each with its following whitespace, and gives the texts back', () => {
    expect(words('the cat sat', 'the dog sat')).toEqual([' the ', '-cat ', '+dog ', ' sat']);
    const pieces = wordDiff('a  b\nc', 'a b c d');
    expect(
      pieces
        .filter((p) => p.op !== '+')
        .map((p) => p.text)
        .join(''),
    ).toBe('a  b\nc');
    expect(
      pieces
        .filter((p) => p.op !== '-')
        .map((p) => p.text)
        .join(''),
    ).toBe('a b c d');
  });

  it('keeps equal texts whole and handles empty ones', () => {
    expect(words('same words', 'same words')).toEqual([' same ', ' words']);
    expect(words('', 'new')).toEqual(['+new']);
  });
});
