/** Liveness and readiness probes (public routes: no token, no rate limit). */

import { z } from 'zod';
import { access } from '../auth/guard.js';
import type { Bus } from '../bus/bus.js';
import type { Database } from '../db/database.js';
import { json, ok } from './reply.js';
import { defineRoute, type RouteDef } from './server.js';

const check = z.object({ ok: z.boolean(), detail: z.string().optional() });
const readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  checks: z.object({ database: check, bus: check }),
});

/** `/healthz` and `/readyz`. */
export function healthRoutes(s: { db: Database; bus: Bus }): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/healthz',
      access: access.public,
      summary: 'Liveness: the process serves HTTP (it listens only after migrations).',
      responses: { 200: { description: 'Alive.', schema: z.object({ status: z.literal('ok') }) } },
      handler: () => ok({ status: 'ok' }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      access: access.public,
      summary: 'Readiness: the database and the event bus answer.',
      responses: {
        200: { description: 'Ready.', schema: readiness },
        503: { description: 'Not ready.', schema: readiness },
      },
      handler: async () => {
        const [database, bus] = await Promise.all([
          withTimeout(
            s.db.sql.query('select 1').then(() => ({ ok: true })),
            2_000,
          ),
          withTimeout(s.bus.health(), 2_000),
        ]);
        const ready = database.ok && bus.ok;
        return json(ready ? 200 : 503, {
          status: ready ? 'ready' : 'unavailable',
          checks: { database, bus },
        });
      },
    }),
  ];
}

async function withTimeout(
  check: Promise<{ ok: boolean; detail?: string }>,
  ms: number,
): Promise<{ ok: boolean; detail?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ ok: boolean; detail: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${ms} ms` }), ms);
  });
  try {
    return await Promise.race([
      check.catch((error: Error) => ({ ok: false, detail: error.message })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
