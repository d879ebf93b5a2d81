/**
 * The queue's lanes, counts, filters and address (web/src/queue/lanes.ts), and its keyboard
 * (web/src/queue/queue-keys.ts): pure functions the queue page is built on.
 */
import { describe, expect, it } from 'vitest';
import { inLane, laneCounts, rowsOf, searchOfView, viewFromSearch } from '../../web/src/queue/lanes.js';
import { queueCommand } from '../../web/src/queue/queue-keys.js';

const NOW = Date.parse('2030-01-01T12:00:00Z');
const item = (
  over: Partial<{
    kind: string;
    assignedTo: string | null;
    snoozedUntil: string | null;
    slug: string | null;
  }>,
) => ({
  kind: 'skill',
  assignedTo: null,
  snoozedUntil: null,
  slug: 'draft',
  ...over,
});

describe('lanes', () => {
  it('puts a snoozed item in the snoozed lane only, and one whose snooze passed back in the others', () => {
    const snoozed = item({ assignedTo: 'me', snoozedUntil: '2030-01-01T13:00:00Z' });
    const woken = item({ assignedTo: 'me', snoozedUntil: '2030-01-01T11:00:00Z' });
    expect(
      ['mine', 'unassigned', 'all', 'snoozed'].filter((l) => inLane(snoozed, l as 'all', 'me', NOW)),
    ).toEqual(['snoozed']);
    expect(
      ['mine', 'unassigned', 'all', 'snoozed'].filter((l) => inLane(woken, l as 'all', 'me', NOW)),
    ).toEqual(['mine', 'all']);
  });

  it('counts each lane, someone else’s items in all only', () => {
    const items = [
      item({}),
      item({ assignedTo: 'me' }),
      item({ assignedTo: 'bob' }),
      item({ snoozedUntil: '2030-01-02T00:00:00Z' }),
    ];
    expect(laneCounts(items, 'me', NOW)).toEqual({ mine: 1, unassigned: 1, all: 3, snoozed: 1, decided: 0 });
    expect(laneCounts(items, 'me', NOW, 4).decided).toBe(4);
    expect(items.some((item) => inLane(item, 'decided', 'me', NOW))).toBe(false);
  });

  it('filters rows by kind and slug within the lane, keeping their order', () => {
    const items = [
      item({ kind: 'action', slug: null }),
      item({ kind: 'skill', slug: 'a' }),
      item({ kind: 'skill', slug: 'b', assignedTo: 'me' }),
      item({ kind: 'action', slug: null, assignedTo: 'me' }),
    ];
    expect(rowsOf(items, { lane: 'all', kind: 'action', slug: '' }, 'me', NOW)).toEqual([items[0], items[3]]);
    expect(rowsOf(items, { lane: 'mine', kind: '', slug: 'b' }, 'me', NOW)).toEqual([items[2]]);
  });
});

describe('the address of a view', () => {
  it('writes only what differs from the default and reads it back', () => {
    expect(searchOfView({ lane: 'all', kind: '', slug: '' })).toBe('');
    const view = { lane: 'mine' as const, kind: 'action', slug: 'reply & co' };
    expect(viewFromSearch(searchOfView(view))).toEqual(view);
  });

  it('falls back to the defaults for a lane or kind it does not know', () => {
    expect(viewFromSearch('?lane=everything&kind=robot&slug=x')).toEqual({
      lane: 'all',
      kind: '',
      slug: 'x',
    });
  });
});

describe('the queue keys', () => {
  const press = (
    key: string,
    mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {},
  ) => ({
    key,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    ...mods,
  });

  it('reads single-character keys only while shortcuts are on; arrows and Enter always', () => {
    expect(queueCommand(press('a'), true)).toBe('approve');
    expect(queueCommand(press('a'), false)).toBeNull();
    expect(queueCommand(press('?'), false)).toBeNull();
    expect(queueCommand(press('ArrowDown'), false)).toBe('next');
    expect(queueCommand(press('Enter'), false)).toBe('open');
  });

  it('leaves keys with a modifier to the browser', () => {
    expect(queueCommand(press('a', { ctrlKey: true }), true)).toBeNull();
    expect(queueCommand(press('ArrowDown', { altKey: true }), true)).toBeNull();
  });
});
