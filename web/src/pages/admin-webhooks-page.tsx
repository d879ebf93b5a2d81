/**
 * Webhooks (/admin/webhooks): each webhook with its state (disabled after failures, or by hand), its
 * deliveries (filtered by status, a page at a time, kept current while shown) and their attempts;
 * replay a delivery (an enabled webhook's only), rotate the secret (shown once), re-enable.
 * Changing anything needs `write:resources`; the buttons are shown only with it.
 */
import { useEffect, useState } from 'preact/hooks';
import { DeliveryList } from '../admin/delivery-list.js';
import {
  followDeliveries,
  loadDeliveries,
  loadWebhooks,
  rotateSecret,
  setActive,
} from '../admin/webhooks-data.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';
import { type Webhook, webhooksStore } from '../stores/webhooks-store.js';

export function AdminWebhooksPage() {
  const state = useSelector(webhooksStore, (c) => c);
  const session = useSelector(sessionStore, (c) => c.session);
  const canWrite = !!session?.scopes.includes('write:resources');
  const [rotating, setRotating] = useState<Webhook | null>(null);
  useEffect(() => {
    void loadWebhooks();
  }, []);
  useEffect(() => (state.openId === null ? undefined : followDeliveries(state.openId)), [state.openId]);
  const open = (webhook: Webhook) => {
    const next = state.openId === webhook.id ? null : webhook.id;
    webhooksStore.trigger.opened({ openId: next });
    if (next !== null) void loadDeliveries(next);
  };
  return (
    <main id="main">
      <h1>Webhooks</h1>
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      {state.secret && (
        <section class="notice stack" aria-labelledby="secret-title">
          <h2 id="secret-title">New signing secret for webhook {state.secret.webhookId}</h2>
          <p>Copy it now: it is not shown again. The old one still signs for a short while.</p>
          <label for="new-secret">Secret</label>
          <input id="new-secret" readOnly value={state.secret.secret} />
          <button type="button" onClick={() => webhooksStore.trigger.rotated({ secret: null })}>
            Done
          </button>
        </section>
      )}
      {state.loaded && state.webhooks.length === 0 && <p class="muted">No webhooks.</p>}
      <ul class="webhooks">
        {state.webhooks.map((w) => (
          <li key={w.id} data-webhook={w.id}>
            <h2>
              <code>{w.url}</code>
            </h2>
            <p class="row">
              <span class={w.active ? 'status status-active' : 'status status-disabled'}>
                {w.active ? 'active' : `disabled (${w.disabledReason ?? 'unknown'})`}
              </span>
              <span>{w.events.join(', ')}</span>
              {w.consecutiveFailures > 0 && <span>{w.consecutiveFailures} failures in a row</span>}
            </p>
            <div class="row">
              <button type="button" aria-expanded={state.openId === w.id} onClick={() => open(w)}>
                Deliveries
              </button>
              {canWrite && !w.active && (
                <button type="button" class="primary" onClick={() => void setActive(w.id, true)}>
                  Re-enable
                </button>
              )}
              {canWrite && (
                <button type="button" onClick={() => setRotating(w)}>
                  Rotate secret
                </button>
              )}
              <a href={`/inspect/webhook-endpoint/${w.id}`}>Inspect</a>
            </div>
            {state.openId === w.id && (
              <DeliveryList
                webhookId={w.id}
                active={w.active}
                deliveries={state.deliveries}
                attempts={state.attempts}
                canWrite={canWrite}
                status={state.status}
                hasMore={state.nextCursor !== null}
                onFilter={(status) => {
                  webhooksStore.trigger.filtered({ status });
                  void loadDeliveries(w.id);
                }}
                onMore={() => void loadDeliveries(w.id, true)}
                onReEnable={() => void setActive(w.id, true)}
              />
            )}
          </li>
        ))}
      </ul>
      {rotating && (
        <ConfirmDialog
          title="Rotate secret"
          message={`Give ${rotating.url} a new signing secret? Receivers must switch to it.`}
          confirm="Rotate"
          onClose={() => setRotating(null)}
          onConfirm={() => {
            const id = rotating.id;
            setRotating(null);
            void rotateSecret(id);
          }}
        />
      )}
    </main>
  );
}
