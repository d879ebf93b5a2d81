/**
 * `/api/v1/machines` (an extension, for debugging and the Stately visualizer): the definitions of the
 * persisted actors' state machines, as `npm run machines:export` writes them.
 */
import { z } from 'zod';
import { access } from '../auth/guard.js';
import { notFound } from '../errors.js';
import { ok } from '../http/reply.js';
import { defineRoute, type RouteDef } from '../http/server.js';
import type { ActorKindDef } from './kind.js';

/** What `withEventless` reads of a state node. */
interface StateNodeLike {
  always?: ReadonlyArray<{ target?: ReadonlyArray<{ id: string }>; guard?: unknown }>;
  states: Readonly<Record<string, StateNodeLike>>;
}

/**
 * `toJSON()` leaves out eventless (`always`) transitions; each state's are added as `always:
 * [{target: ['#<id>'], guard}]` (the inspector draws them; transient states would float unconnected).
 */
function withEventless(json: unknown, node: StateNodeLike): unknown {
  const out = { ...(json as Record<string, unknown>) };
  if (node.always?.length) {
    out.always = node.always.map((t) => ({
      target: (t.target ?? []).map((target) => `#${target.id}`),
      guard:
        typeof t.guard === 'string' ? t.guard : ((t.guard as { type?: string } | undefined)?.type ?? null),
    }));
  }
  const states = (json as { states?: Record<string, unknown> }).states ?? {};
  out.states = Object.fromEntries(
    Object.entries(states).map(([key, child]) => [
      key,
      node.states[key] ? withEventless(child, node.states[key]) : child,
    ]),
  );
  return out;
}

/** The machine routes of the registered actor kinds `kinds` (listed by name). */
export function machineRoutes(kinds: readonly Pick<ActorKindDef, 'name' | 'machine'>[]): RouteDef[] {
  const sorted = [...kinds].sort((a, b) => a.name.localeCompare(b.name));
  // Definitions never change at run time: serialize once.
  const definitions = new Map<string, unknown>(
    sorted.map(({ name, machine }) => [name, withEventless(machine.toJSON(), machine.root)]),
  );
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/machines',
      access: access.read,
      summary: 'Extension: the persisted actor kinds and their machine versions.',
      handler: () =>
        ok({ machines: sorted.map(({ name, machine }) => ({ name, version: machine.version ?? null })) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/machines/:name',
      access: access.read,
      params: z.object({ name: z.string() }),
      summary: "Extension: a machine's definition (xstate toJSON), for the Stately visualizer.",
      handler: ({ params }) => {
        const definition = definitions.get(params.name);
        if (definition === undefined) throw notFound('machine', params.name);
        return ok(definition);
      },
    }),
  ];
}
