/**
 * `/api/v1` evaluations and quality per version (docs/api.md "Evaluations", "Quality per version"):
 * start an evaluation of a skill on a version (202), read it, mark its pairs; the quality of a skill's
 * or workflow's runs per version. Every id route answers 404 for another org's evaluation.
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import type { Db } from '../../platform/db/sql.js';
import { notFound } from '../../platform/errors.js';
import { json, ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { type AppliedResources, slugParams } from '../workspace/index.js';
import { type EvaluationService, MARKS, ORIGINAL_STATUSES } from './evaluation-service.js';
import { qualityOf, qualitySchema } from './quality.js';

/** Body of `POST /skills/:slug/evaluations`. */
export const evaluationBodySchema = z.strictObject({
  workspace: z.string().regex(/^[0-9a-f]{7,40}$/, "a version's sha: 7 to 40 lowercase hex characters"),
  last: z.number().int().min(1).max(100).default(20),
  statuses: z
    .array(z.enum(ORIGINAL_STATUSES))
    .min(1)
    .max(2)
    .refine((s) => new Set(s).size === s.length, { message: 'names each status once' })
    .default(() => [...ORIGINAL_STATUSES]),
});

const markBodySchema = z.strictObject({
  originalRunId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  mark: z.enum(MARKS).nullable(),
});

const idParam = z.object({ id: z.string() });

/** An evaluation id from the path; anything but a positive integer is no evaluation (404). */
function evaluationId(text: string): number {
  const id = /^\d{1,15}$/.test(text) ? Number(text) : 0;
  if (id < 1) throw notFound('evaluation', text);
  return id;
}

/** `GET /evaluations/:id`'s body. */
export const evaluationViewSchema = z
  .object({
    evaluationId: z.number().int(),
    skillSlug: z.string(),
    workspace: z.string(),
    status: z.enum(['running', 'completed', 'failed']),
    runs: z.array(
      z.object({
        originalRunId: z.number().int(),
        shadowRunId: z.number().int(),
        originalStatus: z.enum(ORIGINAL_STATUSES),
        approvedOutput: z.unknown(),
        shadowOutput: z.unknown(),
        changed: z.boolean(),
        shadowStatus: z.string(),
        shadowError: z.unknown(),
        mark: z.enum(MARKS).nullable(),
      }),
    ),
    summary: z.object({ total: z.number().int(), changed: z.number().int(), failed: z.number().int() }),
    createdBy: z.string(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
  })
  .meta({ description: "An evaluation: a skill's reviewed runs replayed on a version as shadow runs." });

const evaluationAnswer = { 200: { description: 'The evaluation.', schema: evaluationViewSchema } };

/** The evaluation and quality routes. */
export function evaluationRoutes(deps: {
  evaluations: EvaluationService;
  db: Db;
  applied: AppliedResources;
}): RouteDef[] {
  const { evaluations } = deps;
  const quality = (kind: 'skill' | 'workflow') =>
    defineRoute({
      method: 'GET',
      path: kind === 'skill' ? '/api/v1/skills/:slug/quality' : '/api/v1/workflows/:slug/quality',
      access: access.read,
      params: slugParams,
      summary: `Quality of the ${kind}'s runs per workspace version, newest first: runs, approvals, rejections, edits, changes requested, ratings.`,
      responses: { 200: { description: 'The figures per version.', schema: qualitySchema } },
      handler: async ({ principal, params }) =>
        ok(await qualityOf(deps.db, deps.applied, principal.orgId, kind, params.slug)),
    });
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/skills/:slug/evaluations',
      access: access.invoke,
      params: slugParams,
      body: evaluationBodySchema,
      summary:
        'Evaluate a workspace version of a skill: its last reviewed runs replayed on it as shadow runs (no review, no webhook), compared with what reviewers approved; 202 {evaluationId, statusUrl}.',
      responses: {
        202: {
          description: 'The evaluation started.',
          schema: z.object({ evaluationId: z.number().int(), statusUrl: z.string() }),
        },
      },
      handler: async ({ principal, params, body, requestId }) =>
        json(202, await evaluations.create(principal, params.slug, body, requestId)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/evaluations/:id',
      access: access.read,
      params: idParam,
      summary: 'One evaluation: its status, each original beside its shadow run, and the summary.',
      responses: evaluationAnswer,
      handler: async ({ principal, params }) =>
        ok(await evaluations.get(principal.orgId, evaluationId(params.id))),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/evaluations/:id/marks',
      access: access.approve,
      params: idParam,
      body: markBodySchema,
      summary:
        'Mark one pair of an evaluation: the shadow output better, the same or worse than the approved one (null clears the mark); answers the evaluation.',
      responses: evaluationAnswer,
      handler: async ({ principal, params, body, requestId }) =>
        ok(
          await evaluations.mark(
            principal,
            evaluationId(params.id),
            body.originalRunId,
            body.mark,
            requestId,
          ),
        ),
    }),
    quality('skill'),
    quality('workflow'),
  ];
}
