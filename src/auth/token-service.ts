/**
 * Issuing, listing and revoking API tokens. Issuing is a CLI (operator) action that creates the org
 * and user on first use; revoking is also an API call governed by decisions §3 (a token may revoke
 * itself; an owner may revoke any token of the org).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../db/database.js';
import { ApiTokenEntity, type ApiTokenRow, OrgEntity, UserEntity } from '../db/entities/foundation.js';
import { isUniqueViolation } from '../db/sql.js';
import { forbidden, notFound } from '../http/errors.js';
import type { Clock } from '../util/clock.js';
import { recordAudit } from './audit.js';
import type { Principal, Role, Scope } from './principal.js';
import { issueToken, type TokenEnv } from './tokens.js';

/** What `r3 token create --json` prints (decisions §2). */
export interface CreatedToken {
  id: string;
  token: string;
  org: string;
  userId: string;
  role: Role;
  scope: string;
  expiresAt: string | null;
}

/** A token as listed (never the secret or its hash). */
export interface TokenView {
  id: string;
  name: string;
  prefix: string;
  userId: string;
  role: Role;
  scope: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface CreateTokenInput {
  org: string;
  userId: string;
  role: Role;
  name: string;
  scopes: readonly Scope[];
  expiresAt: Date | null;
}

export class TokenService {
  constructor(
    private readonly db: Database,
    private readonly env: TokenEnv,
    private readonly clock: Clock,
  ) {}

  /** Creates the org and user when missing, then a token; the plaintext is in the answer only. */
  async create(input: CreateTokenInput): Promise<CreatedToken> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.orm.em.fork().transactional((em) => this.createIn(em, input));
      } catch (error) {
        // Two creators racing on a new org or user: the loser retries and finds the row.
        if (attempt < 2 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  private async createIn(em: EntityManager, input: CreateTokenInput): Promise<CreatedToken> {
    const now = new Date(this.clock.now());
    let org = await em.findOne(OrgEntity, { slug: input.org });
    if (!org) {
      org = em.create(OrgEntity, {
        slug: input.org,
        name: input.org,
        tier: 'standard',
        rateLimitPerMin: null,
        rateLimitBurst: null,
        createdAt: now,
      });
      await em.flush();
    }
    let user = await em.findOne(UserEntity, { orgId: org.id, id: input.userId });
    if (!user) {
      user = em.create(UserEntity, {
        orgId: org.id,
        id: input.userId,
        role: input.role,
        name: null,
        createdAt: now,
      });
    } else if (user.role !== input.role) {
      user.role = input.role;
    }
    await em.flush();
    const issued = issueToken(this.env);
    em.create(ApiTokenEntity, {
      id: issued.tokenId,
      orgId: org.id,
      userPk: user.pk,
      env: this.env,
      name: input.name,
      scopes: [...input.scopes],
      secretHash: issued.secretHash,
      prefix: issued.prefix,
      createdAt: now,
      expiresAt: input.expiresAt,
      revokedAt: null,
      lastUsedAt: null,
    });
    await em.flush();
    await recordAudit(em, {
      orgId: org.id,
      apiTokenId: null,
      actor: 'cli',
      action: 'token.created',
      targetKind: 'token',
      targetId: issued.tokenId,
      details: { name: input.name, userId: input.userId, role: input.role, scope: input.scopes.join(',') },
      at: now,
    });
    return {
      id: issued.tokenId,
      token: issued.token,
      org: org.slug,
      userId: user.id,
      role: user.role,
      scope: input.scopes.join(','),
      expiresAt: input.expiresAt?.toISOString() ?? null,
    };
  }

  /** Tokens of an org, newest first; null when the org does not exist. */
  async list(orgSlug: string): Promise<TokenView[] | null> {
    const org = await this.db.sql.maybeOne<{ id: number }>('select id from orgs where slug = $1', [orgSlug]);
    return org ? this.listIn(org.id, null) : null;
  }

  /** Tokens visible to a principal: an owner sees the org's, anyone else their own user's. */
  async listFor(principal: Principal): Promise<TokenView[]> {
    return this.listIn(principal.orgId, principal.role === 'owner' ? null : principal.userId);
  }

  private async listIn(orgId: number, userId: string | null): Promise<TokenView[]> {
    const rows = await this.db.sql.prepared<TokenListRow>(
      'tokens_list',
      `select t.id, t.name, t.prefix, u.id as user_id, u.role, t.scopes, t.created_at, t.expires_at,
              t.revoked_at, t.last_used_at
         from api_tokens t join users u on u.pk = t.user_pk
        where t.org_id = $1 and ($2::text is null or u.id = $2)
        order by t.created_at desc, t.id
        limit 500`,
      [orgId, userId],
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      userId: r.user_id,
      role: r.role,
      scope: r.scopes.join(','),
      createdAt: r.created_at.toISOString(),
      expiresAt: r.expires_at?.toISOString() ?? null,
      revokedAt: r.revoked_at?.toISOString() ?? null,
      lastUsedAt: r.last_used_at?.toISOString() ?? null,
    }));
  }

  /** Operator revocation (CLI): any token by id. Returns false when there is none. */
  async revoke(tokenId: string): Promise<boolean> {
    const em = this.db.orm.em.fork();
    return em.transactional(async (tx) => {
      const token = await tx.findOne(ApiTokenEntity, { id: tokenId });
      if (!token) return false;
      if (!token.revokedAt) token.revokedAt = new Date(this.clock.now());
      await recordAudit(tx, {
        orgId: token.orgId,
        apiTokenId: null,
        actor: 'cli',
        action: 'token.revoked',
        targetKind: 'token',
        targetId: tokenId,
        details: {},
        at: new Date(this.clock.now()),
      });
      return true;
    });
  }

  /**
   * API revocation (`DELETE /tokens/:id`): the caller's own token, or any token of the org when the
   * caller is an owner. Another org's token is 404; another user's token for a non-owner is 403.
   */
  async revokeAs(principal: Principal, tokenId: string, requestId: string): Promise<TokenView> {
    const em = this.db.orm.em.fork();
    return em.transactional(async (tx) => {
      const token = await tx.findOne(ApiTokenEntity, { id: tokenId, orgId: principal.orgId });
      if (!token) throw notFound('token', tokenId);
      if (token.id !== principal.tokenId && principal.role !== 'owner') {
        throw forbidden('Only the token itself or an owner of the organization may revoke it.', { tokenId });
      }
      const now = new Date(this.clock.now());
      if (!token.revokedAt) token.revokedAt = now;
      const user = await tx.findOneOrFail(UserEntity, { pk: token.userPk, orgId: principal.orgId });
      await recordAudit(tx, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'token.revoked',
        targetKind: 'token',
        targetId: tokenId,
        details: {},
        requestId,
        at: now,
      });
      return view(token, user.id, user.role);
    });
  }
}

interface TokenListRow {
  id: string;
  name: string;
  prefix: string;
  user_id: string;
  role: Role;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

function view(t: ApiTokenRow, userId: string, role: Role): TokenView {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    userId,
    role,
    scope: t.scopes.join(','),
    createdAt: t.createdAt.toISOString(),
    expiresAt: t.expiresAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
  };
}
