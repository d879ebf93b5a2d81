/**
 * Reading the queue and acting on it: every open item (every page), the live stream that keeps them
 * current, and the decide, assign and snooze calls.
 */
import { ApiError, api } from '../api.js';
import { itemKey, queueStore, type ReviewItem } from '../stores/queue-store.js';

const PAGE = 200;
const MAX_ITEMS = 5_000;

let generation = 0;

/**
 * Reads every open item of the org (snoozed ones too: the lanes are worked out here), every page,
 * and puts them in the store; a newer read wins over an older one.
 */
export async function loadQueue(): Promise<void> {
  const mine = ++generation;
  const startedAt = performance.now();
  const items: ReviewItem[] = [];
  let cursor: string | null = null;
  try {
    do {
      const query = `includeSnoozed=true&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: { reviews: ReviewItem[]; nextCursor: string | null } = await api(
        'GET',
        `/reviews?${query}`,
      );
      items.push(...page.reviews);
      cursor = page.nextCursor;
      // The first page is shown while the rest is read (a long queue draws its top at once).
      if (cursor && items.length === page.reviews.length && mine === generation) {
        queueStore.trigger.loaded({ items: [...items], startedAt });
      }
    } while (cursor && items.length < MAX_ITEMS);
    if (mine !== generation) return;
    queueStore.trigger.loaded({ items, startedAt });
  } catch (error) {
    if (mine === generation) queueStore.trigger.failed({ error: (error as Error).message });
  }
}

/** A review event of `GET /reviews/stream` (its data; the frame's name is `review.<…>`). */
interface ReviewEvent {
  kind: string;
  id: number;
  /** The item's change: opened, assigned, snoozed, woken, updated, decided, changes_requested, cancelled. */
  event: string;
  status: string;
}

/** The frame names of `GET /reviews/stream`, one per change of an item. */
const STREAM_EVENTS = [
  'review.requested',
  'review.assigned',
  'review.snoozed',
  'review.woken',
  'review.updated',
  'review.decided',
  'review.changes_requested',
  'review.cancelled',
];

/** The changes that close an item. */
const CLOSING = new Set(['decided', 'changes_requested', 'cancelled']);

/**
 * Reads the lane and follows the org's review events while the page is open: a decided or cancelled
 * item leaves at once; any other change reads the lane again (coalesced). Returns the stop function.
 */
export function followQueue(): () => void {
  const source = new EventSource('/api/v1/reviews/stream');
  let timer: ReturnType<typeof setTimeout> | null = null;
  const reload = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void loadQueue();
    }, 100);
  };
  // Read at once for a fast first render, and again once subscribed: a change between the two
  // reads is then in the second (or arrives as an event), never lost.
  void loadQueue();
  source.addEventListener('ready', () => void loadQueue());
  const onChange = (message: MessageEvent<string>) => {
    const change = JSON.parse(message.data) as ReviewEvent;
    if (CLOSING.has(change.event)) queueStore.trigger.removed({ keys: [itemKey(change)] });
    else reload();
  };
  for (const name of STREAM_EVENTS) source.addEventListener(name, onChange);
  return () => {
    source.close();
    if (timer) clearTimeout(timer);
  };
}

type Target = Pick<ReviewItem, 'kind' | 'id'>;

/**
 * Runs `call` for each of `items` and says how it went: those done are handed to `after`, those
 * already gone (409, 404) leave the queue, and the first other failure is shown as an alert.
 */
async function each(
  items: Target[],
  call: (item: Target) => Promise<unknown>,
  done: string,
  after: (keys: string[]) => void,
): Promise<void> {
  const finished: string[] = [];
  const gone: string[] = [];
  const failures: string[] = [];
  for (const item of items) {
    try {
      await call(item);
      finished.push(itemKey(item));
    } catch (error) {
      if (error instanceof ApiError && (error.status === 409 || error.status === 404))
        gone.push(itemKey(item));
      else failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  queueStore.trigger.removed({ keys: gone });
  after(finished);
  const count = items.length === 1 ? 'one item' : `${items.length} items`;
  queueStore.trigger.noticed(
    failures.length ? { notice: `Failed: ${failures[0]}`, failed: true } : { notice: `${done} ${count}.` },
  );
}

/** Decides `items` (each leaves the queue). */
export function decide(items: Target[], action: 'approve' | 'reject', reason?: string): Promise<void> {
  return each(
    items,
    (item) =>
      api('POST', '/reviews/decide?limit=1', {
        kind: item.kind,
        id: item.id,
        action,
        ...(reason ? { reason } : {}),
      }),
    action === 'approve' ? 'Approved' : 'Rejected',
    (keys) => queueStore.trigger.removed({ keys }),
  );
}

/** Assigns `items` to user `assignedTo` (null: back to triage). */
export function assign(items: Target[], assignedTo: string | null): Promise<void> {
  return each(
    items,
    (item) => api('POST', '/reviews/assign?limit=1', { kind: item.kind, id: item.id, assignedTo }),
    assignedTo ? `Assigned to ${assignedTo}:` : 'Sent back to triage:',
    (keys) => queueStore.trigger.patched({ keys, patch: { assignedTo } }),
  );
}

/** Snoozes `items` until `until` (they move to the snoozed lane). */
export function snooze(items: Target[], until: Date): Promise<void> {
  return each(
    items,
    (item) =>
      api('POST', '/reviews/snooze?limit=1', { kind: item.kind, id: item.id, until: until.toISOString() }),
    'Snoozed',
    (keys) => queueStore.trigger.patched({ keys, patch: { snoozedUntil: until.toISOString() } }),
  );
}
