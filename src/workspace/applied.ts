/**
 * Applied resources as the runtime needs them (run engine, MCP): the manifest from the resource tables
 * together with the org's applied `workspaceSha`, read in one statement so the two always agree.
 * Concurrent reads of one table share a statement (src/util/batch-loader.ts); requests for the same
 * resource in one batch share its row, which callers treat as read-only.
 */
import type { Sql } from '../db/sql.js';
import { type BatchLoader, createBatchLoader } from '../util/batch-loader.js';
import type { AgentManifest } from './agent-manifest.js';
import { shortSha } from './git-objects.js';
import type { ObjectTypeManifest } from './object-type-manifest.js';
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
type ResourceTable = 'skills' | 'workflows' | 'agents' | 'object_types' | 'sources';

interface ResourceKey {
  orgId: number;
  slug: string;
}

export class AppliedResources {
  private readonly loaders = new Map<ResourceTable, BatchLoader<ResourceKey, Row | null>>();

  /** `sql` is the pool: reads of concurrent callers are batched across it. */
  constructor(private readonly sql: Sql) {}

  /** The applied skill, or null (unknown slug, or another org's). */
  async getSkill(orgId: number, slug: string): Promise<AppliedSkill | null> {
    const row = await this.read('skills', orgId, slug);
    return row ? { ...applied<SkillManifest>(row), promptMd: row.prompt_md ?? '' } : null;
  }

  async getWorkflow(orgId: number, slug: string): Promise<Applied<WorkflowManifest> | null> {
    const row = await this.read('workflows', orgId, slug);
    return row ? applied<WorkflowManifest>(row) : null;
  }

  async getAgent(orgId: number, slug: string): Promise<Applied<AgentManifest> | null> {
    const row = await this.read('agents', orgId, slug);
    return row ? applied<AgentManifest>(row) : null;
  }

  async getObjectType(orgId: number, slug: string): Promise<Applied<ObjectTypeManifest> | null> {
    const row = await this.read('object_types', orgId, slug);
    return row ? applied<ObjectTypeManifest>(row) : null;
  }

  async getSource(orgId: number, slug: string): Promise<Applied<SourceManifest> | null> {
    const row = await this.read('sources', orgId, slug);
    return row ? applied<SourceManifest>(row) : null;
  }

  private read(table: ResourceTable, orgId: number, slug: string): Promise<Row | null> {
    let loader = this.loaders.get(table);
    if (!loader) {
      loader = createBatchLoader({ batch: (keys) => this.readMany(table, keys) });
      this.loaders.set(table, loader);
    }
    return loader.load({ orgId, slug });
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
