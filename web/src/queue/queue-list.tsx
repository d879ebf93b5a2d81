/** The queue's rows: what waits, its age and who it is assigned to; the cursor row is marked. */
import { age } from '../format.js';
import { itemKey, type ReviewItem } from '../stores/queue-store.js';

/** Where an item's review screen is (a kind this UI does not know yet: its own path, which says so). */
export function reviewPath(item: { kind: string; id: number }): string {
  if (item.kind === 'skill' || item.kind === 'workflow') return `/review/runs/${item.id}`;
  if (item.kind === 'mission') return `/review/missions/${item.id}`;
  return `/review/${item.kind === 'action' ? 'actions' : encodeURIComponent(`${item.kind}s`)}/${item.id}`;
}

export function QueueList(props: {
  items: ReviewItem[];
  cursor: number;
  checked: ReadonlySet<string>;
  onToggle: (key: string) => void;
  onPick: (index: number) => void;
}) {
  if (props.items.length === 0) return <p class="muted">Nothing waits for review here.</p>;
  return (
    <ol class="queue" aria-label="Review items">
      {props.items.map((item, index) => {
        const key = itemKey(item);
        const current = index === props.cursor;
        return (
          <li
            key={key}
            class={current ? 'current' : undefined}
            aria-current={current ? 'true' : undefined}
            data-key={key}
            onFocusIn={() => props.onPick(index)}
          >
            <input
              type="checkbox"
              aria-label={`Select ${item.title}`}
              checked={props.checked.has(key)}
              onChange={() => props.onToggle(key)}
            />
            <a href={reviewPath(item)} class="title">
              {item.title}
            </a>
            <span class="meta">
              <span class="tag">{item.kind}</span>
              {item.slug && <span>{item.slug}</span>}
              <span title={item.createdAt}>{age(item.createdAt)} old</span>
              <span>{item.assignedTo ? `→ ${item.assignedTo}` : 'unassigned'}</span>
              {item.snoozedUntil && <span>snoozed</span>}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
