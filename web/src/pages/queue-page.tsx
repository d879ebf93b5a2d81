/**
 * The review queue (/review): lanes (mine, unassigned, all, snoozed) with their counts, filters by
 * kind and by skill or workflow — all kept in the address — live over SSE, and driven from the
 * keyboard inside the list (j/k or the arrows, Enter, x, a, r, s, g, ?; the single-character keys can
 * be turned off). Actions apply to the checked rows when there are any, else to the cursor row.
 */
import { useEffect, useMemo } from 'preact/hooks';
import { loadUsers } from '../people/people-data.js';
import { laneCounts, type QueueView, searchOfView, viewFromSearch } from '../queue/lanes.js';
import { assign, decide, followQueue, snooze } from '../queue/queue-data.js';
import { AssignDialog, HelpDialog, RejectDialog, SnoozeDialog } from '../queue/queue-dialogs.js';
import { queueCommand } from '../queue/queue-keys.js';
import { QueueList, reviewPath } from '../queue/queue-list.js';
import { QueueToolbar } from '../queue/queue-toolbar.js';
import { locationStore, navigate } from '../stores/location-store.js';
import { peopleStore } from '../stores/people-store.js';
import { preferencesStore } from '../stores/preferences-store.js';
import { cursorIndex, itemKey, queueStore, type ReviewItem, visibleItems } from '../stores/queue-store.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';

/** The rows an action applies to: the checked ones, else the cursor row. */
function targets(): ReviewItem[] {
  const context = queueStore.getSnapshot().context;
  const visible = visibleItems(context);
  if (context.checked.size > 0) return visible.filter((item) => context.checked.has(itemKey(item)));
  const current = visible[cursorIndex(context, visible)];
  return current ? [current] : [];
}

/** Shows `view` and writes it in the address (replacing the entry: filters are not history). */
function show(view: Partial<QueueView>): void {
  queueStore.trigger.viewed({ view });
  navigate(`/review${searchOfView(queueStore.getSnapshot().context.view)}`, { replace: true });
}

export function QueuePage() {
  const context = useSelector(queueStore, (c) => c);
  const session = useSelector(sessionStore, (c) => c.session);
  const search = useSelector(locationStore, (c) => c.search);
  const users = useSelector(peopleStore, (c) => c.users);
  const shortcuts = useSelector(preferencesStore, (c) => c.shortcuts);
  const canAct = session?.canApprove ?? false;
  const visible = useMemo(() => visibleItems(context), [context]);
  const counts = useMemo(
    () => (context.loaded ? laneCounts(context.items, context.me, Date.now()) : null),
    [context.items, context.loaded, context.me],
  );
  const cursor = cursorIndex(context, visible);
  const slugs = useMemo(
    () => [...new Set(context.items.map((i) => i.slug).filter((s): s is string => !!s))].sort(),
    [context.items],
  );

  useEffect(() => {
    queueStore.trigger.opened({ view: viewFromSearch(window.location.search), me: session?.userId ?? '' });
    if (canAct) void loadUsers();
    return followQueue();
  }, []);

  // Back and forward between addresses of the queue show their view.
  useEffect(() => {
    const view = viewFromSearch(search);
    const shown = queueStore.getSnapshot().context.view;
    if (view.lane !== shown.lane || view.kind !== shown.kind || view.slug !== shown.slug) {
      queueStore.trigger.viewed({ view });
    }
  }, [search]);

  const onKey = (event: KeyboardEvent) => {
    const command = queueCommand(event, preferencesStore.getSnapshot().context.shortcuts);
    if (!command) return;
    const c = queueStore.getSnapshot().context;
    if (c.dialog) return;
    const rows = visibleItems(c);
    const at = cursorIndex(c, rows);
    const move = (to: number) => {
      const row = rows[Math.max(0, Math.min(rows.length - 1, to))];
      if (row) queueStore.trigger.moved({ cursor: itemKey(row) });
    };
    const mayAct = () => {
      if (canAct) return targets().length > 0;
      queueStore.trigger.noticed({ notice: 'You cannot decide reviews: it needs the approve capability.' });
      return false;
    };
    switch (command) {
      case 'next':
        move(at + 1);
        break;
      case 'previous':
        move(at - 1);
        break;
      case 'open': {
        const row = rows[at];
        // Enter on a row's link follows it already.
        if (!row || (event.target as HTMLElement | null)?.tagName === 'A') return;
        navigate(reviewPath(row));
        break;
      }
      case 'toggle': {
        const row = rows[at];
        if (row) queueStore.trigger.toggled({ key: itemKey(row) });
        break;
      }
      case 'approve':
        if (mayAct()) void decide(targets(), 'approve');
        break;
      case 'reject':
        if (mayAct()) queueStore.trigger.dialogOpened({ dialog: 'reject' });
        break;
      case 'snooze':
        if (mayAct()) queueStore.trigger.dialogOpened({ dialog: 'snooze' });
        break;
      case 'assign':
        if (mayAct()) queueStore.trigger.dialogOpened({ dialog: 'assign' });
        break;
      case 'help':
        queueStore.trigger.dialogOpened({ dialog: 'help' });
        break;
    }
    event.preventDefault();
  };

  const close = () => queueStore.trigger.dialogOpened({ dialog: null });
  const setShortcuts = (on: boolean) => preferencesStore.trigger.shortcutsSet({ on });

  return (
    <main id="main" class="queue-page">
      <h1>Review queue</h1>
      <QueueToolbar
        view={context.view}
        counts={counts}
        slugs={slugs}
        shown={context.loaded ? visible.length : null}
        shortcuts={shortcuts}
        onView={show}
        onShortcuts={setShortcuts}
        onHelp={() => queueStore.trigger.dialogOpened({ dialog: 'help' })}
      />
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
            if (row && index !== cursor) queueStore.trigger.moved({ cursor: itemKey(row) });
          }}
          onKey={onKey}
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
          users={users}
          onClose={close}
          onAssign={(userId) => {
            const items = targets();
            close();
            void assign(items, userId);
          }}
        />
      )}
      {context.dialog === 'help' && (
        <HelpDialog shortcuts={shortcuts} onShortcuts={setShortcuts} onClose={close} />
      )}
    </main>
  );
}
