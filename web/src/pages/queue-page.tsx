/**
 * The review queue (/review): lanes (mine, unassigned, all, snoozed), filters by kind and skill or
 * workflow, live over SSE, and driven from the keyboard (j/k, Enter, x, a, r, s, g, ?). Actions
 * apply to the checked rows when there are any, else to the cursor row.
 */
import { useEffect, useMemo } from 'preact/hooks';
import { assign, decide, followQueue, loadQueue, snooze } from '../queue/queue-data.js';
import { AssignDialog, HelpDialog, RejectDialog, SnoozeDialog } from '../queue/queue-dialogs.js';
import { QueueList, reviewPath } from '../queue/queue-list.js';
import { navigate } from '../stores/location-store.js';
import {
  cursorIndex,
  itemKey,
  type Lane,
  queueStore,
  type ReviewItem,
  visibleItems,
} from '../stores/queue-store.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';

const LANES: Array<[Lane, string]> = [
  ['mine', 'Mine'],
  ['unassigned', 'Unassigned'],
  ['all', 'All'],
  ['snoozed', 'Snoozed'],
];

/** The rows an action applies to: the checked ones, else the cursor row. */
function targets(): ReviewItem[] {
  const context = queueStore.getSnapshot().context;
  const visible = visibleItems(context);
  if (context.checked.size > 0) return visible.filter((item) => context.checked.has(itemKey(item)));
  const current = visible[cursorIndex(context, visible)];
  return current ? [current] : [];
}

const NOT_TYPED = new Set(['checkbox', 'radio', 'button', 'submit', 'reset']);

/** Whether a key press goes into a field (then it is not a queue key). */
function isTyping(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element) return false;
  if (element.tagName === 'INPUT') return !NOT_TYPED.has((element as HTMLInputElement).type);
  return element.isContentEditable || element.tagName === 'TEXTAREA' || element.tagName === 'SELECT';
}

export function QueuePage() {
  const context = useSelector(queueStore, (c) => c);
  const session = useSelector(sessionStore, (c) => c.session);
  const canAct = session?.canApprove ?? false;
  const visible = useMemo(() => visibleItems(context), [context]);
  const cursor = cursorIndex(context, visible);
  const slugs = useMemo(
    () => [...new Set(context.items.map((i) => i.slug).filter((s): s is string => !!s))].sort(),
    [context.items],
  );

  useEffect(() => {
    const lane = new URLSearchParams(window.location.search).get('lane') as Lane | null;
    if (lane && LANES.some(([l]) => l === lane) && lane !== queueStore.getSnapshot().context.lane) {
      queueStore.trigger.laneChosen({ lane });
    }
    return followQueue();
  }, []);

  useEffect(() => {
    document.querySelector('.queue li.current')?.scrollIntoView({ block: 'nearest' });
  }, [cursor, visible.length]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      const c = queueStore.getSnapshot().context;
      if (c.dialog) return;
      const rows = visibleItems(c);
      const at = cursorIndex(c, rows);
      const move = (to: number) => {
        const row = rows[Math.max(0, Math.min(rows.length - 1, to))];
        if (row) queueStore.trigger.moved({ cursor: itemKey(row) });
      };
      const needsCapability = () => {
        if (canAct) return false;
        queueStore.trigger.noticed({ notice: 'You cannot decide reviews: it needs the approve capability.' });
        return true;
      };
      switch (event.key) {
        case 'j':
          move(at + 1);
          break;
        case 'k':
          move(at - 1);
          break;
        case 'Enter': {
          const row = rows[at];
          if (row && (event.target as HTMLElement | null)?.tagName !== 'A') navigate(reviewPath(row));
          else return;
          break;
        }
        case 'x': {
          const row = rows[at];
          if (row) queueStore.trigger.toggled({ key: itemKey(row) });
          break;
        }
        case 'a':
          if (!needsCapability() && targets().length) void decide(targets(), 'approve');
          break;
        case 'r':
          if (!needsCapability() && targets().length) queueStore.trigger.dialogOpened({ dialog: 'reject' });
          break;
        case 's':
          if (!needsCapability() && targets().length) queueStore.trigger.dialogOpened({ dialog: 'snooze' });
          break;
        case 'g':
          if (!needsCapability() && targets().length) queueStore.trigger.dialogOpened({ dialog: 'assign' });
          break;
        case '?':
          queueStore.trigger.dialogOpened({ dialog: 'help' });
          break;
        default:
          return;
      }
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [canAct]);

  const close = () => queueStore.trigger.dialogOpened({ dialog: null });
  const chooseLane = (lane: Lane) => {
    queueStore.trigger.laneChosen({ lane });
    navigate(`/review?lane=${lane}`, { replace: true });
    void loadQueue();
  };

  return (
    <main id="main" class="queue-page">
      <h1>Review queue</h1>
      <fieldset class="row lanes">
        <legend class="visually-hidden">Lane</legend>
        {LANES.map(([lane, label]) => (
          <button
            key={lane}
            type="button"
            aria-pressed={context.lane === lane}
            onClick={() => chooseLane(lane)}
          >
            {label}
          </button>
        ))}
      </fieldset>
      <div class="row filters">
        <label for="filter-kind">Kind</label>
        <select
          id="filter-kind"
          value={context.kind}
          onChange={(e) => queueStore.trigger.filtered({ kind: e.currentTarget.value })}
        >
          <option value="">any</option>
          <option value="skill">skill</option>
          <option value="workflow">workflow</option>
          <option value="mission">mission</option>
        </select>
        <label for="filter-slug">Skill or workflow</label>
        <select
          id="filter-slug"
          value={context.slug}
          onChange={(e) => queueStore.trigger.filtered({ slug: e.currentTarget.value })}
        >
          <option value="">any</option>
          {slugs.map((slug) => (
            <option key={slug} value={slug}>
              {slug}
            </option>
          ))}
        </select>
        <span class="muted" aria-live="polite">
          {context.loaded ? `${visible.length} waiting` : 'Loading…'}
        </span>
        <button type="button" onClick={() => queueStore.trigger.dialogOpened({ dialog: 'help' })}>
          Keys (?)
        </button>
      </div>
      {canAct && context.checked.size > 0 && (
        <fieldset class="row bulk">
          <legend class="visually-hidden">Selected items</legend>
          <span>{context.checked.size} selected</span>
          <button type="button" class="primary" onClick={() => void decide(targets(), 'approve')}>
            Approve selected
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => queueStore.trigger.dialogOpened({ dialog: 'reject' })}
          >
            Reject selected
          </button>
          <button type="button" onClick={() => queueStore.trigger.allChecked({ keys: [] })}>
            Clear selection
          </button>
        </fieldset>
      )}
      {context.error && (
        <p class="error" role="alert">
          {context.error}
        </p>
      )}
      {context.failed ? (
        <p class="error" role="alert">
          {context.notice}
        </p>
      ) : (
        <p class="visually-hidden" aria-live="polite">
          {context.notice}
        </p>
      )}
      {context.loaded && (
        <QueueList
          items={visible}
          cursor={cursor}
          checked={context.checked}
          onToggle={(key) => queueStore.trigger.toggled({ key })}
          onPick={(index) => {
            const row = visible[index];
            if (row) queueStore.trigger.moved({ cursor: itemKey(row) });
          }}
        />
      )}
      {context.dialog === 'reject' && (
        <RejectDialog
          count={targets().length}
          onClose={close}
          onReject={(reason) => {
            const items = targets();
            close();
            void decide(items, 'reject', reason);
          }}
        />
      )}
      {context.dialog === 'snooze' && (
        <SnoozeDialog
          onClose={close}
          onSnooze={(until) => {
            const items = targets();
            close();
            void snooze(items, until);
          }}
        />
      )}
      {context.dialog === 'assign' && (
        <AssignDialog
          me={session?.userId ?? ''}
          onClose={close}
          onAssign={(userId) => {
            const items = targets();
            close();
            void assign(items, userId);
          }}
        />
      )}
      {context.dialog === 'help' && <HelpDialog onClose={close} />}
    </main>
  );
}
