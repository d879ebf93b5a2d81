/**
 * Create, update and delete of authored resources over REST, on the workspace's one write path: a
 * create is refused with 409 when the slug exists, a patch or delete with 404 when it does not, a
 * delete with 409 while another resource names it (`details.referencedBy`), all decided under the
 * org's write lock. Workspace validation issues about the resource being written are renamed to the
 * body fields they came from (`body.skillSlugs.0`, `body.manifest.inputSchema.type`, `body.promptMd`).
 */
import { z } from 'zod';

import { attributionOf } from '../../../platform/auth/attribution.js';
import { access } from '../../../platform/auth/guard.js';
import type { Principal } from '../../../platform/auth/principal.js';
import { ApiError, conflict, type FieldIssue, notFound, validationFailed } from '../../../platform/errors.js';
import { ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { manifestPath, promptPath } from '../files.js';
import type { FieldIssue as ManifestIssue } from '../issues.js';
import { slugParams } from '../manifest-fields.js';
import type { ManifestOf, ResourceKind, WorkspaceResource } from '../manifests.js';
import { mergeManifestPatch } from '../patch.js';
import type { WorkspaceServices } from '../services.js';

const LABEL: Record<ResourceKind, string> = {
  agent: 'agent',
  skill: 'skill',
  workflow: 'workflow',
  object_type: 'object type',
  source: 'source',
  mission: 'mission',
  review_policy: 'review policy',
};

/** Where a resource's manifest sits in its REST body: the body itself, or `manifest` for skills. */
function manifestPrefix(kind: ResourceKind): string {
  return kind === 'skill' ? 'body.manifest' : 'body';
}

/** Renames issues about `kind`/`slug`'s files to body fields; other files keep their workspace names. */
function rebase(error: unknown, kind: ResourceKind, slug: string): unknown {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') return error;
  const issues = error.details.issues as FieldIssue[] | undefined;
  if (!Array.isArray(issues)) return error;
  const manifestFile = manifestPath(kind, slug);
  const renamed = issues.map((issue) => {
    const path = Array.isArray(issue.path) ? (issue.path as (string | number)[]) : [];
    if (issue.file === manifestFile) {
      return { ...issue, field: [manifestPrefix(kind), ...path].join('.') };
    }
    if (kind === 'skill' && issue.file === promptPath(slug)) return { ...issue, field: 'body.promptMd' };
    return issue;
  });
  return validationFailed(renamed);
}

function patchIssues(kind: ResourceKind, errors: ManifestIssue[]): ApiError {
  return validationFailed(
    errors.map((e) => ({ field: [manifestPrefix(kind), ...e.path].join('.'), message: e.message })),
  );
}

/** Creates a resource; 409 CONFLICT when its slug exists in the org's workspace. */
export async function createAuthored(
  s: Pick<WorkspaceServices, 'workspace'>,
  principal: Principal,
  requestId: string,
  resource: WorkspaceResource,
): Promise<void> {
  const { kind } = resource;
  const slug = resource.manifest.slug;
  try {
    await s.workspace.write(
      principal.orgId,
      attributionOf(principal, requestId),
      (current) => {
        if (current.has(kind, slug)) {
          throw conflict(`An ${LABEL[kind]} with slug "${slug}" already exists.`, { kind, slug });
        }
        return { put: [resource] };
      },
      { audit: { action: `${kind}.create`, targetKind: kind, targetId: slug } },
    );
  } catch (error) {
    throw rebase(error, kind, slug);
  }
}

/**
 * Updates a resource from a patch of its manifest (any subset of fields; see patch.ts) and, for a skill,
 * an optional new prompt; 404 NOT_FOUND when the slug is not in the org's workspace.
 */
export async function patchAuthored<K extends ResourceKind>(
  s: Pick<WorkspaceServices, 'workspace'>,
  principal: Principal,
  requestId: string,
  kind: K,
  slug: string,
  patch: Readonly<Record<string, unknown>>,
  promptMd?: string,
): Promise<void> {
  try {
    await s.workspace.write(
      principal.orgId,
      attributionOf(principal, requestId),
      (current) => {
        const existing = current.get(kind, slug);
        if (!existing) throw notFound(LABEL[kind], slug);
        const merged = mergeManifestPatch(kind, existing.manifest as ManifestOf<K>, patch);
        if (!merged.ok) throw patchIssues(kind, merged.errors);
        const resource = {
          ...existing,
          manifest: merged.manifest,
          ...(existing.kind === 'skill' && promptMd !== undefined ? { promptMd } : {}),
        } as WorkspaceResource;
        return { put: [resource] };
      },
      { audit: { action: `${kind}.update`, targetKind: kind, targetId: slug } },
    );
  } catch (error) {
    throw rebase(error, kind, slug);
  }
}

/** What a REST delete answers: the slug, and the workspace version that no longer has it. */
const deletedSchema = z.object({ slug: z.string(), deleted: z.literal(true), workspaceSha: z.string() });

/**
 * `DELETE <collection>/:slug` of an authored resource (`write:resources`): removes it through the write
 * path (a new version, applied); 404 when it is not in the workspace, 409 CONFLICT while another
 * resource names it (`details.referencedBy: [{kind, slug, field}]`).
 */
export function deleteAuthoredRoute(
  s: Pick<WorkspaceServices, 'workspace'>,
  kind: Exclude<ResourceKind, 'source'>,
  collection: string,
): RouteDef {
  return defineRoute({
    method: 'DELETE',
    path: `${collection}/:slug`,
    access: access.write,
    params: slugParams,
    summary: `Deletes a ${LABEL[kind]} (a new workspace version, applied); 409 while another resource names it (\`details.referencedBy\`).`,
    responses: { 200: { description: `The ${LABEL[kind]} is gone.`, schema: deletedSchema } },
    errors: [404, 409],
    handler: async ({ principal, params, requestId }) => {
      const result = await s.workspace.delete(
        principal.orgId,
        attributionOf(principal, requestId),
        { kind, slug: params.slug },
        { audit: { action: `${kind}.delete`, targetKind: kind, targetId: params.slug } },
      );
      // A delete always changes the tree, so the (auto-committed) write made a version.
      const workspaceSha = result.commit?.workspaceSha ?? '';
      return ok({ slug: params.slug, deleted: true as const, workspaceSha });
    },
  });
}
