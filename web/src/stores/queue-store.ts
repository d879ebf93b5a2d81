/**
 * The review queue as the queue page shows it: every open item (all pages, snoozed ones included),
 * the view (lane and filters, see queue/lanes.ts), the cursor row (keyboard), the checked rows (bulk),
 * and which dialog is open.
 */
import { createStore } from '@xstate/store';
import { DEFAULT_VIEW, type QueueView, rowsOf } from '../queue/lanes.js';
import type { ReviewItem } from '../wire.js';

export type { ReviewItem };

export type QueueDialog = null | 'reject' | 'changes' | 'snooze' | 'assign' | 'help';

/** An item's identity in the queue. */
export const itemKey = (item: { kind: string; id: number }): string => `${item.kind}:${item.id}`;

/** A decision of the `decided` lane: taken here, or seen on the stream (taken elsewhere). */
export interface DecidedEntry {
  kind: string;
  id: number;
  title: string;
  summary: string | null;
  /** `approve`, `reject` or `request_changes`. */
  action: string;
  /** Who decided (`token:<id>`), null when it was this browser. */
  by: string | null;
  at: string;
}

/** How many decisions the `decided` lane keeps (the most recent). */
const DECIDED_KEPT = 100;
const DECIDED_KEY = 'r3.decided';

/** The decisions this tab saw before a reload (sessionStorage: this tab only). */
function storedDecided(): DecidedEntry[] {
  try {
    const text = window.sessionStorage.getItem(DECIDED_KEY);
    return text ? (JSON.parse(text) as DecidedEntry[]) : [];
  } catch {
    return [];
  }
}

export interface QueueContext {
  /** Every open item of the org, oldest first. */
  items: ReviewItem[];
  loaded: boolean;
  error: string | null;
  /** The lane and filters shown. */
  view: QueueView;
  /** The signed-in user (the `mine` lane). */
  me: string;
  /** The cursor row, by key (null: the first row). */
  cursor: string | null;
  checked: ReadonlySet<string>;
  dialog: QueueDialog;
  /** What the last action did, for the live region; `failed` when it went wrong (shown as an alert). */
  notice: string;
  failed: boolean;
  /** Recent decisions, newest first (the `decided` lane). */
  decided: DecidedEntry[];
}

/**
 * When each item last left the queue here: a read of the lane that started earlier (and answers
 * later) must not bring it back.
 */
const removedAt = new Map<string, number>();

export const queueStore = createStore({
  context: {
    items: [],
    loaded: false,
    error: null,
    view: DEFAULT_VIEW,
    me: '',
    cursor: null,
    checked: new Set<string>(),
    dialog: null,
    notice: '',
    failed: false,
    decided: storedDecided(),
  } as QueueContext,
  on: {
    /** The page opened for user `me`, showing `view`. */
    opened: (context, event: { view: QueueView; me: string }) => ({
      ...context,
      view: event.view,
      me: event.me,
      cursor: null,
      checked: new Set<string>(),
    }),
    /** Another lane or filter: the cursor goes to the first row, nothing stays checked. */
    viewed: (context, event: { view: Partial<QueueView> }) => ({
      ...context,
      view: { ...context.view, ...event.view },
      cursor: null,
      checked: new Set<string>(),
    }),
    /** A read of the queue that started at `startedAt`: items removed since then stay removed. */
    loaded: (context, event: { items: ReviewItem[]; startedAt: number }) => {
      // A deciding item's decision is on its way (it may still be undone): not in the queue.
      const before = new Map(context.items.map((item) => [itemKey(item), item]));
      const items = event.items
        .filter(
          (item) => item.status !== 'deciding' && (removedAt.get(itemKey(item)) ?? -1) < event.startedAt,
        )
        .map((item) => {
          // An item unchanged since the last read stays the same object: its row is not drawn again.
          const known = before.get(itemKey(item));
          return known && sameItem(known, item) ? known : item;
        });
      return { ...context, items, loaded: true, error: null };
    },
    failed: (context, event: { error: string }) => ({ ...context, error: event.error }),
    moved: (context, event: { cursor: string | null }) => ({ ...context, cursor: event.cursor }),
    toggled: (context, event: { key: string }) => {
      const checked = new Set(context.checked);
      if (checked.has(event.key)) checked.delete(event.key);
      else checked.add(event.key);
      return { ...context, checked };
    },
    allChecked: (context, event: { keys: string[] }) => ({ ...context, checked: new Set(event.keys) }),
    /** Items gone from the queue (decided, cancelled): the cursor moves to the next row. */
    removed: (context, event: { keys: string[] }) => {
      const gone = new Set(event.keys);
      const now = performance.now();
      for (const key of gone) removedAt.set(key, now);
      if (removedAt.size > 10_000) removedAt.clear();
      if (!context.items.some((item) => gone.has(itemKey(item)))) return context;
      const checked = new Set([...context.checked].filter((key) => !gone.has(key)));
      return {
        ...context,
        items: context.items.filter((item) => !gone.has(itemKey(item))),
        cursor: cursorPast(context, gone),
        checked,
      };
    },
    /**
     * Items changed here (assigned, snoozed) before the queue is read again: those that leave the
     * lane move the cursor to the next row, as a decision does.
     */
    patched: (
      context,
      event: { keys: string[]; patch: Partial<Pick<ReviewItem, 'assignedTo' | 'snoozedUntil'>> },
    ) => {
      const keys = new Set(event.keys);
      const items = context.items.map((item) =>
        keys.has(itemKey(item)) ? { ...item, ...event.patch } : item,
      );
      const still = new Set(visibleItems({ ...context, items }).map(itemKey));
      const left = new Set([...keys].filter((key) => !still.has(key)));
      return {
        ...context,
        items,
        cursor: cursorPast(context, left),
        checked: new Set([...context.checked].filter((key) => !left.has(key))),
      };
    },
    dialogOpened: (context, event: { dialog: QueueDialog }) => ({ ...context, dialog: event.dialog }),
    /** Item `key` has revision `revision` now (read back after a change made here). */
    revised: (context, event: { key: string; revision: string | null }) => ({
      ...context,
      items: context.items.map((item) =>
        itemKey(item) === event.key ? { ...item, revision: event.revision } : item,
      ),
    }),
    /** Decisions taken (here or elsewhere): they head the `decided` lane, once each. */
    decisionsSeen: (context, event: { entries: DecidedEntry[] }) => {
      const fresh = event.entries.filter(
        (entry) =>
          !context.decided.some((d) => d.kind === entry.kind && d.id === entry.id && d.at === entry.at),
      );
      if (fresh.length === 0) return context;
      return { ...context, decided: [...fresh, ...context.decided].slice(0, DECIDED_KEPT) };
    },
    /** A decision taken here was undone: it leaves the `decided` lane. */
    decisionWithdrawn: (context, event: { kind: string; id: number }) => {
      const at = context.decided.findIndex(
        (d) => d.kind === event.kind && d.id === event.id && d.by === null,
      );
      if (at < 0) return context;
      return { ...context, decided: context.decided.filter((_, i) => i !== at) };
    },
    noticed: (context, event: { notice: string; failed?: boolean }) => ({
      ...context,
      notice: event.notice,
      failed: event.failed ?? false,
    }),
  },
});

/**
 * Whether two reads of an item show the same: its revision changes with everything a reviewer sees
 * (decisions.md §15); the rest may change without it (overdue as time passes).
 */
function sameItem(a: ReviewItem, b: ReviewItem): boolean {
  return (
    a.revision === b.revision &&
    a.status === b.status &&
    a.overdue === b.overdue &&
    a.title === b.title &&
    a.summary === b.summary &&
    a.assignedTo === b.assignedTo &&
    a.snoozedUntil === b.snoozedUntil
  );
}

/** The rows shown: the lane's items that pass the filters. */
export function visibleItems(context: QueueContext, now = Date.now()): ReviewItem[] {
  return rowsOf(context.items, context.view, context.me, now);
}

/** The cursor after the rows `gone` leave the view: the next row, else the previous, else none. */
function cursorPast(context: QueueContext, gone: ReadonlySet<string>): string | null {
  const cursor = context.cursor;
  if (!cursor || !gone.has(cursor)) return cursor;
  const visible = visibleItems(context);
  const at = visible.findIndex((item) => itemKey(item) === cursor);
  const after = visible.slice(at + 1).find((item) => !gone.has(itemKey(item)));
  const before = visible
    .slice(0, Math.max(at, 0))
    .reverse()
    .find((item) => !gone.has(itemKey(item)));
  return after ? itemKey(after) : before ? itemKey(before) : null;
}

/** The cursor row's index among the visible rows (0 when unset or gone). */
export function cursorIndex(context: QueueContext, visible: ReviewItem[]): number {
  const at = context.cursor ? visible.findIndex((item) => itemKey(item) === context.cursor) : -1;
  return at < 0 ? 0 : at;
}

let savedDecided: DecidedEntry[] | null = null;
queueStore.subscribe(({ context }) => {
  if (context.decided === savedDecided) return;
  savedDecided = context.decided;
  try {
    window.sessionStorage.setItem(DECIDED_KEY, JSON.stringify(context.decided));
  } catch {
    // Storage refused: the lane holds this page's decisions only.
  }
});
