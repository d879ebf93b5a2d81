/**
 * The review queue as a workbench (/review): lanes (mine, unassigned, all, snoozed, and the recent
 * decisions) with their counts, filters by kind and by skill or workflow — all kept in the address —
 * live over SSE, and driven from the keyboard inside the list (j/k or the arrows, Enter, x, a, r, c,
 * s, g, u, ?; the single-character keys can be turned off). Beside the list, the preview pane shows the
 * cursor's item as it will be decided; a decision on it is bound to the revision shown (the API
 * refuses a stale one), after it the next item opens. When the open item changed or was decided
 * elsewhere the pane says so and the next decision key decides nothing. Actions apply to the checked
 * rows when there are any, else to the item open in the preview.
 */
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { loadUsers } from '../people/people-data.js';
import { DecidedList } from '../queue/decided-list.js';
import { laneCounts, type QueueView, searchOfView, viewFromSearch } from '../queue/lanes.js';
import { openPreview } from '../queue/preview-data.js';
import { PreviewPane, takesChanges } from '../queue/preview-pane.js';
import { assign, decide, followQueue, requestChanges, snooze, undo } from '../queue/queue-data.js';
import {
  AssignDialog,
  ChangesDialog,
  HelpDialog,
  RejectDialog,
  SnoozeDialog,
} from '../queue/queue-dialogs.js';
import { queueCommand } from '../queue/queue-keys.js';
import { QueueList, reviewPath } from '../queue/queue-list.js';
import { QueueToolbar } from '../queue/queue-toolbar.js';
import { UndoToasts } from '../queue/undo-toasts.js';
import { heldStore } from '../stores/held-store.js';
import { locationStore, navigate } from '../stores/location-store.js';
import { peopleStore } from '../stores/people-store.js';
import { preferencesStore } from '../stores/preferences-store.js';
import { previewStore } from '../stores/preview-store.js';
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

/**
 * The items a decision applies to, each with the revision the reviewer saw: the checked rows (as
 * listed), else the item open in the preview as it shows it (as its row shows it while the preview
 * reads it). Null, with a notice saying why, when nothing may be decided now: the open item changed
 * or was decided elsewhere and the person has not acted since the notice (this key press is that
 * act: the next one decides).
 */
function decisionTargets(): ReviewItem[] | null {
  const context = queueStore.getSnapshot().context;
  if (context.checked.size > 0) return targets();
  const preview = previewStore.getSnapshot().context;
  if (preview.stale) {
    previewStore.trigger.seen();
    queueStore.trigger.noticed({ notice: `Nothing decided: ${preview.stale}`, failed: true });
    return null;
  }
  const current = targets()[0];
  if (!current) return null;
  return [preview.review && preview.key === itemKey(current) ? preview.review : current];
}

/** Shows `view` and writes it in the address (replacing the entry: filters are not history). */
function show(view: Partial<QueueView>): void {
  queueStore.trigger.viewed({ view });
  navigate(`/review${searchOfView(queueStore.getSnapshot().context.view)}`, { replace: true });
}

export function QueuePage() {
  const context = useSelector(queueStore, (c) => c);
  const preview = useSelector(previewStore, (c) => c);
  const session = useSelector(sessionStore, (c) => c.session);
  const search = useSelector(locationStore, (c) => c.search);
  const users = useSelector(peopleStore, (c) => c.users);
  const shortcuts = useSelector(preferencesStore, (c) => c.shortcuts);
  const canAct = session?.canApprove ?? false;
  const visible = useMemo(() => visibleItems(context), [context]);
  const counts = useMemo(
    () => (context.loaded ? laneCounts(context.items, context.me, Date.now(), context.decided.length) : null),
    [context.items, context.loaded, context.me, context.decided],
  );
  const cursor = cursorIndex(context, visible);
  const decidedLane = context.view.lane === 'decided';
  const open = decidedLane || !context.loaded ? null : (visible[cursor] ?? null);

  // The preview follows the cursor.
  useEffect(() => openPreview(open), [open ? itemKey(open) : null]);
  const slugs = useMemo(
    () => [...new Set(context.items.map((i) => i.slug).filter((s): s is string => !!s))].sort(),
    [context.items],
  );

  useEffect(() => {
    queueStore.trigger.opened({ view: viewFromSearch(window.location.search), me: session?.userId ?? '' });
    if (canAct) void loadUsers();
    // The session's own actor, as review events name who made a change.
    return followQueue(session?.tokenId ? `token:${session.tokenId}` : `user:${session?.userId ?? ''}`);
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
      previewStore.trigger.seen();
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
      case 'approve': {
        const items = mayAct() ? decisionTargets() : null;
        if (items) void decide(items, 'approve');
        break;
      }
      case 'reject':
        if (mayAct()) openReject();
        break;
      case 'changes':
        if (mayAct()) openChanges();
        break;
      case 'snooze':
        if (mayAct()) queueStore.trigger.dialogOpened({ dialog: 'snooze' });
        break;
      case 'assign':
        if (mayAct()) queueStore.trigger.dialogOpened({ dialog: 'assign' });
        break;
      case 'undo': {
        const last = heldStore.getSnapshot().context.held[0];
        if (last) void undo(last);
        else queueStore.trigger.noticed({ notice: 'Nothing to undo.' });
        break;
      }
      case 'help':
        queueStore.trigger.dialogOpened({ dialog: 'help' });
        break;
    }
    event.preventDefault();
  };

  const close = () => queueStore.trigger.dialogOpened({ dialog: null });
  // What the reject dialog will reject: fixed when it opens (the items as the reviewer saw them).
  const rejecting = useRef<ReviewItem[]>([]);
  const openReject = () => {
    const items = decisionTargets();
    if (!items) return;
    rejecting.current = items;
    queueStore.trigger.dialogOpened({ dialog: 'reject' });
  };
  // What the request-changes dialog sends back: the item open in the preview, as it shows it.
  const changing = useRef<ReviewItem | null>(null);
  const openChanges = () => {
    if (queueStore.getSnapshot().context.checked.size > 0) {
      queueStore.trigger.noticed({
        notice: 'Changes are requested of one item at a time: the one open in the preview.',
        failed: true,
      });
      return;
    }
    const { review, subject } = previewStore.getSnapshot().context;
    const items = decisionTargets();
    const item = items?.[0];
    if (!item) return;
    if (!review || itemKey(review) !== itemKey(item) || !takesChanges(review, subject)) {
      queueStore.trigger.noticed({
        notice: 'This item takes no change request: only a skill’s draft or a mission’s plan can go back.',
        failed: true,
      });
      return;
    }
    changing.current = review;
    queueStore.trigger.dialogOpened({ dialog: 'changes' });
  };
  const approveOpen = () => {
    const items = decisionTargets();
    if (items) void decide(items, 'approve');
  };
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
          <button type="button" class="danger" onClick={openReject}>
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
      {decidedLane ? (
        <DecidedList entries={context.decided} view={context.view} />
      ) : (
        context.loaded && (
          <div class="workbench">
            <QueueList
              items={visible}
              cursor={cursor}
              checked={context.checked}
              onToggle={(key) => queueStore.trigger.toggled({ key })}
              onPick={(index) => {
                const row = visible[index];
                if (row && index !== cursor) {
                  previewStore.trigger.seen();
                  queueStore.trigger.moved({ cursor: itemKey(row) });
                }
              }}
              onKey={onKey}
            />
            {visible.length > 0 && (
              <PreviewPane
                preview={preview}
                canAct={canAct}
                shortcuts={shortcuts}
                onApprove={approveOpen}
                onReject={openReject}
                onRequestChanges={openChanges}
              />
            )}
          </div>
        )
      )}
      {context.dialog === 'reject' && (
        <RejectDialog
          count={rejecting.current.length}
          onClose={close}
          onReject={(reason) => {
            const items = rejecting.current;
            close();
            void decide(items, 'reject', reason);
          }}
        />
      )}
      {context.dialog === 'changes' && changing.current && (
        <ChangesDialog
          title={changing.current.title}
          onClose={close}
          onSend={(reason) => {
            const item = changing.current;
            close();
            if (item) void requestChanges(item, reason);
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
      <UndoToasts shortcuts={shortcuts} />
      {context.dialog === 'help' && (
        <HelpDialog shortcuts={shortcuts} onShortcuts={setShortcuts} onClose={close} />
      )}
    </main>
  );
}
