/**
 * The queue's lanes, counts, filters and address (web/src/queue/lanes.ts), and its keyboard
 * (web/src/queue/queue-keys.ts): pure functions the queue page is built on.
 */
import { describe, expect, it } from 'vitest';
import {
  inLane,
  isOverdue,
  laneCounts,
  rowsOf,
  searchOfView,
  viewFromSearch,
} from '../../web/src/queue/lanes.js';
import { queueCommand } from '../../web/src/queue/queue-keys.js';

const NOW = Date.parse('2030-01-01T12:00:00Z');
const item = (
  over: Partial<{
    kind: string;
    assignedTo: string | null;
    snoozedUntil: string | null;
    slug: string | null;
    dueAt: string | null;
  }>,
) => ({
  kind: 'skill',
  assignedTo: null,
  snoozedUntil: null,
  slug: 'draft',
  dueAt: null,
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
    expect(rowsOf(items, { lane: 'all', kind: 'action', slug: '', sort: 'created' }, 'me', NOW)).toEqual([
      items[0],
      items[3],
    ]);
    expect(rowsOf(items, { lane: 'mine', kind: '', slug: 'b', sort: 'created' }, 'me', NOW)).toEqual([
      items[2],
    ]);
  });

  it('orders rows due soonest first, items without a due time last, ties in their order', () => {
    const items = [
      item({ slug: 'none-1' }),
      item({ slug: 'late', dueAt: '2030-01-01T15:00:00Z' }),
      item({ slug: 'soon', dueAt: '2030-01-01T12:30:00Z' }),
      item({ slug: 'none-2' }),
      item({ slug: 'soon-too', dueAt: '2030-01-01T12:30:00.000Z' }),
      item({ slug: 'past', dueAt: '2030-01-01T11:00:00Z' }),
    ];
    const view = { lane: 'all' as const, kind: '', slug: '', sort: 'due' as const };
    expect(rowsOf(items, view, 'me', NOW).map((i) => i.slug)).toEqual([
      'past',
      'soon',
      'soon-too',
      'late',
      'none-1',
      'none-2',
    ]);
    expect(rowsOf(items, { ...view, sort: 'created' }, 'me', NOW)).toEqual(items);
    expect(items.map((i) => isOverdue(i, NOW))).toEqual([false, false, false, false, false, true]);
    expect(isOverdue(item({ dueAt: '2030-01-01T12:00:00Z' }), NOW)).toBe(true);
  });
});

describe('the address of a view', () => {
  it('writes only what differs from the default and reads it back', () => {
    expect(searchOfView({ lane: 'all', kind: '', slug: '', sort: 'created' })).toBe('');
    expect(searchOfView({ lane: 'all', kind: '', slug: '', sort: 'due' })).toBe('?sort=due');
    const view = { lane: 'mine' as const, kind: 'action', slug: 'reply & co', sort: 'due' as const };
    expect(viewFromSearch(searchOfView(view))).toEqual(view);
  });

  it('falls back to the defaults for a lane or kind it does not know', () => {
    expect(viewFromSearch('?lane=everything&kind=robot&slug=x&sort=random')).toEqual({
      lane: 'all',
      kind: '',
      slug: 'x',
      sort: 'created',
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
    expect(queueCommand(press('u'), true)).toBe('undo');
    expect(queueCommand(press('u'), false)).toBeNull();
    expect(queueCommand(press('?'), false)).toBeNull();
    expect(queueCommand(press('ArrowDown'), false)).toBe('next');
    expect(queueCommand(press('Enter'), false)).toBe('open');
  });

  it('leaves keys with a modifier to the browser', () => {
    expect(queueCommand(press('a', { ctrlKey: true }), true)).toBeNull();
    expect(queueCommand(press('ArrowDown', { altKey: true }), true)).toBeNull();
  });
});
