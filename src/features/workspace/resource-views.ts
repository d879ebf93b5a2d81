/**
 * The wire shapes of authored resources (docs/api.md "Authored resources") and their reads, through MikroORM: a list item
 * is the resource's flat fields plus `createdAt`/`updatedAt`; a detail adds the extras of its kind
 * (an agent's wired `skills` and `workflows` and `systemPrompt`, a skill's `promptMd`, a workflow's
 * `inputSchema` and `steps`, an object type's `sourceRelevance`, a source's `connection` and
 * retrieval settings). Lists are ordered by slug; `after` is the last slug of the previous page.
 */
import type { EntitySchema } from '@mikro-orm/core';
import { type EntityManager, type FilterQuery, QueryOrder, type QueryOrderMap } from '@mikro-orm/postgresql';
import type { AgentManifest } from './agent-manifest.js';
import {
  AgentEntity,
  type AgentRow,
  type AuthoredRow,
  MissionEntity,
  ObjectTypeEntity,
  type ObjectTypeRow,
  ReviewPolicyEntity,
  SkillEntity,
  type SkillRow,
  SourceEntity,
  type SourceRow,
  WorkflowEntity,
  type WorkflowRow,
} from './entities.js';
import { type MissionManifest, plannerOf } from './mission-manifest.js';
import { DEFAULT_OBJECT_LANGUAGE, type ObjectTypeManifest } from './object-type-manifest.js';
import { type ResolvedRetrieval, resolveRetrieval } from './retrieval.js';
import { DEFAULT_POLICY_SLUG, type ReviewPolicyManifest } from './review-policy-manifest.js';
import type { SkillManifest } from './skill-manifest.js';
import type { SourceManifest } from './source-manifest.js';
import type { WorkflowManifest } from './workflow-manifest.js';

/** One page of a list: the items and the slug to continue after (null at the end). */
export interface SlugPage<T> {
  items: T[];
  nextAfter: string | null;
}

/** Paging of a list. */
export interface PageRequest {
  limit: number;
  after?: string | undefined;
}

interface Stamps {
  createdAt: string;
  updatedAt: string;
}

export type AgentView = Omit<AgentManifest, 'systemPrompt'> & Stamps;
export type AgentDetail = AgentManifest & Stamps & { skills: SkillView[]; workflows: WorkflowView[] };
export type SkillView = SkillManifest & Stamps;
export type SkillDetail = SkillView & { promptMd: string };
export type WorkflowView = Pick<WorkflowManifest, 'slug' | 'name' | 'description' | 'trigger'> & Stamps;
export type WorkflowDetail = WorkflowManifest & Stamps;
export type ObjectTypeView = Omit<ObjectTypeManifest, 'sourceRelevance' | 'language'> & {
  language: string;
} & Stamps;
export type ObjectTypeDetail = ObjectTypeView & { sourceRelevance: Record<string, number> };
export interface SourceView extends Stamps {
  slug: string;
  name: string;
  description: string;
  kind: SourceManifest['kind'];
  connectionState: string;
}
export type SourceDetail = SourceView & {
  connection: SourceManifest['connection'];
  /** The overrides as authored. */
  retrieval: SourceManifest['retrieval'];
  /** The settings search uses: overrides over the defaults. */
  effectiveRetrieval: ResolvedRetrieval;
};

/** A review policy in full: its manifest, whether it is the org's `default`. */
export type ReviewPolicyDetail = ReviewPolicyManifest & { isDefault: boolean } & Stamps;

export type MissionView = Pick<MissionManifest, 'slug' | 'name' | 'description'> & Stamps;
export type MissionDetail = MissionManifest & { planner: string } & Stamps;

function stamps(row: { createdAt: Date; updatedAt: Date }): Stamps {
  return { createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

function agentView(row: AgentRow): AgentView {
  const { systemPrompt: _omitted, ...rest } = row.manifest as AgentManifest;
  return { ...rest, ...stamps(row) };
}

function skillView(row: SkillRow): SkillView {
  return { ...(row.manifest as SkillManifest), ...stamps(row) };
}

function workflowView(row: WorkflowRow): WorkflowView {
  const m = row.manifest as WorkflowManifest;
  return { slug: m.slug, name: m.name, description: m.description, trigger: m.trigger, ...stamps(row) };
}

function objectTypeView(row: ObjectTypeRow): ObjectTypeView {
  const { sourceRelevance: _omitted, language: _language, ...rest } = row.manifest as ObjectTypeManifest;
  return { ...rest, language: row.language ?? DEFAULT_OBJECT_LANGUAGE, ...stamps(row) };
}

function sourceView(row: SourceRow): SourceView {
  const m = row.manifest as SourceManifest;
  return {
    slug: m.slug,
    name: m.name,
    description: m.description,
    kind: m.kind,
    connectionState: m.connection.state,
    ...stamps(row),
  };
}

/** Reads of the applied resource tables in wire shapes. `em` is forked per call. */
export class ResourceViews {
  constructor(private readonly em: EntityManager) {}

  private fork(): EntityManager {
    return this.em.fork();
  }

  private async page<R extends AuthoredRow, V>(
    entity: EntitySchema<R>,
    where: Record<string, unknown>,
    page: PageRequest,
    view: (row: R) => V,
  ): Promise<SlugPage<V>> {
    const filter = (page.after ? { ...where, slug: { $gt: page.after } } : where) as FilterQuery<R>;
    const orderBy = { slug: QueryOrder.ASC } as QueryOrderMap<R>;
    const rows = (await this.fork().find(entity, filter, { orderBy, limit: page.limit + 1 })) as R[];
    const more = rows.length > page.limit;
    const items = (more ? rows.slice(0, page.limit) : rows).map(view);
    const last = more ? rows[page.limit - 1] : undefined;
    return { items, nextAfter: last ? last.slug : null };
  }

  listAgents(orgId: number, page: PageRequest): Promise<SlugPage<AgentView>> {
    return this.page(AgentEntity, { orgId }, page, agentView);
  }

  /** An agent with its wired skills and workflows (in the order the agent lists them). */
  async agent(orgId: number, slug: string): Promise<AgentDetail | null> {
    const em = this.fork();
    const row = await em.findOne(AgentEntity, { orgId, slug });
    if (!row) return null;
    const manifest = row.manifest as AgentManifest;
    const [skills, workflows] = await Promise.all([
      manifest.skillSlugs.length
        ? em.find(SkillEntity, { orgId, slug: { $in: manifest.skillSlugs } })
        : Promise.resolve([]),
      manifest.workflowSlugs.length
        ? em.find(WorkflowEntity, { orgId, slug: { $in: manifest.workflowSlugs } })
        : Promise.resolve([]),
    ]);
    const bySlug = <T extends { slug: string }>(rows: T[], slugs: string[]) =>
      slugs.flatMap((s) => rows.find((r) => r.slug === s) ?? []);
    return {
      ...manifest,
      ...stamps(row),
      skills: bySlug(skills, manifest.skillSlugs).map(skillView),
      workflows: bySlug(workflows, manifest.workflowSlugs).map(workflowView),
    };
  }

  listSkills(
    orgId: number,
    filter: { status?: string | undefined; category?: string | undefined },
    page: PageRequest,
  ): Promise<SlugPage<SkillView>> {
    const where: Record<string, unknown> = { orgId };
    if (filter.status) where.status = filter.status;
    if (filter.category) where.category = filter.category;
    return this.page(SkillEntity, where, page, skillView);
  }

  async skill(orgId: number, slug: string): Promise<SkillDetail | null> {
    const row = await this.fork().findOne(SkillEntity, { orgId, slug }, { populate: ['promptMd'] });
    return row ? { ...skillView(row), promptMd: row.promptMd } : null;
  }

  listWorkflows(orgId: number, page: PageRequest): Promise<SlugPage<WorkflowView>> {
    return this.page(WorkflowEntity, { orgId }, page, workflowView);
  }

  async workflow(orgId: number, slug: string): Promise<WorkflowDetail | null> {
    const row = await this.fork().findOne(WorkflowEntity, { orgId, slug });
    return row ? { ...(row.manifest as WorkflowManifest), ...stamps(row) } : null;
  }

  listObjectTypes(orgId: number, page: PageRequest): Promise<SlugPage<ObjectTypeView>> {
    return this.page(ObjectTypeEntity, { orgId }, page, objectTypeView);
  }

  async objectType(orgId: number, slug: string): Promise<ObjectTypeDetail | null> {
    const row = await this.fork().findOne(ObjectTypeEntity, { orgId, slug });
    if (!row) return null;
    return { ...objectTypeView(row), sourceRelevance: (row.manifest as ObjectTypeManifest).sourceRelevance };
  }

  listMissions(orgId: number, page: PageRequest): Promise<SlugPage<MissionView>> {
    return this.page(MissionEntity, { orgId }, page, (row) => {
      const m = row.manifest as MissionManifest;
      return { slug: m.slug, name: m.name, description: m.description, ...stamps(row) };
    });
  }

  /** A mission's full manifest, its planner filled in. */
  async mission(orgId: number, slug: string): Promise<MissionDetail | null> {
    const row = await this.fork().findOne(MissionEntity, { orgId, slug });
    if (!row) return null;
    const m = row.manifest as MissionManifest;
    return { ...m, planner: plannerOf(m), ...stamps(row) };
  }

  listReviewPolicies(
    orgId: number,
    page: PageRequest,
  ): Promise<SlugPage<Pick<ReviewPolicyManifest, 'slug' | 'name' | 'description'> & Stamps>> {
    return this.page(ReviewPolicyEntity, { orgId }, page, (row) => {
      const m = row.manifest as ReviewPolicyManifest;
      return { slug: m.slug, name: m.name, description: m.description, ...stamps(row) };
    });
  }

  /** A review policy's full manifest. */
  async reviewPolicy(orgId: number, slug: string): Promise<ReviewPolicyDetail | null> {
    const row = await this.fork().findOne(ReviewPolicyEntity, { orgId, slug });
    if (!row) return null;
    const m = row.manifest as ReviewPolicyManifest;
    return { ...m, isDefault: m.slug === DEFAULT_POLICY_SLUG, ...stamps(row) };
  }

  listSources(orgId: number, page: PageRequest): Promise<SlugPage<SourceView>> {
    return this.page(SourceEntity, { orgId }, page, sourceView);
  }

  async source(orgId: number, slug: string): Promise<SourceDetail | null> {
    const row = await this.fork().findOne(SourceEntity, { orgId, slug });
    if (!row) return null;
    const m = row.manifest as SourceManifest;
    return {
      ...sourceView(row),
      connection: m.connection,
      retrieval: m.retrieval,
      effectiveRetrieval: resolveRetrieval(m.retrieval),
    };
  }
}
