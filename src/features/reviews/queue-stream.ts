/**
 * `GET /api/v1/reviews/stream`: the caller's org's review events as server-sent events, live only.
 * The first frame after the subscription is in place is `event: ready`; a client that reads the
 * queue after it misses no change (EventSource reconnects and sends `ready` again: read the queue
 * again then). Each change of an item is one frame named by its review event type (`review.requested`,
 * `review.assigned`, `review.snoozed`, `review.decided`, `review.changes_requested`, and the stream's
 * own `review.woken`, `review.updated`, `review.cancelled`) whose data is the webhooks' (decisions
 * §15: `{kind, id, title, status, assignedTo, revision, action?, edited?, by?, reason?}`) plus
 * `event` (the item's change), `snoozedUntil`, `note` and `at`. A comment heartbeat is sent every 15 s.
 */
import { access } from '../../platform/auth/guard.js';
import type { Bus, Subscription } from '../../platform/bus/bus.js';
import { subjectToken } from '../../platform/bus/subjects.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { reviewEventData, reviewEventPayloadSchema, reviewStreamEventName } from './review-events.js';

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
        "The org's review events as server-sent events (live only; `ready` once subscribed, then one `review.*` event per change of an item).",
      responses: {
        200: {
          description: 'text/event-stream: `ready`, then one `review.*` event per change of an item.',
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
              const parsed = reviewEventPayloadSchema.safeParse(JSON.parse(decoder.decode(message.data)));
              if (!parsed.success || parsed.data.orgId !== principal.orgId) return;
              const p = parsed.data;
              const data = {
                ...reviewEventData(p),
                event: p.event,
                snoozedUntil: p.snoozedUntil,
                note: p.note,
                at: p.at,
              };
              stream.write(`event: ${reviewStreamEventName(p.event)}\ndata: ${JSON.stringify(data)}\n\n`);
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
