/**
 * Apply: reconciling the resource tables to a version. The tables mirror the applied version; going to
 * another version upserts the resources the two trees disagree on and deletes the ones that went. Rows
 * of unchanged resources are not touched, so `version_sha` names the version that last changed a row.
 */
import type { Sql } from '../../platform/db/sql.js';
import { diffTrees, type ResourceDiffEntry } from './diff.js';
import { parseResource } from './files.js';
import type { ResourceKind, WorkspaceResource } from './manifests.js';
import { DEFAULT_OBJECT_LANGUAGE } from './object-type-manifest.js';
import type { DiffCounts } from './store-sql.js';

/** The table each kind is applied to. */
export const RESOURCE_TABLES: Record<ResourceKind, string> = {
  agent: 'agents',
  skill: 'skills',
  workflow: 'workflows',
  object_type: 'object_types',
  source: 'sources',
  mission: 'missions',
  review_policy: 'review_policies',
};

/** What an apply did. */
export interface ReconcileResult {
  counts: DiffCounts;
  /** Object types whose instances are indexed with another language than the type now names. */
  reindexTypes: string[];
}

/** The kind-specific columns of a resource's row, in the order of {@link KIND_COLUMNS}. */
function kindValues(resource: WorkspaceResource): unknown[] {
  switch (resource.kind) {
    case 'agent':
      return [resource.manifest.active];
    case 'skill':
      return [
        resource.manifest.category,
        resource.manifest.status,
        resource.manifest.requiresApproval,
        resource.promptMd,
      ];
    case 'workflow': {
      const trigger = resource.manifest.trigger;
      return [trigger.type, trigger.type === 'object.created' ? trigger.objectType : null];
    }
    case 'object_type':
      return [resource.manifest.language ?? DEFAULT_OBJECT_LANGUAGE];
    case 'source':
      return [resource.manifest.kind, resource.manifest.connection.state];
    case 'mission':
    case 'review_policy':
      return [];
  }
}

const KIND_COLUMNS: Record<ResourceKind, string[]> = {
  agent: ['active'],
  skill: ['category', 'status', 'requires_approval', 'prompt_md'],
  workflow: ['trigger_type', 'trigger_object_type'],
  object_type: ['language'],
  source: ['kind', 'connection_state'],
  mission: [],
  review_policy: [],
};

function upsertSql(kind: ResourceKind): string {
  const columns = [
    'org_id',
    'slug',
    'name',
    'description',
    'manifest',
    'version_sha',
    'created_at',
    'updated_at',
  ];
  const all = [...columns, ...KIND_COLUMNS[kind]];
  const placeholders = all.map((_, i) => `$${i + 1}`).join(', ');
  const updates = all
    .filter((c) => c !== 'org_id' && c !== 'slug' && c !== 'created_at')
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
  return `insert into ${RESOURCE_TABLES[kind]} (${all.join(', ')}) values (${placeholders})
          on conflict (org_id, slug) do update set ${updates}`;
}

const UPSERT_SQL = Object.fromEntries(
  (Object.keys(RESOURCE_TABLES) as ResourceKind[]).map((kind) => [kind, upsertSql(kind)]),
) as Record<ResourceKind, string>;

/**
 * Reconciles the tables of `orgId` from the tree `from` to the tree `to` (path → blob sha; an empty map
 * for "nothing applied yet"). `content` yields the text of a path of `to`, for the resources to write.
 */
export async function reconcile(
  sql: Sql,
  orgId: number,
  from: ReadonlyMap<string, string>,
  to: ReadonlyMap<string, string>,
  content: ReadonlyMap<string, string>,
  versionSha: string,
  at: Date,
): Promise<ReconcileResult> {
  const diff = diffTrees(from, to);
  const reindexTypes: string[] = [];
  const deletions = new Map<ResourceKind, string[]>();
  for (const entry of diff.resources) {
    if (entry.kind === 'file' || entry.change === 'unchanged') continue;
    const kind = entry.kind;
    if (entry.change === 'deleted') {
      deletions.set(kind, [...(deletions.get(kind) ?? []), entry.slug]);
      continue;
    }
    const resource = parseApplied(entry, content);
    const manifest = resource.manifest;
    await sql.query(UPSERT_SQL[kind], [
      orgId,
      manifest.slug,
      manifest.name,
      manifest.description,
      JSON.stringify(manifest),
      versionSha,
      at,
      at,
      ...kindValues(resource),
    ]);
    if (resource.kind === 'object_type') {
      const language = resource.manifest.language ?? DEFAULT_OBJECT_LANGUAGE;
      const stale = await sql.maybeOne(
        `select 1 from object_instances where org_id = $1 and type_slug = $2 and language <> $3 limit 1`,
        [orgId, manifest.slug, language],
      );
      if (stale) reindexTypes.push(manifest.slug);
    }
  }
  for (const [kind, slugs] of deletions) {
    await sql.query(`delete from ${RESOURCE_TABLES[kind]} where org_id = $1 and slug = any($2::text[])`, [
      orgId,
      slugs,
    ]);
  }
  const { created, updated, unchanged, deleted } = diff;
  return { counts: { created, updated, unchanged, deleted }, reindexTypes };
}

function parseApplied(entry: ResourceDiffEntry, content: ReadonlyMap<string, string>): WorkspaceResource {
  const parsed = parseResource(entry.kind as ResourceKind, entry.slug, content);
  // The tree was validated when it was written; a failure here means stored files were altered.
  if (!parsed.ok) {
    throw new Error(
      `cannot apply ${entry.kind} "${entry.slug}": ${parsed.errors.map((e) => `${e.file}: ${e.message}`).join('; ')}`,
    );
  }
  return parsed.value;
}
