/**
 * Applied resources as the runtime needs them (run engine, MCP): the manifest from the resource tables
 * together with the org's applied `workspaceSha`, read in one statement so the two always agree.
 * Concurrent reads of one table share a statement (src/platform/util/batch-loader.ts); requests for the same
 * resource in one batch share its row, which callers treat as read-only.
 *
 * A caller that already knows which version is applied (`at`: the full sha, read with its request's
 * authentication by `fusedAppliedRead`) may be answered from memory. The resource tables are the
 * projection of the applied version, rewritten only in the transaction that moves
 * `workspace_heads.applied_sha` (src/features/workspace/store.ts), so a resource's row is a function of
 * (org, applied version, slug): a row read at a version stays that version's row. Only rows whose
 * read saw `at` itself are remembered; a request whose authentication saw version X is answered
 * with X's rows, exactly as if it had read them in that snapshot.
 */
import type { FusedRead } from '../../platform/auth/authenticate.js';
import type { Sql } from '../../platform/db/sql.js';
import { type BatchLoader, createBatchLoader } from '../../platform/util/batch-loader.js';
import { setBounded } from '../../platform/util/bounded-map.js';
import type { AgentManifest } from './agent-manifest.js';
import { shortSha } from './git-objects.js';
import type { MissionManifest } from './mission-manifest.js';
import type { ObjectTypeManifest } from './object-type-manifest.js';
import type { ReviewPolicyManifest } from './review-policy-manifest.js';
import type { SkillManifest } from './skill-manifest.js';
import type { SourceManifest } from './source-manifest.js';
import type { WorkflowManifest } from './workflow-manifest.js';

/** A manifest as applied, with the version it belongs to. */
export interface Applied<M> {
  manifest: M;
  /** The org's applied version (full sha) when this was read. */
  versionSha: string;
  /** Its short form, what a run records. */
  workspaceSha: string;
}

/** A skill as applied, with its prompt template. */
export interface AppliedSkill extends Applied<SkillManifest> {
  promptMd: string;
}

interface Row {
  manifest: unknown;
  prompt_md?: string;
  applied_sha: string;
}

/** The tables of applied resources (skills carry their prompt template too). */
type ResourceTable =
  | 'skills'
  | 'workflows'
  | 'agents'
  | 'object_types'
  | 'sources'
  | 'missions'
  | 'review_policies';

interface ResourceKey {
  orgId: number;
  slug: string;
}

/** Rows remembered by version (oldest out first). */
const REMEMBERED = 1_000;

/**
 * The org's applied version (full sha; null before the first apply), read in the statement that
 * authenticates the request (src/platform/auth/authenticate.ts), for `AppliedResources`' `at`.
 */
export function fusedAppliedRead(): FusedRead {
  return {
    sql: (org) => `(select applied_sha from workspace_heads where workspace_heads.org_id = ${org})`,
    values: () => [],
  };
}

export class AppliedResources {
  private readonly loaders = new Map<ResourceTable, BatchLoader<ResourceKey, Row | null>>();
  /** Rows by table, org, applied version and slug (see the file comment). */
  private readonly remembered = new Map<string, Row>();
  /** Each org's list of sources by applied version (`sources`), likewise. */
  private readonly rememberedSources = new Map<string, SourceManifest[]>();

  /** `sql` is the pool: reads of concurrent callers are batched across it. */
  constructor(private readonly sql: Sql) {}

  /**
   * The applied skill, or null (unknown slug, or another org's). `at`: the org's applied version as
   * the caller's request saw it, when known (see the file comment).
   */
  async getSkill(orgId: number, slug: string, at?: string | null): Promise<AppliedSkill | null> {
    const row = await this.read('skills', orgId, slug, at);
    return row ? { ...applied<SkillManifest>(row), promptMd: row.prompt_md ?? '' } : null;
  }

  async getWorkflow(
    orgId: number,
    slug: string,
    at?: string | null,
  ): Promise<Applied<WorkflowManifest> | null> {
    const row = await this.read('workflows', orgId, slug, at);
    return row ? applied<WorkflowManifest>(row) : null;
  }

  async getAgent(orgId: number, slug: string, at?: string | null): Promise<Applied<AgentManifest> | null> {
    const row = await this.read('agents', orgId, slug, at);
    return row ? applied<AgentManifest>(row) : null;
  }

  async getMission(
    orgId: number,
    slug: string,
    at?: string | null,
  ): Promise<Applied<MissionManifest> | null> {
    const row = await this.read('missions', orgId, slug, at);
    return row ? applied<MissionManifest>(row) : null;
  }

  async getObjectType(orgId: number, slug: string): Promise<Applied<ObjectTypeManifest> | null> {
    const row = await this.read('object_types', orgId, slug);
    return row ? applied<ObjectTypeManifest>(row) : null;
  }

  async getReviewPolicy(orgId: number, slug: string): Promise<Applied<ReviewPolicyManifest> | null> {
    const row = await this.read('review_policies', orgId, slug);
    return row ? applied<ReviewPolicyManifest>(row) : null;
  }

  async getSource(orgId: number, slug: string): Promise<Applied<SourceManifest> | null> {
    const row = await this.read('sources', orgId, slug);
    return row ? applied<SourceManifest>(row) : null;
  }

  /**
   * The org's applied sources, by slug (the domain tools' scope of a call). `at`: as for one
   * resource — the list a read saw at that version is remembered, and answered from memory.
   */
  async sources(orgId: number, at?: string | null): Promise<SourceManifest[]> {
    const key = at ? `${orgId}\n${at}` : null;
    const known = key === null ? undefined : this.rememberedSources.get(key);
    if (known) return known;
    const rows = await this.sql.prepared<{ manifest: SourceManifest; applied_sha: string | null }>(
      'applied_sources_of_org',
      `select manifest, (select applied_sha from workspace_heads h where h.org_id = $1) as applied_sha
         from sources where org_id = $1 order by slug`,
      [orgId],
    );
    const sources = rows.map((r) => r.manifest);
    // An org without sources reads no version: nothing to remember (the read finds nothing anyway).
    if (key !== null && rows[0]?.applied_sha === at)
      setBounded(this.rememberedSources, key, sources, REMEMBERED);
    return sources;
  }

  /** Every org's applied sources that sync on a schedule (`sync.everyMinutes`): the sync scheduler's sweep. */
  async scheduledSources(): Promise<Array<{ orgId: number; manifest: SourceManifest }>> {
    const rows = await this.sql.query<{ org_id: number; manifest: SourceManifest }>(
      `select org_id, manifest from sources where manifest -> 'sync' ->> 'everyMinutes' is not null
        order by org_id, slug`,
    );
    return rows.map((r) => ({ orgId: r.org_id, manifest: r.manifest }));
  }

  /** Every org's applied workflows whose trigger is of `type`: the trigger scheduler's sweep. */
  async triggeredWorkflows(
    type: 'schedule' | 'object.created',
  ): Promise<Array<{ orgId: number; manifest: WorkflowManifest }>> {
    const rows = await this.sql.query<{ org_id: number; manifest: WorkflowManifest }>(
      `select org_id, manifest from workflows where manifest -> 'trigger' ->> 'type' = $1 order by org_id, slug`,
      [type],
    );
    return rows.map((r) => ({ orgId: r.org_id, manifest: r.manifest }));
  }

  private async read(
    table: ResourceTable,
    orgId: number,
    slug: string,
    at?: string | null,
  ): Promise<Row | null> {
    const key = at ? `${table}\n${orgId}\n${at}\n${slug}` : null;
    const known = key === null ? undefined : this.remembered.get(key);
    if (known) return known;
    let loader = this.loaders.get(table);
    if (!loader) {
      loader = createBatchLoader({ batch: (keys) => this.readMany(table, keys) });
      this.loaders.set(table, loader);
    }
    const row = await loader.load({ orgId, slug });
    if (key !== null && row && row.applied_sha === at) setBounded(this.remembered, key, row, REMEMBERED);
    return row;
  }

  private async readMany(table: ResourceTable, keys: readonly ResourceKey[]): Promise<Array<Row | null>> {
    const distinct = new Map<string, number>();
    const orgIds: number[] = [];
    const slugs: string[] = [];
    const at = keys.map(({ orgId, slug }) => {
      const id = `${orgId}/${slug}`;
      let index = distinct.get(id);
      if (index === undefined) {
        index = orgIds.push(orgId) - 1;
        slugs.push(slug);
        distinct.set(id, index);
      }
      return index;
    });
    const rows = await this.sql.prepared<Row & { ord: number }>(
      `applied_${table}`,
      `select x.ord, r.manifest${table === 'skills' ? ', r.prompt_md' : ''}, h.applied_sha
         from unnest($1::bigint[], $2::text[]) with ordinality as x(key_org_id, key_slug, ord)
         join ${table} r on r.org_id = x.key_org_id and r.slug = x.key_slug
         join workspace_heads h on h.org_id = r.org_id`,
      [orgIds, slugs],
    );
    const found: Array<Row | null> = orgIds.map(() => null);
    for (const row of rows) found[row.ord - 1] = row;
    return at.map((index) => found[index] ?? null);
  }
}

function applied<M>(row: Row): Applied<M> {
  return {
    manifest: row.manifest as M,
    versionSha: row.applied_sha,
    workspaceSha: shortSha(row.applied_sha),
  };
}
