/**
 * The review queue as the queue page shows it: the lane's items (all pages), filters, the cursor row
 * (keyboard), the checked rows (bulk), and which dialog is open.
 */
import { createStore } from '@xstate/store';

/** A review item as `GET /api/v1/reviews` lists it. */
export interface ReviewItem {
  kind: 'skill' | 'workflow' | 'mission' | 'action';
  id: number;
  title: string;
  status: string;
  assignedTo: string | null;
  snoozedUntil: string | null;
  note: string | null;
  slug: string | null;
  pausedAt: string | null;
  createdAt: string;
  ageSeconds: number;
  reviewUrl: string;
  pollUrl: string;
}

export type Lane = 'mine' | 'unassigned' | 'all' | 'snoozed';
export type QueueDialog = null | 'reject' | 'snooze' | 'assign' | 'help';

/** An item's identity in the queue. */
export const itemKey = (item: { kind: string; id: number }): string => `${item.kind}:${item.id}`;

export interface QueueContext {
  lane: Lane;
  items: ReviewItem[];
  loaded: boolean;
  error: string | null;
  /** Filters: a kind, a skill or workflow slug ('' = any). */
  kind: string;
  slug: string;
  /** The cursor row, by key (null: the first row). */
  cursor: string | null;
  checked: ReadonlySet<string>;
  dialog: QueueDialog;
  /** What the last action did, for the live region; `failed` when it went wrong (shown as an alert). */
  notice: string;
  failed: boolean;
}

/**
 * When each item last left the queue here: a read of the lane that started earlier (and answers
 * later) must not bring it back.
 */
const removedAt = new Map<string, number>();

export const queueStore = createStore({
  context: {
    lane: 'all',
    items: [],
    loaded: false,
    error: null,
    kind: '',
    slug: '',
    cursor: null,
    checked: new Set<string>(),
    dialog: null,
    notice: '',
    failed: false,
  } as QueueContext,
  on: {
    laneChosen: (context, event: { lane: Lane }) => ({
      ...context,
      lane: event.lane,
      items: [],
      loaded: false,
      cursor: null,
      checked: new Set<string>(),
    }),
    /** A read of the lane that started at `startedAt`: items removed since then stay removed. */
    loaded: (context, event: { items: ReviewItem[]; startedAt: number }) => {
      const items = event.items.filter((item) => (removedAt.get(itemKey(item)) ?? -1) < event.startedAt);
      return { ...context, items, loaded: true, error: null };
    },
    failed: (context, event: { error: string }) => ({ ...context, error: event.error }),
    filtered: (context, event: { kind?: string; slug?: string }) => ({ ...context, ...event, cursor: null }),
    moved: (context, event: { cursor: string | null }) => ({ ...context, cursor: event.cursor }),
    toggled: (context, event: { key: string }) => {
      const checked = new Set(context.checked);
      if (checked.has(event.key)) checked.delete(event.key);
      else checked.add(event.key);
      return { ...context, checked };
    },
    allChecked: (context, event: { keys: string[] }) => ({ ...context, checked: new Set(event.keys) }),
    /** Items gone from the queue (decided, cancelled, moved out of the lane): the cursor moves to the next row. */
    removed: (context, event: { keys: string[] }) => {
      const gone = new Set(event.keys);
      const now = performance.now();
      for (const key of gone) removedAt.set(key, now);
      if (removedAt.size > 10_000) removedAt.clear();
      if (!context.items.some((item) => gone.has(itemKey(item)))) return context;
      let cursor = context.cursor;
      if (cursor && gone.has(cursor)) {
        const visible = visibleItems(context);
        const at = visible.findIndex((item) => itemKey(item) === cursor);
        const after = visible.slice(at + 1).find((item) => !gone.has(itemKey(item)));
        const before = visible
          .slice(0, Math.max(at, 0))
          .reverse()
          .find((item) => !gone.has(itemKey(item)));
        cursor = after ? itemKey(after) : before ? itemKey(before) : null;
      }
      const checked = new Set([...context.checked].filter((key) => !gone.has(key)));
      return { ...context, items: context.items.filter((item) => !gone.has(itemKey(item))), cursor, checked };
    },
    dialogOpened: (context, event: { dialog: QueueDialog }) => ({ ...context, dialog: event.dialog }),
    noticed: (context, event: { notice: string; failed?: boolean }) => ({
      ...context,
      notice: event.notice,
      failed: event.failed ?? false,
    }),
  },
});

/** The rows shown: the lane's items that pass the filters. */
export function visibleItems(context: QueueContext): ReviewItem[] {
  return context.items.filter(
    (item) => (!context.kind || item.kind === context.kind) && (!context.slug || item.slug === context.slug),
  );
}

/** The cursor row's index among the visible rows (0 when unset or gone). */
export function cursorIndex(context: QueueContext, visible: ReviewItem[]): number {
  const at = context.cursor ? visible.findIndex((item) => itemKey(item) === context.cursor) : -1;
  return at < 0 ? 0 : at;
}
