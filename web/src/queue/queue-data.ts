/**
 * Reading the queue and acting on it: every open item (every page), the live stream that keeps them
 * current, and the decide, assign and snooze calls.
 */
import { ApiError, api } from '../api.js';
import { undoDelay, undoItem } from '../review/screen-decisions.js';
import { type Held, heldStore } from '../stores/held-store.js';
import { previewStore } from '../stores/preview-store.js';
import { itemKey, queueStore, type ReviewItem } from '../stores/queue-store.js';
import { readPreview } from './preview-data.js';

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
  kind: ReviewItem['kind'];
  id: number;
  title: string;
  summary: string | null;
  /**
   * The item's change: opened, assigned, snoozed, woken, updated, decided, changes_requested,
   * cancelled, due_soon, overdue, escalated, timeout.
   */
  event: string;
  status: string;
  revision: string | null;
  assignedTo: string | null;
  action?: string;
  by?: string;
  at: string;
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
  'review.due_soon',
  'review.overdue',
  'review.escalated',
  'review.timeout',
  'review.deciding',
  'review.undone',
];

/** The changes that take an item out of the queue (`deciding`: a decision waits for its effectiveAt). */
const CLOSING = new Set(['decided', 'changes_requested', 'cancelled', 'deciding']);

/** What a change of the item open in the preview was, in words (`was approved elsewhere`). */
function changeOf(change: ReviewEvent): string {
  const what: Record<string, string> = {
    assigned: change.assignedTo ? `was assigned to ${change.assignedTo}` : 'was sent back to triage',
    snoozed: 'was snoozed elsewhere',
    woken: 'came back from a snooze',
    updated: 'changed (its content is new)',
    cancelled: 'was withdrawn',
    escalated: `was escalated to ${change.assignedTo}`,
    timeout: 'was rejected: its deadline passed',
    changes_requested: 'was sent back for changes elsewhere',
    decided: change.action === 'reject' ? 'was rejected elsewhere' : 'was approved elsewhere',
    deciding: change.action === 'reject' ? 'is being rejected elsewhere' : 'is being approved elsewhere',
    undone: 'had a decision taken elsewhere undone',
  };
  return what[change.event] ?? 'changed';
}

/**
 * Reads the lane and follows the org's review events while the page is open: a decided or cancelled
 * item leaves at once; any other change reads the lane again (coalesced). A change of the item open
 * in the preview reads it again, and when someone else made it (not `me`, the session's actor) the
 * pane says so and the next decision key decides nothing (see queue-page). Returns the stop function.
 */
export function followQueue(me: string): () => void {
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
    const key = itemKey(change);
    const elsewhere = change.by !== me;
    const preview = previewStore.getSnapshot().context;
    if (key === preview.key && elsewhere && change.revision !== preview.review?.revision) {
      previewStore.trigger.staled({
        notice: `“${change.title}” ${changeOf(change)} while you had it open. Nothing was decided here: read what is shown now before deciding.`,
      });
    }
    if (CLOSING.has(change.event)) {
      queueStore.trigger.removed({ keys: [key] });
      if (change.action && elsewhere && change.event !== 'deciding') {
        queueStore.trigger.decisionsSeen({
          entries: [
            {
              kind: change.kind,
              id: change.id,
              title: change.title,
              summary: change.summary,
              action: change.action,
              by: change.by ?? null,
              at: change.at,
            },
          ],
        });
      }
      return;
    }
    if (key === preview.key) void readPreview(change);
    reload();
  };
  for (const name of STREAM_EVENTS) source.addEventListener(name, onChange);
  return () => {
    source.close();
    if (timer) clearTimeout(timer);
  };
}

type Target = Pick<ReviewItem, 'kind' | 'id'>;

/** An item to decide, with the revision the reviewer saw (the preview's, or the row's). */
type Seen = Target & Pick<ReviewItem, 'revision' | 'title' | 'summary'>;

/**
 * Whether a 409 says the item left the queue — not one that stays open: approved by this reviewer
 * already (`already_approved`, a quorum waits for another) or sent back too often (`max_rounds`).
 */
const isGone = (error: ApiError) =>
  error.status === 409 &&
  error.details.reason !== 'already_approved' &&
  error.details.reason !== 'max_rounds';

/**
 * Runs `call` for each of `items` and says how it went: those done are handed to `after`, those
 * already gone (404, 409 but for an item still open) leave the queue, one that changed since it was seen (409 stale) stays and
 * is read again (the preview says so), and the first other failure is shown as an alert.
 */
async function each<T extends Target>(
  items: T[],
  call: (item: T) => Promise<unknown>,
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
      if (error instanceof ApiError && error.status === 409 && error.details.reason === 'stale') {
        changedElsewhere(item, error.details.revision);
      } else if (error instanceof ApiError && (error.status === 404 || isGone(error)))
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

/**
 * The API refused a decision on `item`: it changed since the reviewer saw it (409 stale, `current`
 * the revision it has now, null once closed). Nothing was decided: the pane says so and reads it
 * again; a closed one leaves the queue.
 */
function changedElsewhere(item: Target, current: unknown): void {
  const key = itemKey(item);
  if (key === previewStore.getSnapshot().context.key) {
    previewStore.trigger.staled({
      notice:
        'This item changed elsewhere since you opened it. Nothing was decided: it shows its current version now.',
    });
    void readPreview(item);
  }
  if (current === null) queueStore.trigger.removed({ keys: [key] });
  else void loadQueue();
}

/**
 * Reads of items this browser changed (assigned, snoozed), by key, until they answered: the change
 * gave the item a new revision, which a decision taken right after must send (the reviewer's own
 * change is not a change made elsewhere).
 */
const refreshing = new Map<string, Promise<void>>();

/** `call` changes `item` here: once done, its row (and the preview) take its new revision. */
async function ownChange(item: Target, call: Promise<unknown>): Promise<unknown> {
  const key = itemKey(item);
  let settle = () => {};
  refreshing.set(key, new Promise<void>((resolve) => (settle = resolve)));
  try {
    const answer = await call;
    const { review } = await api<{ review: ReviewItem }>('GET', `/reviews/${item.kind}/${item.id}`);
    queueStore.trigger.revised({ key, revision: review.revision });
    if (previewStore.getSnapshot().context.key === key) await readPreview(item);
    return answer;
  } finally {
    refreshing.delete(key);
    settle();
  }
}

/** `item` with the revision its row has now, once a change made here has been read back. */
async function current<T extends Seen>(item: T): Promise<T> {
  const pending = refreshing.get(itemKey(item));
  if (!pending) return item;
  await pending;
  const row = queueStore.getSnapshot().context.items.find((i) => itemKey(i) === itemKey(item));
  return row ? { ...item, revision: row.revision } : item;
}

/**
 * Decides `items`, each bound to the revision the reviewer saw (a stale one decides nothing), taking
 * effect `UNDO_SECONDS` later (until then each has an undo toast); those decided leave the queue (the
 * cursor moves on to the next row) and head the `decided` lane.
 */
export function decide(items: Seen[], action: 'approve' | 'reject', reason?: string): Promise<void> {
  // The row's quorum (as listed) says whether this approval decides or only counts.
  const delayOf = (item: Seen) => undoDelay(action, 'required' in item ? (item as ReviewItem) : null);
  return each(
    items,
    async (seen) => {
      const item = await current(seen);
      return api('POST', '/reviews/decide?limit=1', {
        kind: item.kind,
        id: item.id,
        action,
        ...(item.revision ? { revision: item.revision } : {}),
        ...(reason ? { reason } : {}),
        ...(delayOf(item) > 0 ? { delaySeconds: delayOf(item) } : {}),
      });
    },
    action === 'approve' ? 'Approved' : 'Rejected',
    (keys) => {
      const at = new Date().toISOString();
      heldStore.trigger.held({
        entries: items
          .filter((item) => keys.includes(itemKey(item)) && delayOf(item) > 0)
          .map((item) => ({
            kind: item.kind,
            id: item.id,
            title: item.title,
            action,
            effectiveAt: Date.now() + delayOf(item) * 1000,
          })),
      });
      const entries = items
        .filter((item) => keys.includes(itemKey(item)))
        .map((item) => ({
          kind: item.kind,
          id: item.id,
          title: item.title,
          summary: item.summary,
          action,
          by: null,
          at,
        }));
      queueStore.trigger.decisionsSeen({ entries });
      queueStore.trigger.removed({ keys });
    },
  );
}

/**
 * Sends `item` (a skill's draft, a mission's plan) back to its model with `reason`, bound to the
 * revision the reviewer saw; taken at once (no undo delay: the next draft comes back for review
 * anyway). It leaves the queue until the new draft is in, and heads the `decided` lane.
 */
export function requestChanges(item: Seen, reason: string): Promise<void> {
  return each(
    [item],
    async (seen) => {
      const fresh = await current(seen);
      return api('POST', '/reviews/decide?limit=1', {
        kind: fresh.kind,
        id: fresh.id,
        action: 'request_changes',
        reason,
        ...(fresh.revision ? { revision: fresh.revision } : {}),
      });
    },
    'Sent back for changes:',
    (keys) => {
      if (keys.length === 0) return;
      queueStore.trigger.decisionsSeen({
        entries: [
          {
            kind: item.kind,
            id: item.id,
            title: item.title,
            summary: item.summary,
            action: 'request_changes',
            by: null,
            at: new Date().toISOString(),
          },
        ],
      });
      queueStore.trigger.removed({ keys });
    },
  );
}

/** Assigns `items` to user `assignedTo` (null: back to triage). */
export function assign(items: Target[], assignedTo: string | null): Promise<void> {
  return each(
    items,
    (item) =>
      ownChange(item, api('POST', '/reviews/assign?limit=1', { kind: item.kind, id: item.id, assignedTo })),
    assignedTo ? `Assigned to ${assignedTo}:` : 'Sent back to triage:',
    (keys) => queueStore.trigger.patched({ keys, patch: { assignedTo } }),
  );
}

/** Snoozes `items` until `until` (they move to the snoozed lane). */
export function snooze(items: Target[], until: Date): Promise<void> {
  return each(
    items,
    (item) =>
      ownChange(
        item,
        api('POST', '/reviews/snooze?limit=1', { kind: item.kind, id: item.id, until: until.toISOString() }),
      ),
    'Snoozed',
    (keys) => queueStore.trigger.patched({ keys, patch: { snoozedUntil: until.toISOString() } }),
  );
}

/**
 * Withdraws `held`, a decision taken here that waits for its effectiveAt: the item comes back to the
 * queue (the cursor on it) and leaves the `decided` lane. Too late (it took effect): said so.
 */
export async function undo(held: Held): Promise<void> {
  const key = itemKey(held);
  try {
    const outcome = await undoItem(held.kind, held.id);
    heldStore.trigger.released({ key });
    if (outcome === 'too_late') {
      queueStore.trigger.noticed({ notice: `Too late to undo: “${held.title}” took effect.`, failed: true });
      return;
    }
    queueStore.trigger.decisionWithdrawn({ kind: held.kind, id: held.id });
    await loadQueue();
    queueStore.trigger.moved({ cursor: key });
    queueStore.trigger.noticed({ notice: `Undone: “${held.title}” is back in the queue.` });
  } catch (error) {
    queueStore.trigger.noticed({ notice: `Undo failed: ${(error as Error).message}`, failed: true });
  }
}
