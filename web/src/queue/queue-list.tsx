/**
 * The queue's rows: what waits, its age, who it is assigned to, when it is due (an overdue row is
 * marked, in words and colour) and, for an item needing several approvals, how many it has and whose ("1
 * of 2 approved, by ann"); the cursor row is marked. One row
 * at a time is in the tab order (the cursor's): Tab enters the list at it and leaves the list from
 * it, and the cursor's moves carry the focus along — also when the row it was on leaves the queue.
 * Key presses inside the list go to `onKey` (the queue's keys are scoped to the list).
 */
import { Component } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { age } from '../format.js';
import { approvalsText } from '../review/policy-words.js';
import { itemKey, type ReviewItem } from '../stores/queue-store.js';
import { isOverdue } from './lanes.js';

/** Where an item's review screen is (a kind this UI does not know yet: its own path, which says so). */
export function reviewPath(item: { kind: string; id: number }): string {
  if (item.kind === 'skill' || item.kind === 'workflow') return `/review/runs/${item.id}`;
  if (item.kind === 'mission') return `/review/missions/${item.id}`;
  return `/review/${item.kind === 'action' ? 'actions' : encodeURIComponent(`${item.kind}s`)}/${item.id}`;
}

/** When an item is due: `due in 2h`, or `overdue 5m` (marked). */
function DueTime(props: { dueAt: string; overdue: boolean }) {
  const { dueAt, overdue } = props;
  const label = overdue
    ? `overdue ${age(dueAt)}`
    : `due in ${age(new Date().toISOString(), Date.parse(dueAt))}`;
  return (
    <span class={overdue ? 'due overdue' : 'due'} title={`due ${new Date(dueAt).toLocaleString()}`}>
      {label}
    </span>
  );
}

export function QueueList(props: {
  items: ReviewItem[];
  cursor: number;
  checked: ReadonlySet<string>;
  onToggle: (key: string) => void;
  onPick: (index: number) => void;
  onKey: (event: KeyboardEvent) => void;
}) {
  const list = useRef<HTMLOListElement>(null);
  // Whether the person works in the list: the focus went into it and not elsewhere since.
  const working = useRef(false);
  const current = props.items[props.cursor];
  const currentKey = current ? itemKey(current) : null;

  useEffect(() => {
    list.current?.querySelector('li.current')?.scrollIntoView({ block: 'nearest' });
  }, [currentKey]);

  // After every render, before the next key press can arrive: the focus follows the cursor, and comes
  // back from a dialog or from a row that left (its removal dropped the focus on the body).
  useLayoutEffect(() => {
    const ol = list.current;
    const row = ol?.querySelector<HTMLElement>('li.current');
    if (!ol || !row || !working.current) return;
    const active = document.activeElement;
    const lost = active === null || active === document.body;
    if (lost || (ol.contains(active) && !row.contains(active))) {
      row.querySelector<HTMLElement>('a.title')?.focus();
    }
  });

  useEffect(() => {
    // A click or focus elsewhere on the page ends work in the list (a dialog opened from it does not).
    const outside = (event: Event) => {
      const target = event.target as Element | null;
      if (!list.current?.contains(target) && !target?.closest?.('dialog')) working.current = false;
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('focusin', outside);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('focusin', outside);
    };
  }, []);

  // The rows' handlers stay the same functions from render to render (they read the latest props),
  // so a row whose item, place and marks did not change is not drawn again (memo): a re-read of a
  // long queue, or a move of the cursor, redraws the rows that changed only.
  const latest = useRef(props);
  latest.current = props;
  const handlers = useMemo(
    () => ({
      toggle: (key: string) => latest.current.onToggle(key),
      pick: (index: number) => latest.current.onPick(index),
    }),
    [],
  );

  if (props.items.length === 0) return <p class="muted">Nothing waits for review here.</p>;
  return (
    <ol
      ref={list}
      class="queue"
      aria-label="Review items"
      onKeyDown={props.onKey}
      onFocusIn={() => {
        working.current = true;
      }}
    >
      {props.items.map((item, index) => {
        const key = itemKey(item);
        return (
          <QueueRow
            key={key}
            item={item}
            index={index}
            current={index === props.cursor}
            checked={props.checked.has(key)}
            onToggle={handlers.toggle}
            onPick={handlers.pick}
          />
        );
      })}
    </ol>
  );
}

interface RowProps {
  item: ReviewItem;
  index: number;
  current: boolean;
  checked: boolean;
  onToggle: (key: string) => void;
  onPick: (index: number) => void;
}

/** One row of the queue, drawn again only when one of its props changed. */
class QueueRow extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const now = this.props;
    return (
      next.item !== now.item ||
      next.index !== now.index ||
      next.current !== now.current ||
      next.checked !== now.checked
    );
  }

  override render() {
    return <Row {...this.props} />;
  }
}

function Row(props: RowProps) {
  const { item, index, current } = props;
  const key = itemKey(item);
  const tab = current ? 0 : -1;
  const overdue = isOverdue(item, Date.now());
  const classes = [current && 'current', overdue && 'overdue'].filter(Boolean).join(' ');
  return (
    <li
      class={classes || undefined}
      aria-current={current ? 'true' : undefined}
      data-key={key}
      onFocusIn={() => props.onPick(index)}
    >
      <input
        type="checkbox"
        tabIndex={tab}
        aria-label={`Select ${item.title}`}
        checked={props.checked}
        onChange={() => props.onToggle(key)}
      />
      <a href={reviewPath(item)} class="title" tabIndex={tab}>
        {item.title}
      </a>
      <span class="meta">
        <span class="tag">{item.kind}</span>
        {item.slug && <span>{item.slug}</span>}
        <span title={item.createdAt}>{age(item.createdAt)} old</span>
        <span>{item.assignedTo ? `→ ${item.assignedTo}` : 'unassigned'}</span>
        {item.snoozedUntil && Date.parse(item.snoozedUntil) > Date.now() && <span>snoozed</span>}
        {item.dueAt && <DueTime dueAt={item.dueAt} overdue={overdue} />}
        {item.required > 1 && <span class="approvals">{approvalsText(item)}</span>}
      </span>
      {item.summary && <span class="summary">{item.summary}</span>}
    </li>
  );
}
