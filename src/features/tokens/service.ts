/**
 * Issuing, listing and revoking API tokens. Issuing is a CLI (operator) action that creates the org
 * and user on first use; revoking is also an API call governed by docs/api.md "Scopes" (a token may revoke
 * itself; an owner may revoke any token of the org).
 *
 * Plain SQL, not the ORM's unit of work: MikroORM's transactions and flushes run in an
 * AsyncLocalStorage context, and the first such call turns on Node's promise hooks for the rest of
 * the process — every later request then paid for them after one token revocation (lanes.ts turns
 * its own storage off when no lane work is under way for the same reason).
 */

import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Principal, Role, Scope } from '../../platform/auth/principal.js';
import { type IssuedToken, issueToken, type TokenEnv } from '../../platform/auth/tokens.js';
import type { Database } from '../../platform/db/database.js';
import { isUniqueViolation, type Sql, writeAtCommit } from '../../platform/db/sql.js';
import { forbidden, notFound, unauthorized, validationFailed } from '../../platform/errors.js';
import type { Clock } from '../../platform/util/clock.js';

/** What `r3 token create --json` prints (README "Command line"). */
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
    /** Called after a revocation commits (the platform tells every process to end its streams). */
    private readonly onRevoked: () => void = () => undefined,
  ) {}

  /**
   * Sets an org's rate-limit override (`perMin` null: the deployment default; 0: unlimited) and its
   * tier; false when there is no such org.
   */
  async setOrgLimits(
    orgSlug: string,
    limits: { perMin: number | null; burst: number | null; tier: 'standard' | 'enterprise' },
  ): Promise<boolean> {
    const rows = await this.db.sql.query<{ slug: string }>(
      'update orgs set rate_limit_per_min = $2, rate_limit_burst = $3, tier = $4 where slug = $1 returning slug',
      [orgSlug, limits.perMin, limits.burst, limits.tier],
    );
    return rows.length > 0;
  }

  /**
   * Sets an org's own floor and quota of schedule triggers (docs/api.md "Workflow triggers"; null: the
   * deployment's, 0: none); false when there is no such org.
   */
  async setOrgSchedules(
    orgSlug: string,
    limits: { minIntervalMs: number | null; maxOpenReviews: number | null },
  ): Promise<boolean> {
    const rows = await this.db.sql.query<{ slug: string }>(
      `update orgs set schedule_min_interval_ms = $2, schedule_max_open_reviews = $3 where slug = $1
       returning slug`,
      [orgSlug, limits.minIntervalMs, limits.maxOpenReviews],
    );
    return rows.length > 0;
  }

  /** Creates the org and user when missing, then a token; the plaintext is in the answer only. */
  async create(input: CreateTokenInput): Promise<CreatedToken> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.sql.tx((sql) => this.createIn(sql, input));
      } catch (error) {
        // Two creators racing on a new org or user: the loser retries and finds the row.
        if (attempt < 2 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  private async createIn(sql: Sql, input: CreateTokenInput): Promise<CreatedToken> {
    const now = new Date(this.clock.now());
    const org =
      (await sql.maybeOne<{ id: number; slug: string }>('select id, slug from orgs where slug = $1', [
        input.org,
      ])) ??
      (await sql.one<{ id: number; slug: string }>(
        `insert into orgs (slug, name, tier, created_at) values ($1, $1, 'standard', $2) returning id, slug`,
        [input.org, now],
      ));
    const user = await sql.one<{ pk: number; id: string; role: Role }>(
      `insert into users (org_id, id, role, created_at) values ($1, $2, $3, $4)
       on conflict (org_id, id) do update set role = excluded.role
       returning pk, id, role`,
      [org.id, input.userId, input.role, now],
    );
    const issued = await this.insertToken(sql, org.id, user.pk, input, now);
    await recordAuditSql(sql, {
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

  /**
   * Issues a token from the web UI (a signed-in person): for the caller's own user, or — owners only —
   * for another user of the org (who must exist; their role is kept). The scopes must be ones the
   * caller holds (`read:skills` is within `read:all`): a token never grants more than its issuer has.
   *
   * A session started from a pasted token (`principal.tokenId`, its *source*) is that token's and no
   * more: what it mints is for its own user only (minting for another user takes an owner's own
   * sign-in), expires no later than the source (an omitted expiry is the source's), and is revoked
   * with it (`source_token_id`, `revokeMinted`) — a leaked token cannot mint tokens that outlive it.
   */
  async createAs(
    principal: Principal,
    input: { name: string; scopes: readonly Scope[]; expiresAt: Date | null; userId?: string | undefined },
    requestId: string,
  ): Promise<CreatedToken> {
    const userId = input.userId ?? principal.userId;
    const sourceId = principal.tokenId;
    if (userId !== principal.userId && principal.role !== 'owner') {
      throw forbidden('Only an owner of the organization may issue tokens for another user.', { userId });
    }
    if (userId !== principal.userId && sourceId !== null) {
      throw forbidden(
        "Issuing a token for another user takes an owner's own sign-in (a sign-in link), not a pasted token.",
        { userId, reason: 'owner_sign_in_required' },
      );
    }
    const held = (scope: Scope) =>
      principal.scopes.has(scope) || (scope === 'read:skills' && principal.scopes.has('read:all'));
    const beyond = input.scopes.filter((scope) => !held(scope));
    if (beyond.length > 0) {
      throw forbidden('A token cannot have a scope its issuer lacks.', { scopes: beyond });
    }
    const now = new Date(this.clock.now());
    if (input.expiresAt && input.expiresAt <= now) {
      throw validationFailed([{ field: 'body.expiresAt', message: 'must be in the future' }]);
    }
    return this.db.sql.tx(async (sql) => {
      // The source row is share-locked: a revocation committing meanwhile either waits for this token
      // (and then revokes it too) or is seen here.
      const source =
        sourceId === null
          ? null
          : await sql.maybeOne<{ expires_at: Date | null; revoked_at: Date | null }>(
              'select expires_at, revoked_at from api_tokens where id = $1 and org_id = $2 for share',
              [sourceId, principal.orgId],
            );
      if (
        sourceId !== null &&
        (!source || source.revoked_at || (source.expires_at && source.expires_at <= now))
      ) {
        throw unauthorized('Your session has ended; sign in again.', { reason: 'session_token_revoked' });
      }
      let expiresAt = input.expiresAt;
      if (source?.expires_at) {
        if (expiresAt && expiresAt > source.expires_at) {
          throw forbidden('A token cannot outlive the token its session was started from.', {
            reason: 'outlives_source',
            expiresAt: source.expires_at.toISOString(),
          });
        }
        expiresAt ??= source.expires_at;
      }
      const user = await sql.maybeOne<{ pk: number; id: string; role: Role }>(
        'select pk, id, role from users where org_id = $1 and id = $2',
        [principal.orgId, userId],
      );
      if (!user)
        throw validationFailed([{ field: 'body.userId', message: 'is not a user of the organization' }]);
      const issued = await this.insertToken(
        sql,
        principal.orgId,
        user.pk,
        { ...input, expiresAt, sourceTokenId: sourceId },
        now,
      );
      await recordAuditSql(sql, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'token.created',
        targetKind: 'token',
        targetId: issued.tokenId,
        details: {
          name: input.name,
          userId: user.id,
          role: user.role,
          scope: input.scopes.join(','),
          ...(sourceId === null ? {} : { sourceTokenId: sourceId }),
        },
        requestId,
        at: now,
      });
      return {
        id: issued.tokenId,
        token: issued.token,
        org: principal.orgSlug,
        userId: user.id,
        role: user.role,
        scope: input.scopes.join(','),
        expiresAt: expiresAt?.toISOString() ?? null,
      };
    });
  }

  /**
   * Issues a token for user `userPk` of org `orgId` inside the caller's transaction `sql` (the OAuth
   * token endpoint: the token is one of the grant's writes), audited as `token.created` by `actor`.
   */
  async issueIn(
    sql: Sql,
    input: {
      orgId: number;
      userPk: number;
      userId: string;
      name: string;
      scopes: readonly Scope[];
      expiresAt: Date;
      actor: string;
      requestId: string;
      /** The token this one is minted through (revoked with it; migration 0029). */
      sourceTokenId?: string | null;
    },
    now: Date,
  ): Promise<IssuedToken> {
    // Nothing reads these answers: they go out behind each other and are checked at the commit.
    const { issued, written } = this.tokenInsert(sql, input.orgId, input.userPk, input, now);
    await writeAtCommit(sql, written);
    await writeAtCommit(
      sql,
      recordAuditSql(sql, {
        orgId: input.orgId,
        apiTokenId: null,
        actor: input.actor,
        action: 'token.created',
        targetKind: 'token',
        targetId: issued.tokenId,
        details: { name: input.name, userId: input.userId, scope: input.scopes.join(',') },
        requestId: input.requestId,
        at: now,
      }),
    );
    return issued;
  }

  /** Issues a token for user `userPk` of org `orgId` and stores it (only the secret's hash). */
  private async insertToken(
    sql: Sql,
    orgId: number,
    userPk: number,
    input: { name: string; scopes: readonly Scope[]; expiresAt: Date | null; sourceTokenId?: string | null },
    now: Date,
  ): Promise<IssuedToken> {
    const { issued, written } = this.tokenInsert(sql, orgId, userPk, input, now);
    await written;
    return issued;
  }

  /** A new token for user `userPk` of org `orgId`, and its insert (only the secret's hash), sent. */
  private tokenInsert(
    sql: Sql,
    orgId: number,
    userPk: number,
    input: { name: string; scopes: readonly Scope[]; expiresAt: Date | null; sourceTokenId?: string | null },
    now: Date,
  ): { issued: IssuedToken; written: Promise<unknown> } {
    const issued = issueToken(this.env);
    const written = sql.query(
      `insert into api_tokens (id, org_id, user_pk, env, name, scopes, secret_hash, prefix, created_at, expires_at,
                               source_token_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        issued.tokenId,
        orgId,
        userPk,
        this.env,
        input.name,
        [...input.scopes],
        issued.secretHash,
        issued.prefix,
        now,
        input.expiresAt,
        input.sourceTokenId ?? null,
      ],
    );
    return { issued, written };
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
    return rows.map(tokenView);
  }

  /** Operator revocation (CLI): any token by id. Returns false when there is none. */
  async revoke(tokenId: string): Promise<boolean> {
    const found = await this.db.sql.tx(async (sql) => {
      const now = new Date(this.clock.now());
      const token = await sql.maybeOne<{ org_id: number }>(
        `update api_tokens set revoked_at = coalesce(revoked_at, $2) where id = $1 returning org_id`,
        [tokenId, now],
      );
      if (!token) return false;
      const minted = await revokeMinted(sql, tokenId, now);
      await recordAuditSql(sql, {
        orgId: token.org_id,
        apiTokenId: null,
        actor: 'cli',
        action: 'token.revoked',
        targetKind: 'token',
        targetId: tokenId,
        details: minted.length > 0 ? { minted } : {},
        at: now,
      });
      return true;
    });
    if (found) this.onRevoked();
    return found;
  }

  /**
   * API revocation (`DELETE /tokens/:id`): the caller's own token, or any token of the org when the
   * caller is an owner. Another org's token is 404; another user's token for a non-owner is 403.
   */
  async revokeAs(principal: Principal, tokenId: string, requestId: string): Promise<TokenView> {
    const view = await this.db.sql.tx(async (sql) => {
      const found = await sql.maybeOne<{ id: string }>(
        'select id from api_tokens where id = $1 and org_id = $2 for update',
        [tokenId, principal.orgId],
      );
      if (!found) throw notFound('token', tokenId);
      if (found.id !== principal.tokenId && principal.role !== 'owner') {
        throw forbidden('Only the token itself or an owner of the organization may revoke it.', { tokenId });
      }
      const now = new Date(this.clock.now());
      const row = await sql.one<TokenListRow>(
        `update api_tokens t set revoked_at = coalesce(t.revoked_at, $3)
           from users u
          where t.id = $1 and t.org_id = $2 and u.pk = t.user_pk
          returning t.id, t.name, t.prefix, u.id as user_id, u.role, t.scopes, t.created_at, t.expires_at,
                    t.revoked_at, t.last_used_at`,
        [tokenId, principal.orgId, now],
      );
      const minted = await revokeMinted(sql, tokenId, now);
      await recordAuditSql(sql, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'token.revoked',
        targetKind: 'token',
        targetId: tokenId,
        details: minted.length > 0 ? { minted } : {},
        requestId,
        at: now,
      });
      return tokenView(row);
    });
    this.onRevoked();
    return view;
  }
}

/**
 * Revokes every token minted through `tokenId`, however deep (migration 0029); answers their ids.
 * A statement of its own, after the source's update: its snapshot sees a token minted by a
 * transaction that held the source's share lock until it committed.
 */
async function revokeMinted(sql: Sql, tokenId: string, now: Date): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `with recursive minted as (
       select id from api_tokens where source_token_id = $1
        union
       select t.id from api_tokens t join minted m on t.source_token_id = m.id
     )
     update api_tokens set revoked_at = $2
      where id in (select id from minted) and revoked_at is null
      returning id`,
    [tokenId, now],
  );
  return rows.map((row) => row.id).sort();
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

function tokenView(r: TokenListRow): TokenView {
  return {
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
  };
}
