/**
 * `/api/v1/machines` (an extension, for debugging and the Stately visualizer): the definitions of the
 * persisted actors' state machines, as `npm run machines:export` writes them.
 */
import { z } from 'zod';
import { MACHINE_KINDS, type MachineKind, machines } from '../../../machines/index.js';
import { access } from '../auth/guard.js';
import { notFound } from '../http/errors.js';
import { ok } from '../http/reply.js';
import { defineRoute, type RouteDef } from '../http/server.js';

function isKind(name: string): name is MachineKind {
  return (MACHINE_KINDS as readonly string[]).includes(name);
}

/** The machine routes. */
export function machineRoutes(): RouteDef[] {
  // Definitions never change at run time: serialize once.
  const definitions = new Map(MACHINE_KINDS.map((kind) => [kind, machines[kind].toJSON()]));
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/machines',
      access: access.read,
      summary: 'Extension: the persisted actor kinds and their machine versions.',
      handler: () =>
        ok({ machines: MACHINE_KINDS.map((name) => ({ name, version: machines[name].version ?? null })) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/machines/:name',
      access: access.read,
      params: z.object({ name: z.string() }),
      summary: "Extension: a machine's definition (xstate toJSON), for the Stately visualizer.",
      handler: ({ params }) => {
        if (!isKind(params.name)) throw notFound('machine', params.name);
        return ok(definitions.get(params.name));
      },
    }),
  ];
}
