/**
 * The queue's lanes and filters, worked out in the browser from one read of every open item (snoozed
 * ones included): which lane an item is in, how many each lane holds, which rows the filters leave,
 * and how lane and filters are written in the page's address (`/review?lane=mine&kind=action`), so a
 * reload or a shared link opens the same view. Pure: no DOM, no store.
 *
 * Terminology: an *active* item is not snoozed (or its snooze has passed); the lanes `mine`,
 * `unassigned` and `all` hold active items only, `snoozed` the others. The *order* is the API's:
 * oldest first (`created`), or soonest due first with items without a due time last (`due`).
 */

/**
 * A lane of the queue. `decided` holds no open item: it lists recent decisions (this browser's, and
 * those the stream told of while the page was open).
 */
export type Lane = 'mine' | 'unassigned' | 'all' | 'snoozed' | 'decided';

/** The lanes in the order the page shows them, with their labels. */
export const LANES: ReadonlyArray<readonly [Lane, string]> = [
  ['mine', 'Mine'],
  ['unassigned', 'Unassigned'],
  ['all', 'All'],
  ['snoozed', 'Snoozed'],
  ['decided', 'Decided'],
];

/** The review kinds the kind filter offers. */
export const KINDS = ['skill', 'workflow', 'mission', 'action'] as const;

/** The orders the queue offers, with their labels. */
export const ORDERS = [
  ['created', 'oldest first'],
  ['due', 'due soonest first'],
] as const;

/** An order of the queue's rows. */
export type Order = (typeof ORDERS)[number][0];

/** What lanes, filters and the order read of an item. */
export interface LaneItem {
  kind: string;
  assignedTo: string | null;
  snoozedUntil: string | null;
  slug: string | null;
  dueAt?: string | null;
}

/**
 * The view the page shows: a lane, a kind ('' = any), a skill or workflow slug ('' = any) and an
 * order.
 */
export interface QueueView {
  lane: Lane;
  kind: string;
  slug: string;
  sort: Order;
}

export const DEFAULT_VIEW: QueueView = { lane: 'all', kind: '', slug: '', sort: 'created' };

/** Whether `item`'s due time has passed at `now`. */
export function isOverdue(item: Pick<LaneItem, 'dueAt'>, now: number): boolean {
  return !!item.dueAt && Date.parse(item.dueAt) <= now;
}

/** Whether `item` is snoozed at `now` (ms since the epoch). */
export function isSnoozed(item: LaneItem, now: number): boolean {
  return item.snoozedUntil !== null && Date.parse(item.snoozedUntil) > now;
}

/** Whether `item` is in `lane` for user `me` at `now`. */
export function inLane(item: LaneItem, lane: Lane, me: string, now: number): boolean {
  if (lane === 'decided') return false;
  if (lane === 'snoozed') return isSnoozed(item, now);
  if (isSnoozed(item, now)) return false;
  if (lane === 'mine') return item.assignedTo === me;
  if (lane === 'unassigned') return item.assignedTo === null;
  return true;
}

/**
 * How many of `items` each lane holds (the filters do not change them); `decided` counts the recent
 * decisions given.
 */
export function laneCounts(
  items: readonly LaneItem[],
  me: string,
  now: number,
  decided = 0,
): Record<Lane, number> {
  const counts: Record<Lane, number> = { mine: 0, unassigned: 0, all: 0, snoozed: 0, decided };
  for (const item of items) {
    if (isSnoozed(item, now)) {
      counts.snoozed++;
      continue;
    }
    counts.all++;
    if (item.assignedTo === null) counts.unassigned++;
    else if (item.assignedTo === me) counts.mine++;
  }
  return counts;
}

/**
 * The rows of `view`: `items` in its lane that pass its filters, in its order (`items` come oldest
 * first; the due order is stable, so equal due times and items without one keep that order).
 */
export function rowsOf<T extends LaneItem>(
  items: readonly T[],
  view: QueueView,
  me: string,
  now: number,
): T[] {
  const rows = items.filter(
    (item) =>
      inLane(item, view.lane, me, now) &&
      (!view.kind || item.kind === view.kind) &&
      (!view.slug || item.slug === view.slug),
  );
  if (view.sort !== 'due') return rows;
  const due = (item: T) => (item.dueAt ? Date.parse(item.dueAt) : Number.POSITIVE_INFINITY);
  return rows.sort((a, b) => due(a) - due(b));
}

const isLane = (value: string | null): value is Lane => LANES.some(([lane]) => lane === value);

/** The view a page address's query names (unknown values fall back to the defaults). */
export function viewFromSearch(search: string): QueueView {
  const query = new URLSearchParams(search);
  const lane = query.get('lane');
  const kind = query.get('kind') ?? '';
  return {
    lane: isLane(lane) ? lane : DEFAULT_VIEW.lane,
    kind: (KINDS as readonly string[]).includes(kind) ? kind : '',
    slug: query.get('slug') ?? '',
    sort: query.get('sort') === 'due' ? 'due' : DEFAULT_VIEW.sort,
  };
}

/** The page address of `view` (defaults left out), e.g. `/review?lane=mine&kind=action`. */
export function searchOfView(view: QueueView): string {
  const query = new URLSearchParams();
  if (view.lane !== DEFAULT_VIEW.lane) query.set('lane', view.lane);
  if (view.kind) query.set('kind', view.kind);
  if (view.slug) query.set('slug', view.slug);
  if (view.sort !== DEFAULT_VIEW.sort) query.set('sort', view.sort);
  const text = query.toString();
  return text ? `?${text}` : '';
}
