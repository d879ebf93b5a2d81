/**
 * `/api/v1/review-policies` (decisions.md §16, docs/api.md "Review policies"): list, detail (with the
 * resources that name it), create (the policy object itself, as `POST /workflows` takes a workflow),
 * update, delete (409 while a resource names it). Writes go through the workspace's one write path,
 * which refuses them (403) to a caller who may not change what needs review.
 */

import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import { limitSchema, nextCursor, slugCursorSchema } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import {
  createAuthored,
  deleteAuthoredRoute,
  patchAuthored,
  reviewPolicyManifestPatchSchema,
  reviewPolicyManifestSchema,
  slugParams,
  type WorkspaceServices,
} from '../../workspace/index.js';
import type { ReviewPolicyViews } from './views.js';

const COLLECTION = '/api/v1/review-policies';

const peopleSchema = z.object({
  roles: z.array(z.string()).optional(),
  users: z.array(z.string()).optional(),
});

/** A policy as `GET /review-policies` lists it (its manifest, defaults filled, and when), for the OpenAPI document. */
const policyFields = {
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  approvers: peopleSchema.optional(),
  required: z.number().int(),
  selfApproval: z.boolean(),
  dueIn: z.string().optional(),
  remindBefore: z.string().optional(),
  escalateTo: peopleSchema.optional(),
  onTimeout: z.enum(['none', 'escalate', 'reject']),
  isDefault: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
};

/** A policy as `GET /review-policies/:slug` answers it, for the OpenAPI document (the web UI's policy page reads it). */
const policyDetailSchema = z
  .object({
    ...policyFields,
    usedBy: z.array(
      z.object({
        kind: z.enum(['skill', 'workflow', 'mission', 'agent']),
        slug: z.string(),
        name: z.string(),
        field: z.string(),
      }),
    ),
  })
  .meta({ description: 'A review policy with the applied resources that name it (`usedBy`).' });

export function reviewPolicyRoutes(
  s: Pick<WorkspaceServices, 'workspace'>,
  views: ReviewPolicyViews,
): RouteDef[] {
  const detail = async (orgId: number, slug: string) => {
    const policy = await views.detail(orgId, slug);
    if (!policy) throw notFound('review policy', slug);
    return policy;
  };
  return [
    defineRoute({
      method: 'GET',
      path: COLLECTION,
      access: access.read,
      query: z.strictObject({ limit: limitSchema, cursor: slugCursorSchema.optional() }),
      summary: 'Review policies of the org by slug: `{reviewPolicies, nextCursor}`.',
      responses: {
        200: {
          description: 'A page of the policies.',
          schema: z.object({
            reviewPolicies: z.array(z.object(policyFields)),
            nextCursor: z.string().nullable(),
          }),
        },
      },
      handler: async ({ principal, query }) => {
        const page = await views.list(principal.orgId, { limit: query.limit, after: query.cursor });
        return ok({ reviewPolicies: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${COLLECTION}/:slug`,
      access: access.read,
      params: slugParams,
      summary:
        'One review policy: approvers, required, selfApproval, deadlines, and `usedBy` (the skills, workflow gates, missions and agents that name it).',
      responses: { 200: { description: 'The policy.', schema: policyDetailSchema } },
      handler: async ({ principal, params }) => ok(await detail(principal.orgId, params.slug)),
    }),
    defineRoute({
      method: 'POST',
      path: COLLECTION,
      access: access.write,
      body: reviewPolicyManifestSchema,
      summary:
        'Creates a review policy (201 with its detail; 409 when the slug exists; 400 for an unknown role or user, required outside 1–5, remindBefore longer than dueIn, escalate without escalateTo; 403 without the approve capability).',
      handler: async ({ principal, body, requestId }) => {
        await createAuthored(s, principal, requestId, { kind: 'review_policy', manifest: body });
        return json(201, await detail(principal.orgId, body.slug));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: `${COLLECTION}/:slug`,
      access: access.write,
      params: slugParams,
      body: reviewPolicyManifestPatchSchema,
      summary: 'Updates any subset of a review policy’s fields (`null` removes an optional one).',
      handler: async ({ principal, params, body, requestId }) => {
        await patchAuthored(s, principal, requestId, 'review_policy', params.slug, body);
        return ok(await detail(principal.orgId, params.slug));
      },
    }),
    deleteAuthoredRoute(s, 'review_policy', COLLECTION),
  ];
}
