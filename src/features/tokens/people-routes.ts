/**
 * `/api/v1/users` and `/api/v1/people` (docs/api.md#users-and-people, extensions): the org's users,
 * one user, and who attribution strings name. All `read:all`; another org's user is 404, another
 * org's token or user resolves as unknown.
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { ROLES } from '../../platform/auth/principal.js';
import { notFound } from '../../platform/errors.js';
import { limitSchema, nextCursor, slugCursorSchema } from '../../platform/http/pagination.js';
import { ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { MAX_ACTORS, type PeopleService } from './people.js';

const userSchema = z.object({
  id: z.string(),
  role: z.enum(ROLES),
  createdAt: z.iso.datetime(),
});

const personSchema = z.object({
  actor: z.string(),
  kind: z.enum(['token', 'user', 'system']),
  userId: z.string().nullable(),
  tokenName: z.string().nullable(),
});

const actorSchema = z.string().min(1).max(200);

/** The people routes over `people`. */
export function peopleRoutes(people: PeopleService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/users',
      access: access.read,
      query: z.strictObject({ limit: limitSchema, cursor: slugCursorSchema.optional() }),
      summary:
        "Extension: the org's users by id (an assignee picker): {users: [{id, role, createdAt}], nextCursor}.",
      responses: {
        200: {
          description: 'A page of users.',
          schema: z.object({ users: z.array(userSchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, query }) => {
        const page = await people.users(principal.orgId, { after: query.cursor, limit: query.limit });
        return ok({
          users: page.users,
          nextCursor: page.more ? nextCursor(page.users.at(-1)?.id ?? null) : null,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/users/:id',
      access: access.read,
      params: z.object({ id: z.string().min(1).max(128) }),
      summary: 'Extension: one user of the org; 404 for an unknown id or another org’s user.',
      responses: { 200: { description: 'The user.', schema: userSchema } },
      handler: async ({ principal, params }) => {
        const user = await people.user(principal.orgId, params.id);
        if (!user) throw notFound('user', params.id);
        return ok(user);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/people',
      access: access.read,
      query: z.strictObject({
        actor: z.union([actorSchema, z.array(actorSchema).min(1).max(MAX_ACTORS)]),
      }),
      summary:
        'Extension: who attribution strings name (`?actor=token:<id>&actor=user:<id>`, at most 100): {people: [{actor, kind, userId, tokenName}]}.',
      responses: {
        200: {
          description: 'One person per distinct actor, in order.',
          schema: z.object({ people: z.array(personSchema) }),
        },
      },
      handler: async ({ principal, query }) => {
        const actors = typeof query.actor === 'string' ? [query.actor] : query.actor;
        return ok({ people: await people.resolve(principal.orgId, actors) });
      },
    }),
  ];
}
