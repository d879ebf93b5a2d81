/**
 * The working tree of a write, in memory: applying changes to it, what its files hash to, which files a
 * write changes, and how a version made from it is described (author, message).
 */
import type { Sql } from '../../platform/db/sql.js';
import { conflict, notFound } from '../../platform/errors.js';
import { manifestPath, parseResource, putResource, removeResource } from './files.js';
import { type GitIdentity, hashBlob } from './git-objects.js';
import { issuesFromZod, type WorkspaceIssue } from './issues.js';
import { MANIFEST_SCHEMAS, type ResourceKind, type WorkspaceResource } from './manifests.js';
import { DEFAULT_OBJECT_LANGUAGE } from './object-type-manifest.js';
import { policyUsers } from './review-policy-manifest.js';
import { saveBlobs, saveWorkingFiles, type TreeFile } from './store-sql.js';
import { referrersOf } from './validate.js';

/** A resource named by kind and slug. */
export interface ResourceRef {
  kind: ResourceKind;
  slug: string;
}

/** What a write changes: resources to create or replace, resources to remove. */
export interface WorkspaceChanges {
  put?: WorkspaceResource[];
  delete?: ResourceRef[];
}

/** The working tree as a change builder sees it (under the org's lock). */
export interface WorkingTree {
  readonly files: ReadonlyMap<string, string>;
  has(kind: ResourceKind, slug: string): boolean;
  /** The resource as written (the tree is always valid, so this parses). */
  get(kind: ResourceKind, slug: string): WorkspaceResource | undefined;
}

/** How messages and errors name a kind. */
export const KIND_LABEL: Record<ResourceKind, string> = {
  agent: 'agent',
  skill: 'skill',
  workflow: 'workflow',
  object_type: 'object type',
  source: 'source',
  mission: 'mission',
  review_policy: 'review policy',
};

/** The git author of a version made by `actor`. */
export function authorFor(actor: string): GitIdentity {
  const [kind, ...rest] = actor.split(':');
  const id = rest.join(':').replace(/[^A-Za-z0-9._-]/g, '_') || 'unknown';
  if (kind === 'token') return { name: actor, email: `${id}@tokens.r3.local` };
  if (kind === 'user') return { name: actor, email: `${id}@users.r3.local` };
  return { name: actor, email: `${actor.replace(/[^A-Za-z0-9._-]/g, '_')}@r3.local` };
}

/** The contents of a loaded working tree, path → text. */
export function contentsOf(working: ReadonlyMap<string, TreeFile>): Map<string, string> {
  return new Map([...working].map(([path, file]) => [path, file.content]));
}

/** Blob ids of a tree, reusing the stored ids of unchanged files. */
export function shasOf(
  files: ReadonlyMap<string, string>,
  working: ReadonlyMap<string, TreeFile>,
): Map<string, string> {
  const shas = new Map<string, string>();
  for (const [path, content] of files) {
    const stored = working.get(path);
    shas.set(path, stored && stored.content === content ? stored.sha : hashBlob(content));
  }
  return shas;
}

/** A read-only view of a tree for change builders. */
export function workingTree(files: ReadonlyMap<string, string>): WorkingTree {
  return {
    files,
    has: (kind, slug) => files.has(manifestPath(kind, slug)),
    get(kind, slug) {
      if (!files.has(manifestPath(kind, slug))) return undefined;
      const parsed = parseResource(kind, slug, files);
      return parsed.ok ? parsed.value : undefined;
    },
  };
}

/**
 * Applies `changes` to `tree` in place. Returns the problems of the resources handed in (a manifest
 * that does not match its schema); a delete of an absent resource throws 404, of one that a resource
 * of the resulting tree still names 409 CONFLICT, `details.referencedBy` naming them.
 */
export function applyChanges(tree: Map<string, string>, changes: WorkspaceChanges): WorkspaceIssue[] {
  const problems: WorkspaceIssue[] = [];
  for (const ref of changes.delete ?? []) {
    if (!removeResource(tree, ref.kind, ref.slug)) throw notFound(KIND_LABEL[ref.kind], ref.slug);
  }
  for (const resource of changes.put ?? []) {
    const file = manifestPath(resource.kind, resource.manifest.slug);
    const parsed = MANIFEST_SCHEMAS[resource.kind].safeParse(resource.manifest);
    if (!parsed.success) {
      problems.push(...issuesFromZod(file, parsed.error));
      continue;
    }
    removeResource(tree, resource.kind, resource.manifest.slug);
    putResource(tree, resource);
  }
  for (const ref of changes.delete ?? []) {
    const referencedBy = referrersOf(tree, ref.kind, ref.slug);
    if (referencedBy.length === 0) continue;
    const names = referencedBy.map((r) => `${KIND_LABEL[r.kind]} "${r.slug}" (${r.field})`).join(', ');
    throw conflict(
      `The ${KIND_LABEL[ref.kind]} "${ref.slug}" is still named by ${names}; remove those references first.`,
      { kind: ref.kind, slug: ref.slug, referencedBy },
    );
  }
  return problems;
}

/** Object types naming a text-search configuration PostgreSQL does not have. */
export async function languageIssues(
  sql: Sql,
  resources: readonly WorkspaceResource[],
): Promise<WorkspaceIssue[]> {
  const named = resources.flatMap((r) =>
    r.kind === 'object_type' && r.manifest.language !== undefined
      ? [{ slug: r.manifest.slug, language: r.manifest.language }]
      : [],
  );
  if (named.length === 0) return [];
  const rows = await sql.query<{ cfgname: string }>(
    'select cfgname from pg_ts_config where cfgname = any($1::text[])',
    [[...new Set(named.map((n) => n.language))]],
  );
  const known = new Set([DEFAULT_OBJECT_LANGUAGE, ...rows.map((r) => r.cfgname)]);
  return named
    .filter((n) => !known.has(n.language))
    .map((n) => ({
      file: manifestPath('object_type', n.slug),
      path: ['language'],
      message: `"${n.language}" is not a text-search configuration of this database (see pg_ts_config)`,
    }));
}

/**
 * Issues for users that the review policies a write puts name (`approvers.users`, `escalateTo.users`)
 * but the org does not have. Only the written policies are checked: a user removed later does not
 * block writes of other resources.
 */
export async function policyUserIssues(
  sql: Sql,
  orgId: number,
  put: readonly WorkspaceResource[],
): Promise<WorkspaceIssue[]> {
  const named = put.flatMap((r) =>
    r.kind === 'review_policy' ? policyUsers(r.manifest).map((u) => ({ ...u, slug: r.manifest.slug })) : [],
  );
  if (named.length === 0) return [];
  const rows = await sql.query<{ id: string }>(
    'select id from users where org_id = $1 and id = any($2::text[])',
    [orgId, [...new Set(named.map((n) => n.user))]],
  );
  const known = new Set(rows.map((r) => r.id));
  return named
    .filter((n) => !known.has(n.user))
    .map((n) => ({
      file: manifestPath('review_policy', n.slug),
      path: n.path,
      message: `user "${n.user}" does not exist in the org`,
    }));
}

/** Writes the files that changed; returns the paths written or removed, sorted. */
export async function persistWorkingTree(
  sql: Sql,
  orgId: number,
  working: ReadonlyMap<string, TreeFile>,
  after: ReadonlyMap<string, string>,
  shas: ReadonlyMap<string, string>,
  at: Date,
): Promise<string[]> {
  const upserts = new Map<string, string>();
  const blobs = new Map<string, string>();
  for (const [path, content] of after) {
    const sha = shas.get(path) as string;
    if (working.get(path)?.sha === sha) continue;
    upserts.set(path, sha);
    blobs.set(sha, content);
  }
  const deletes = [...working.keys()].filter((path) => !after.has(path));
  await saveBlobs(sql, orgId, blobs);
  await saveWorkingFiles(sql, orgId, upserts, deletes, at);
  return [...upserts.keys(), ...deletes].sort();
}

/** A commit message describing `changes`. */
export function describeChanges(changes: WorkspaceChanges, before: ReadonlyMap<string, string>): string {
  const lines = [
    ...(changes.put ?? []).map((r) => {
      const verb = before.has(manifestPath(r.kind, r.manifest.slug)) ? 'Update' : 'Create';
      return `${verb} ${KIND_LABEL[r.kind]} ${r.manifest.slug}`;
    }),
    ...(changes.delete ?? []).map((r) => `Delete ${KIND_LABEL[r.kind]} ${r.slug}`),
  ];
  if (lines.length === 0) return 'Commit pending workspace changes';
  if (lines.length === 1) return lines[0] as string;
  return `Write ${lines.length} resources\n\n${lines.join('\n')}`;
}
