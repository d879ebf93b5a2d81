/**
 * Applied resources as the runtime needs them (run engine, MCP): the manifest from the resource tables
 * together with the org's applied `workspaceSha`, read in one statement so the two always agree.
 */
import type { Sql } from '../db/sql.js';
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

export class AppliedResources {
  constructor(private readonly sql: Sql) {}

  /** The applied skill, or null (unknown slug, or another org's). */
  async getSkill(orgId: number, slug: string): Promise<AppliedSkill | null> {
    const row = await this.read('skills', orgId, slug, ', r.prompt_md');
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

  private read(table: string, orgId: number, slug: string, extra = ''): Promise<Row | null> {
    return this.sql.maybeOne<Row>(
      `select r.manifest${extra}, h.applied_sha
         from ${table} r join workspace_heads h on h.org_id = r.org_id
        where r.org_id = $1 and r.slug = $2`,
      [orgId, slug],
    );
  }
}

function applied<M>(row: Row): Applied<M> {
  return {
    manifest: row.manifest as M,
    versionSha: row.applied_sha,
    workspaceSha: shortSha(row.applied_sha),
  };
}
