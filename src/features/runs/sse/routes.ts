/**
 * `GET /api/v1/runs/:id/stream`: a run's events as server-sent events (replay, then live, until the
 * terminal event). Resumes after `Last-Event-ID` (the header EventSource sends when it reconnects,
 * or `?lastEventId=` for the first connection). Any `Accept` is served: the route has one
 * representation, and the `Accept: text/event-stream` of docs/api.md#run-event-stream-sse is what clients
 * send.
 */
import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { notFound, validationFailed } from '../../../platform/errors.js';
import { raw } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import type { RunStreamService } from './stream-service.js';

/** Response headers of an event stream. */
const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store, no-transform',
  // Reverse proxies (nginx) must pass events through as they come.
  'X-Accel-Buffering': 'no',
};

const SEQ = /^\d{1,9}$/;

const querySchema = z.object({
  lastEventId: z
    .string()
    .regex(SEQ, 'must be the id of an event of this stream (a non-negative integer)')
    .optional(),
});

/** The stream route over `streams`. */
export function runStreamRoutes(streams: RunStreamService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/runs/:id/stream',
      access: access.read,
      params: z.object({ id: z.string() }),
      query: querySchema,
      responses: {
        200: {
          description:
            'text/event-stream: each event has an id (its sequence number, for Last-Event-ID), an event name and JSON data.',
          contentType: 'text/event-stream',
        },
      },
      summary:
        "The run's events as server-sent events: replayed after Last-Event-ID, then live, until the terminal event.",
      handler: async ({ principal, params, query, headers, signal }) => {
        const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : 0;
        if (id < 1) throw notFound('run', params.id);
        const header = headers['last-event-id']?.trim();
        if (header !== undefined && header !== '' && !SEQ.test(header)) {
          throw validationFailed([
            {
              field: 'headers.last-event-id',
              message: 'must be the id of an event of this stream (a non-negative integer)',
            },
          ]);
        }
        const after = Number(header || query.lastEventId || 0);
        const opened = await streams.open(principal, id, after, signal);
        // Over, and the client has seen its end: 204 tells EventSource not to reconnect.
        if (opened.kind === 'ended') return raw(204, '', 'text/event-stream');
        return { kind: 'stream', status: 200, headers: STREAM_HEADERS, start: opened.attach };
      },
    }),
  ];
}
