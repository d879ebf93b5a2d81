/**
 * Reading the queue and acting on it: the lane's items (every page), the live stream that keeps them
 * current, and the decide, assign and snooze calls.
 */
import { ApiError, api } from '../api.js';
import { itemKey, type Lane, queueStore, type ReviewItem } from '../stores/queue-store.js';
import { sessionStore } from '../stores/session-store.js';

const PAGE = 200;
const MAX_ITEMS = 5_000;

function laneQuery(lane: Lane): string {
  const me = sessionStore.getSnapshot().context.session?.userId ?? '';
  if (lane === 'mine') return `assignedTo=${encodeURIComponent(me)}`;
  if (lane === 'unassigned') return 'assignedTo=unassigned';
  if (lane === 'snoozed') return 'includeSnoozed=true';
  return '';
}

let generation = 0;

/** Reads the current lane, every page, and puts it in the store (a newer read wins over an older). */
export async function loadQueue(): Promise<void> {
  const mine = ++generation;
  const startedAt = performance.now();
  const { lane } = queueStore.getSnapshot().context;
  const items: ReviewItem[] = [];
  let cursor: string | null = null;
  try {
    do {
      const query = [laneQuery(lane), `limit=${PAGE}`, cursor ? `cursor=${encodeURIComponent(cursor)}` : '']
        .filter(Boolean)
        .join('&');
      const page: { reviews: ReviewItem[]; nextCursor: string | null } = await api(
        'GET',
        `/reviews?${query}`,
      );
      items.push(...page.reviews);
      cursor = page.nextCursor;
      // The first page is shown while the rest is read (a long queue draws its top at once).
      if (cursor && items.length === page.reviews.length && mine === generation && lane !== 'snoozed') {
        queueStore.trigger.loaded({ items: [...items], startedAt });
      }
    } while (cursor && items.length < MAX_ITEMS);
    if (mine !== generation) return;
    const now = Date.now();
    const shown =
      lane === 'snoozed' ? items.filter((i) => i.snoozedUntil && Date.parse(i.snoozedUntil) > now) : items;
    queueStore.trigger.loaded({ items: shown, startedAt });
  } catch (error) {
    if (mine === generation) queueStore.trigger.failed({ error: (error as Error).message });
  }
}

/** A review event of `GET /reviews/stream`. */
interface ReviewEvent {
  kind: string;
  id: number;
  event: string;
  status: string;
}

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
  source.addEventListener('review', (message) => {
    const change = JSON.parse((message as MessageEvent<string>).data) as ReviewEvent;
    if (change.event === 'decided' || change.event === 'cancelled') {
      queueStore.trigger.removed({ keys: [itemKey(change)] });
    } else reload();
  });
  return () => {
    source.close();
    if (timer) clearTimeout(timer);
  };
}

type Target = Pick<ReviewItem, 'kind' | 'id'>;

/**
 * Runs `call` for each of `items`; those done (or already gone: 409/404) leave the queue when
 * `leaves` (a decision, a snooze), else the lane is read again (an assignment).
 */
async function each(
  items: Target[],
  call: (item: Target) => Promise<unknown>,
  done: string,
  leaves = true,
): Promise<void> {
  const gone: string[] = [];
  const failures: string[] = [];
  for (const item of items) {
    try {
      await call(item);
      gone.push(itemKey(item));
    } catch (error) {
      if (error instanceof ApiError && (error.status === 409 || error.status === 404))
        gone.push(itemKey(item));
      else failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (leaves) queueStore.trigger.removed({ keys: gone });
  else await loadQueue();
  const count = items.length === 1 ? 'one item' : `${items.length} items`;
  queueStore.trigger.noticed(
    failures.length ? { notice: `Failed: ${failures[0]}`, failed: true } : { notice: `${done} ${count}.` },
  );
}

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
  );
}

export function assign(items: Target[], assignedTo: string | null): Promise<void> {
  return each(
    items,
    (item) => api('POST', '/reviews/assign?limit=1', { kind: item.kind, id: item.id, assignedTo }),
    assignedTo ? `Assigned to ${assignedTo}:` : 'Sent back to triage:',
    false,
  );
}

export async function snooze(items: Target[], until: Date): Promise<void> {
  await each(
    items,
    (item) =>
      api('POST', '/reviews/snooze?limit=1', { kind: item.kind, id: item.id, until: until.toISOString() }),
    'Snoozed',
  );
}
