/**
 * MikroORM entity schemas of the foundation tables (no decorators). Column names are snake_case
 * in SQL and camelCase here (MikroORM's default naming strategy maps them).
 */
import { EntitySchema, type PrimaryKeyProp } from '@mikro-orm/core';

export interface OrgRow {
  id: number;
  slug: string;
  name: string;
  tier: 'standard' | 'enterprise';
  rateLimitPerMin: number | null;
  rateLimitBurst: number | null;
  createdAt: Date;
}

export const OrgEntity = new EntitySchema<OrgRow>({
  name: 'Org',
  tableName: 'orgs',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true, columnType: 'bigint' },
    slug: { type: 'string', unique: true },
    name: { type: 'string' },
    tier: { type: 'string', default: 'standard' },
    rateLimitPerMin: { type: 'number', nullable: true },
    rateLimitBurst: { type: 'number', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date(), columnType: 'timestamptz' },
  },
});

export interface UserRow {
  [PrimaryKeyProp]?: 'pk';
  pk: number;
  orgId: number;
  id: string;
  role: 'owner' | 'pm' | 'client_reviewer' | 'specialist';
  name: string | null;
  createdAt: Date;
}

export const UserEntity = new EntitySchema<UserRow>({
  name: 'User',
  tableName: 'users',
  properties: {
    pk: { type: 'number', primary: true, autoincrement: true, columnType: 'bigint' },
    orgId: { type: 'number', columnType: 'bigint' },
    id: { type: 'string' },
    role: { type: 'string' },
    name: { type: 'string', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date(), columnType: 'timestamptz' },
  },
});

export interface ApiTokenRow {
  id: string;
  orgId: number;
  userPk: number;
  env: 'live' | 'test';
  name: string;
  scopes: string[];
  secretHash: Buffer;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export const ApiTokenEntity = new EntitySchema<ApiTokenRow>({
  name: 'ApiToken',
  tableName: 'api_tokens',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'number', columnType: 'bigint' },
    userPk: { type: 'number', columnType: 'bigint' },
    env: { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'string[]', columnType: 'text[]' },
    secretHash: { type: 'Buffer', columnType: 'bytea' },
    prefix: { type: 'string' },
    createdAt: { type: 'Date', onCreate: () => new Date(), columnType: 'timestamptz' },
    expiresAt: { type: 'Date', nullable: true, columnType: 'timestamptz' },
    revokedAt: { type: 'Date', nullable: true, columnType: 'timestamptz' },
    lastUsedAt: { type: 'Date', nullable: true, columnType: 'timestamptz' },
  },
});

export interface AuditRow {
  id: number;
  orgId: number;
  apiTokenId: string | null;
  actor: string;
  action: string;
  targetKind: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  requestId: string | null;
  at: Date;
}

export const AuditEntity = new EntitySchema<AuditRow>({
  name: 'AuditEntry',
  tableName: 'audit_log',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true, columnType: 'bigint' },
    orgId: { type: 'number', columnType: 'bigint' },
    apiTokenId: { type: 'string', nullable: true },
    actor: { type: 'string' },
    action: { type: 'string' },
    targetKind: { type: 'string', nullable: true },
    targetId: { type: 'string', nullable: true },
    details: { type: 'json' },
    requestId: { type: 'string', nullable: true },
    at: { type: 'Date', onCreate: () => new Date(), columnType: 'timestamptz' },
  },
});

export const foundationEntities = [OrgEntity, UserEntity, ApiTokenEntity, AuditEntity];
