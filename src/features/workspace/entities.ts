/**
 * MikroORM entity schemas of the applied resource tables (migration 0002), the only entities r3 has
 * (docs/architecture.md "PostgreSQL": which style goes where). They are read models: the workspace's
 * apply step writes them with plain SQL inside the write transaction; the authored-resource views
 * (resource-views.ts: REST and MCP) read them through a forked EntityManager. The workspace feature
 * declares them (`defineFeature`'s `entities`), so MikroORM knows them when the database opens.
 * `manifest` is the parsed manifest as stored (a `json` column, so free-form objects keep their key
 * order).
 */
import { EntitySchema, type PrimaryKeyProp } from '@mikro-orm/core';

/** Columns every authored resource row has. */
export interface AuthoredRow {
  [PrimaryKeyProp]?: ['orgId', 'slug'];
  orgId: number;
  slug: string;
  name: string;
  description: string;
  manifest: Record<string, unknown>;
  /** The workspace version that last changed this row. */
  versionSha: string;
  createdAt: Date;
  updatedAt: Date;
}

const authoredProperties = {
  orgId: { type: 'number', primary: true, columnType: 'bigint' },
  slug: { type: 'string', primary: true },
  name: { type: 'string' },
  description: { type: 'string' },
  manifest: { type: 'json', columnType: 'json' },
  versionSha: { type: 'string' },
  createdAt: { type: 'Date', columnType: 'timestamptz' },
  updatedAt: { type: 'Date', columnType: 'timestamptz' },
} as const;

export interface AgentRow extends AuthoredRow {
  active: boolean;
}

export const AgentEntity = new EntitySchema<AgentRow>({
  name: 'Agent',
  tableName: 'agents',
  properties: { ...authoredProperties, active: { type: 'boolean' } },
});

export interface SkillRow extends AuthoredRow {
  category: string;
  status: string;
  requiresApproval: boolean;
  promptMd: string;
}

export const SkillEntity = new EntitySchema<SkillRow>({
  name: 'Skill',
  tableName: 'skills',
  properties: {
    ...authoredProperties,
    category: { type: 'string' },
    status: { type: 'string' },
    requiresApproval: { type: 'boolean' },
    // Lists do not need the prompt; detail reads ask for it with `populate`/`fields`.
    promptMd: { type: 'text', lazy: true },
  },
});

export interface WorkflowRow extends AuthoredRow {
  triggerType: string;
  triggerObjectType: string | null;
}

export const WorkflowEntity = new EntitySchema<WorkflowRow>({
  name: 'Workflow',
  tableName: 'workflows',
  properties: {
    ...authoredProperties,
    triggerType: { type: 'string' },
    triggerObjectType: { type: 'string', nullable: true },
  },
});

export interface ObjectTypeRow extends AuthoredRow {
  language: string;
}

export const ObjectTypeEntity = new EntitySchema<ObjectTypeRow>({
  name: 'ObjectType',
  tableName: 'object_types',
  properties: { ...authoredProperties, language: { type: 'string' } },
});

export interface SourceRow extends AuthoredRow {
  kind: string;
  connectionState: string;
}

export const SourceEntity = new EntitySchema<SourceRow>({
  name: 'Source',
  tableName: 'sources',
  properties: {
    ...authoredProperties,
    kind: { type: 'string' },
    connectionState: { type: 'string' },
  },
});

export const MissionEntity = new EntitySchema<AuthoredRow>({
  name: 'Mission',
  tableName: 'missions',
  properties: { ...authoredProperties },
});

/** Review policies (`review_policies`, migration 0044 of the reviews feature; the workspace's apply writes it). */
export const ReviewPolicyEntity = new EntitySchema<AuthoredRow>({
  name: 'ReviewPolicy',
  tableName: 'review_policies',
  properties: { ...authoredProperties },
});

export const resourceEntities = [
  AgentEntity,
  SkillEntity,
  WorkflowEntity,
  ObjectTypeEntity,
  SourceEntity,
  MissionEntity,
  ReviewPolicyEntity,
];
