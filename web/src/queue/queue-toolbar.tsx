/**
 * Above the queue: the lanes with how many items each holds, the kind and skill/workflow filters,
 * the order (oldest first, or due soonest first), how many rows show, and the keyboard help and shortcut switch.
 */
import { KINDS, LANES, type Lane, ORDERS, type Order, type QueueView } from './lanes.js';

export function QueueToolbar(props: {
  view: QueueView;
  counts: Record<Lane, number> | null;
  slugs: string[];
  /** Rows shown (null while the queue is read). */
  shown: number | null;
  shortcuts: boolean;
  onView: (view: Partial<QueueView>) => void;
  onShortcuts: (on: boolean) => void;
  onHelp: () => void;
}) {
  const { view } = props;
  return (
    <>
      <fieldset class="row lanes">
        <legend class="visually-hidden">Lane</legend>
        {LANES.map(([lane, label]) => (
          <button
            key={lane}
            type="button"
            aria-pressed={view.lane === lane}
            onClick={() => props.onView({ lane })}
          >
            {label}
            {props.counts && (
              <span class="count">
                {' '}
                {props.counts[lane]}
                <span class="visually-hidden"> items</span>
              </span>
            )}
          </button>
        ))}
      </fieldset>
      <div class="row filters">
        <label for="filter-kind">Kind</label>
        <select
          id="filter-kind"
          value={view.kind}
          onChange={(e) => props.onView({ kind: e.currentTarget.value })}
        >
          <option value="">any</option>
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
        <label for="filter-slug">Skill or workflow</label>
        <select
          id="filter-slug"
          value={view.slug}
          onChange={(e) => props.onView({ slug: e.currentTarget.value })}
        >
          <option value="">any</option>
          {/* A slug from the address that no item has (yet) stays choosable. */}
          {[...new Set([...props.slugs, ...(view.slug ? [view.slug] : [])])].sort().map((slug) => (
            <option key={slug} value={slug}>
              {slug}
            </option>
          ))}
        </select>
        <label for="filter-sort">Order</label>
        <select
          id="filter-sort"
          value={view.sort}
          onChange={(e) => props.onView({ sort: e.currentTarget.value as Order })}
        >
          {ORDERS.map(([order, label]) => (
            <option key={order} value={order}>
              {label}
            </option>
          ))}
        </select>
        <span class="muted" aria-live="polite">
          {props.shown === null ? 'Loading…' : `${props.shown} waiting`}
        </span>
        <button
          type="button"
          aria-pressed={props.shortcuts}
          onClick={() => props.onShortcuts(!props.shortcuts)}
        >
          Single-key shortcuts
        </button>
        <button type="button" onClick={props.onHelp}>
          Keys{props.shortcuts ? ' (?)' : ''}
        </button>
      </div>
    </>
  );
}
