/**
 * A webhook's deliveries, newest first — all, or those pending, delivered or failed; a page at a time
 * — with status, attempts, the last answer and each one's attempts. Replay is offered only where it
 * can work: on an enabled webhook (a disabled one offers re-enabling first).
 */
import { when } from '../format.js';
import type { Delivery, DeliveryDetail } from '../stores/webhooks-store.js';
import { loadAttempts, replay } from './webhooks-data.js';

/** The statuses the filter offers ('' = all). */
const STATUSES = [
  ['', 'all'],
  ['pending', 'pending'],
  ['delivered', 'delivered'],
  ['failed', 'failed'],
] as const;

export type DeliveryStatus = (typeof STATUSES)[number][0];

export function DeliveryList(props: {
  webhookId: number;
  /** Whether the webhook is enabled (a replay of a disabled one's delivery is refused). */
  active: boolean;
  deliveries: Delivery[];
  attempts: Record<string, DeliveryDetail>;
  canWrite: boolean;
  status: DeliveryStatus;
  hasMore: boolean;
  onFilter(status: DeliveryStatus): void;
  onMore(): void;
  onReEnable(): void;
}) {
  const filterId = `deliveries-status-${props.webhookId}`;
  return (
    <section aria-label={`Deliveries of webhook ${props.webhookId}`}>
      <div class="row">
        <label for={filterId}>Show</label>
        <select
          id={filterId}
          value={props.status}
          onChange={(e) => props.onFilter(e.currentTarget.value as DeliveryStatus)}
        >
          {STATUSES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <span class="muted" aria-live="polite">
          {props.deliveries.length} shown{props.hasMore ? ', more to read' : ''}
        </span>
      </div>
      {props.canWrite && !props.active && props.deliveries.length > 0 && (
        <p class="notice">
          This webhook is disabled: its deliveries cannot be replayed until it is re-enabled.{' '}
          <button type="button" class="primary" onClick={props.onReEnable}>
            Re-enable to replay
          </button>
        </p>
      )}
      {props.deliveries.length === 0 ? (
        <p class="muted">{props.status ? `No ${props.status} deliveries.` : 'No deliveries yet.'}</p>
      ) : (
        <DeliveryRows {...props} />
      )}
      {props.hasMore && (
        <button type="button" onClick={props.onMore}>
          Show more deliveries
        </button>
      )}
    </section>
  );
}

function DeliveryRows(props: Parameters<typeof DeliveryList>[0]) {
  return (
    <ul class="deliveries">
      {props.deliveries.map((d) => (
        <li key={d.deliveryId} data-delivery={d.deliveryId}>
          <div class="row">
            <code>{d.deliveryId}</code>
            <span>{d.event}</span>
            <span class={`status status-${d.status}`}>{d.status}</span>
            <span>
              {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
            </span>
            <span>{d.responseStatus === null ? 'no answer' : `HTTP ${d.responseStatus}`}</span>
            <span>{when(d.createdAt)}</span>
            {d.replayOf && <span>replay of {d.replayOf}</span>}
            {props.canWrite && props.active && (
              <button type="button" onClick={() => void replay(props.webhookId, d.deliveryId)}>
                Replay<span class="visually-hidden"> {d.deliveryId}</span>
              </button>
            )}
          </div>
          <details onToggle={(e) => e.currentTarget.open && void loadAttempts(props.webhookId, d.deliveryId)}>
            <summary>Attempts</summary>
            <ol>
              {(props.attempts[d.deliveryId]?.attemptLog ?? []).map((a) => (
                <li key={a.attempt}>
                  {when(a.at)} ·{' '}
                  {a.responseStatus === null ? (a.error ?? 'no answer') : `HTTP ${a.responseStatus}`}
                  {a.durationMs !== null && ` · ${a.durationMs} ms`}
                  {a.bodyExcerpt && <pre>{a.bodyExcerpt}</pre>}
                </li>
              ))}
            </ol>
            {props.attempts[d.deliveryId] && (
              <a href={`/inspect/webhook-delivery/${props.attempts[d.deliveryId]?.actorId}`}>
                Inspect<span class="visually-hidden"> {d.deliveryId}</span>
              </a>
            )}
          </details>
        </li>
      ))}
    </ul>
  );
}
