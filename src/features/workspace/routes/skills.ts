/** `/api/v1/skills`: list (status, category), detail with `promptMd`, create `{manifest, promptMd}`, update, delete. */

import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import { limitSchema, nextCursor, slugCursorSchema } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { slugParams } from '../manifest-fields.js';
import type { WorkspaceServices } from '../services.js';
import { SKILL_STATUSES, skillCreateBodySchema, skillPatchBodySchema } from '../skill-manifest.js';
import { createAuthored, deleteAuthoredRoute, patchAuthored } from './authored.js';

export function skillRoutes(s: Pick<WorkspaceServices, 'resources' | 'workspace'>): RouteDef[] {
  const detail = async (orgId: number, slug: string) => {
    const skill = await s.resources.skill(orgId, slug);
    if (!skill) throw notFound('skill', slug);
    return skill;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/skills',
      access: access.readSkills,
      query: z.strictObject({
        status: z.enum(SKILL_STATUSES).optional(),
        category: z.string().min(1).max(64).optional(),
        limit: limitSchema,
        cursor: slugCursorSchema.optional(),
      }),
      summary: 'Skills of the org by slug, optionally of one status and/or category: `{skills, nextCursor}`.',
      handler: async ({ principal, query }) => {
        const page = await s.resources.listSkills(
          principal.orgId,
          { status: query.status, category: query.category },
          { limit: query.limit, after: query.cursor },
        );
        return ok({ skills: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/skills/:slug',
      access: access.readSkills,
      params: slugParams,
      summary: 'One skill: its manifest fields and its prompt template `promptMd`.',
      handler: async ({ principal, params }) => ok(await detail(principal.orgId, params.slug)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/skills',
      access: access.write,
      body: skillCreateBodySchema,
      summary:
        'Creates a prompt skill from `{manifest, promptMd}` (201 with its detail; 409 when the slug exists).',
      handler: async ({ principal, body, requestId }) => {
        await createAuthored(s, principal, requestId, {
          kind: 'skill',
          manifest: body.manifest,
          promptMd: body.promptMd,
        });
        return json(201, await detail(principal.orgId, body.manifest.slug));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/skills/:slug',
      access: access.write,
      params: slugParams,
      body: skillPatchBodySchema,
      summary: 'Updates manifest fields (`manifest`, any subset) and/or the prompt (`promptMd`).',
      handler: async ({ principal, params, body, requestId }) => {
        await patchAuthored(
          s,
          principal,
          requestId,
          'skill',
          params.slug,
          body.manifest ?? {},
          body.promptMd,
        );
        return ok(await detail(principal.orgId, params.slug));
      },
    }),
    deleteAuthoredRoute(s, 'skill', '/api/v1/skills'),
  ];
}
