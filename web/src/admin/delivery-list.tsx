/** A webhook's deliveries, newest first: status, attempts, the last answer; replay; each one's attempts. */
import { when } from '../format.js';
import type { Delivery, DeliveryDetail } from '../stores/webhooks-store.js';
import { loadAttempts, replay } from './webhooks-data.js';

export function DeliveryList(props: {
  webhookId: number;
  deliveries: Delivery[];
  attempts: Record<string, DeliveryDetail>;
  canWrite: boolean;
}) {
  if (props.deliveries.length === 0) return <p class="muted">No deliveries yet.</p>;
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
            {props.canWrite && (
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
