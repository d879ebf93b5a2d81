/**
 * `GET /api/v1/actors/:kind/:id/transitions` (docs/api.md "Browser sessions (the web UI)"): the transition log of any persisted
 * actor of the caller's org, oldest first, as the web UI's inspector replays it. Another org's actor,
 * an unknown kind or id: 404.
 */
import { z } from 'zod';
import { access } from '../auth/guard.js';
import type { Sql } from '../db/sql.js';
import { notFound } from '../errors.js';
import { ok } from '../http/reply.js';
import { defineRoute, type RouteDef } from '../http/server.js';
import type { ActorKindDef } from './kind.js';

const transitionSchema = z.object({
  seq: z.number().int(),
  event: z.string(),
  from: z.string().nullable(),
  to: z.string(),
  at: z.string(),
  by: z.string(),
});

/** Most transitions answered (the oldest ones). */
const LIMIT = 5_000;

/** The actor routes over `sql`, for the registered actor kinds `registered`. */
export function actorRoutes(sql: Sql, registered: readonly Pick<ActorKindDef, 'name'>[]): RouteDef[] {
  const kinds = new Set<string>(registered.map((def) => def.name));
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/actors/:kind/:id/transitions',
      access: access.read,
      params: z.object({ kind: z.string(), id: z.string() }),
      summary:
        "An actor's transition log, oldest first: {transitions: [{seq, event, from, to, at, by}]} (at most 5,000).",
      responses: {
        200: {
          description: 'The transitions.',
          schema: z.object({ transitions: z.array(transitionSchema) }),
        },
      },
      handler: async ({ principal, params }) => {
        const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : 0;
        if (!kinds.has(params.kind) || id < 1) throw notFound('actor', `${params.kind}/${params.id}`);
        const rows = await sql.query<{
          event_type: string;
          from_state: string | null;
          to_state: string;
          at: Date;
          actor: string;
        }>(
          `select event_type, from_state, to_state, at, actor
             from actor_transitions
            where actor_kind = $1 and actor_id = $2 and org_id = $3
            order by id
            limit ${LIMIT}`,
          [params.kind, id, principal.orgId],
        );
        if (rows.length === 0) throw notFound('actor', `${params.kind}/${params.id}`);
        return ok({
          transitions: rows.map((r, i) => ({
            seq: i + 1,
            event: r.event_type,
            from: r.from_state,
            to: r.to_state,
            at: r.at.toISOString(),
            by: r.actor,
          })),
        });
      },
    }),
  ];
}
