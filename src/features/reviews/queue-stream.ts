/**
 * `GET /api/v1/reviews/stream` (an extension, for the web UI's queue): the caller's org's review
 * events as server-sent events, live only. The first frame after the subscription is in place is
 * `event: ready`; a client that reads the queue after it misses no change (EventSource reconnects
 * and sends `ready` again: read the queue again then). Each change is `event: review` with data
 * `{kind, id, event, status, revision, assignedTo, snoozedUntil, decision, by, at}` (`id`: the
 * run's, as in `GET /reviews`; `revision`: the item's after the change, null once closed). A comment heartbeat is sent every 15 s.
 */
import { access } from '../../platform/auth/guard.js';
import type { Bus, Subscription } from '../../platform/bus/bus.js';
import { subjectToken } from '../../platform/bus/subjects.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import type { ReviewEventPayload } from './review-item-kind.js';

const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

/** The queue stream route over `bus`. */
export function reviewStreamRoutes(bus: Bus, heartbeatMs = 15_000): RouteDef[] {
  const decoder = new TextDecoder();
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/reviews/stream',
      access: access.read,
      summary:
        "Extension: the org's review-queue changes as server-sent events (live only; `ready` once subscribed, then `review` events).",
      responses: {
        200: {
          description: 'text/event-stream: `ready`, then one `review` event per change of an item.',
          contentType: 'text/event-stream',
        },
      },
      handler: ({ principal }) => ({
        kind: 'stream',
        status: 200,
        headers: STREAM_HEADERS,
        start(stream) {
          let subscription: Subscription | null = null;
          const heartbeat = setInterval(() => stream.write(': heartbeat\n\n'), heartbeatMs);
          heartbeat.unref();
          stream.onClose(() => {
            clearInterval(heartbeat);
            subscription?.unsubscribe();
          });
          const pattern = `evt.${subjectToken(String(principal.orgId), 'org id')}.review.*.*`;
          bus
            .subscribe(pattern, (message) => {
              if (stream.closed) return;
              const p = JSON.parse(decoder.decode(message.data)) as ReviewEventPayload;
              if (p.orgId !== principal.orgId) return;
              const data = {
                kind: p.kind,
                id: p.runId,
                event: p.event,
                status: p.status,
                revision: p.revision,
                assignedTo: p.assignedTo,
                snoozedUntil: p.snoozedUntil,
                decision: p.decision,
                by: p.by,
                at: p.at,
              };
              stream.write(`event: review\ndata: ${JSON.stringify(data)}\n\n`);
            })
            .then(
              (sub) => {
                if (stream.closed) return sub.unsubscribe();
                subscription = sub;
                stream.write('event: ready\ndata: {}\n\n');
              },
              () => stream.end(),
            );
        },
      }),
    }),
  ];
}
