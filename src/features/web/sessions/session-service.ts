/**
 * Browser sessions (docs/api.md#browser-sessions-the-web-ui). Two ways in:
 *
 * - a sign-in link (`r3 login-link`): a one-time code, valid 10 minutes, spent by the first sign-in;
 *   the session acts as the user (`user:<id>`) with the scopes of the user's role (`LINK_SCOPES`);
 * - a pasted API token: the session has that token's principal and scopes, and ends when the token
 *   is revoked or expires.
 *
 * The cookie carries `<sessionId>.<secret>`; only the SHA-256 of the secret is stored. A session ends
 * after 12 hours without a request, at sign-out, or when its user (or token) goes. The principal is
 * read anew on every request: a role change holds at once.
 *
 * Terminology: a *link code* is the secret in a sign-in link; a *session secret* the cookie's.
 */
import { randomBytes } from 'node:crypto';
import { recordAuditSql } from '../../../platform/audit/audit.js';
import { canApprove, type Principal, type Role, type Scope } from '../../../platform/auth/principal.js';
import type { IncomingRequest, SessionCaller } from '../../../platform/auth/sessions.js';
import { hashMatches, hashSecret, parseToken, type TokenEnv } from '../../../platform/auth/tokens.js';
import { type Db, isUniqueViolation, type Sql } from '../../../platform/db/sql.js';
import { unauthorized } from '../../../platform/errors.js';
import type { Clock } from '../../../platform/util/clock.js';
import { readCookie, SESSION_COOKIE } from './cookies.js';
import { checkCsrfToken, checkOrigin, isSafeMethod } from './csrf.js';

/** How long a sign-in link can be used. */
export const LINK_TTL_MS = 10 * 60_000;
/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** `last_seen_at` is written at most this often per session. */
const SEEN_EVERY_MS = 60_000;

/** A link session's scopes, by its user's role (the approve capability still needs an approving role). */
export const LINK_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  owner: ['read:all', 'write:resources', 'run:invoke', 'run:approve'],
  pm: ['read:all', 'write:resources', 'run:invoke', 'run:approve'],
  client_reviewer: ['read:all', 'run:invoke', 'run:approve'],
  specialist: ['read:all', 'run:invoke'],
};

/**
 * Whether `path` is a page of this site a sign-in may go on to: an absolute path (`/review/runs/5`),
 * never another origin (`//evil.example`, `/\evil.example`), nor a space or control character.
 */
export function isSitePath(path: string): boolean {
  return /^\/(?![/\\])\S{0,2000}$/.test(path) && !/\p{Cc}/u.test(path);
}

/** What the browser is told about its session (`GET /api/v1/session`). */
export interface SessionView {
  id: string | null;
  org: string;
  userId: string;
  role: Role;
  scopes: Scope[];
  canApprove: boolean;
  /** How it signed in: `link`, `token` (pasted), or `bearer` (no session: an API call). */
  via: 'link' | 'token' | 'bearer';
  tokenId: string | null;
  /** Send it as `X-CSRF-Token` on every state-changing request; null for Bearer callers. */
  csrfToken: string | null;
}

/** A session just started: its cookie value and view. */
export interface StartedSession {
  cookie: string;
  view: SessionView;
}

interface SessionRow {
  id: string;
  secret_hash: Buffer;
  csrf_token: string;
  last_seen_at: Date;
  revoked_at: Date | null;
  token_id: string | null;
  scopes: string[] | null;
  token_scopes: string[] | null;
  token_env: TokenEnv | null;
  token_revoked_at: Date | null;
  token_expires_at: Date | null;
  user_id: string;
  role: Role;
  org_id: number;
  org_slug: string;
  rate_limit_per_min: number | null;
  rate_limit_burst: number | null;
}

const SESSION_SQL = `
  select s.id, s.secret_hash, s.csrf_token, s.last_seen_at, s.revoked_at, s.token_id, s.scopes,
         t.scopes as token_scopes, t.env as token_env, t.revoked_at as token_revoked_at,
         t.expires_at as token_expires_at,
         u.id as user_id, u.role, o.id as org_id, o.slug as org_slug, o.rate_limit_per_min, o.rate_limit_burst
    from web_sessions s
    join users u on u.pk = s.user_pk
    join orgs o on o.id = s.org_id
    left join api_tokens t on t.id = s.token_id
   where s.id = $1`;

const COOKIE_VALUE = /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

export class SessionService {
  constructor(
    private readonly deps: {
      sql: Db;
      clock: Clock;
      env: TokenEnv;
      baseUrl: () => string;
      /** Called after a sign-out or revocation commits (the platform tells every process to end its streams). */
      onEnded?: () => void;
    },
  ) {}

  /**
   * A one-time sign-in URL for a user. With `role` the org and user are created when missing (the
   * user's role set to it, as `r3 token create` does); without, the user must exist. With `next` (a
   * path of this site, see `isSitePath`) the browser opens that page once signed in.
   */
  async createLoginLink(input: { org: string; userId: string; role?: Role; next?: string }): Promise<{
    url: string;
    expiresAt: string;
  }> {
    if (input.next !== undefined && !isSitePath(input.next)) {
      throw new Error(`a sign-in link's next page must be a path of this site: ${input.next}`);
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.deps.sql.tx((sql) => this.createLinkIn(sql, input));
      } catch (error) {
        if (attempt < 2 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  private async createLinkIn(sql: Sql, input: { org: string; userId: string; role?: Role; next?: string }) {
    const now = new Date(this.deps.clock.now());
    let user: { pk: number; org_id: number } | null;
    if (input.role) {
      const org =
        (await sql.maybeOne<{ id: number }>('select id from orgs where slug = $1', [input.org])) ??
        (await sql.one<{ id: number }>(
          `insert into orgs (slug, name, tier, created_at) values ($1, $1, 'standard', $2) returning id`,
          [input.org, now],
        ));
      user = await sql.one<{ pk: number; org_id: number }>(
        `insert into users (org_id, id, role, created_at) values ($1, $2, $3, $4)
         on conflict (org_id, id) do update set role = excluded.role
         returning pk, org_id`,
        [org.id, input.userId, input.role, now],
      );
    } else {
      user = await sql.maybeOne<{ pk: number; org_id: number }>(
        'select u.pk, u.org_id from users u join orgs o on o.id = u.org_id where o.slug = $1 and u.id = $2',
        [input.org, input.userId],
      );
      if (!user) throw new MissingUserError(input.org, input.userId);
    }
    const code = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + LINK_TTL_MS);
    await sql.query(
      `insert into web_login_links (code_hash, org_id, user_pk, created_at, expires_at) values ($1, $2, $3, $4, $5)`,
      [hashSecret(code), user.org_id, user.pk, now, expiresAt],
    );
    await recordAuditSql(sql, {
      orgId: user.org_id,
      apiTokenId: null,
      actor: 'cli',
      action: 'login_link.created',
      targetKind: 'user',
      targetId: input.userId,
      details: { expiresAt: expiresAt.toISOString() },
      at: now,
    });
    // The code travels in the fragment: browsers never send it, so no access log or proxy sees it.
    // The page to open (not secret) goes in the query.
    const next = input.next === undefined ? '' : `?next=${encodeURIComponent(input.next)}`;
    return { url: `${this.deps.baseUrl()}/login${next}#link=${code}`, expiresAt: expiresAt.toISOString() };
  }

  /** Spends a sign-in link and starts a session; 401 when it is unknown, used or expired. */
  async signInWithLink(code: string): Promise<StartedSession> {
    return this.deps.sql.tx(async (sql) => {
      const now = new Date(this.deps.clock.now());
      const spent = await sql.maybeOne<{ org_id: number; user_pk: number; role: Role }>(
        `update web_login_links l set used_at = $2
           from users u
          where l.code_hash = $1 and l.used_at is null and l.expires_at > $2 and u.pk = l.user_pk
          returning l.org_id, l.user_pk, u.role`,
        [hashSecret(code), now],
      );
      if (!spent) {
        throw unauthorized('This sign-in link is unknown, has been used already, or has expired.', {
          reason: 'link_unusable',
        });
      }
      return this.startIn(sql, now, {
        orgId: spent.org_id,
        userPk: spent.user_pk,
        tokenId: null,
        scopes: [...LINK_SCOPES[spent.role]],
      });
    });
  }

  /** Starts a session with a pasted API token's principal; 401 when the token is not usable. */
  async signInWithToken(text: string): Promise<StartedSession> {
    const parsed = parseToken(text.trim());
    if (!parsed || parsed.env !== this.deps.env) {
      throw unauthorized('That is not a valid API token for this deployment.', { reason: 'malformed' });
    }
    return this.deps.sql.tx(async (sql) => {
      const now = new Date(this.deps.clock.now());
      const token = await sql.maybeOne<{
        org_id: number;
        user_pk: number;
        secret_hash: Buffer;
        revoked_at: Date | null;
        expires_at: Date | null;
      }>('select org_id, user_pk, secret_hash, revoked_at, expires_at from api_tokens where id = $1', [
        parsed.tokenId,
      ]);
      if (
        !token ||
        !hashMatches(hashSecret(parsed.secret), token.secret_hash) ||
        token.revoked_at ||
        (token.expires_at && token.expires_at <= now)
      ) {
        throw unauthorized('That token is unknown, revoked or expired.', { reason: 'unknown' });
      }
      return this.startIn(sql, now, {
        orgId: token.org_id,
        userPk: token.user_pk,
        tokenId: parsed.tokenId,
        scopes: null,
      });
    });
  }

  private async startIn(
    sql: Sql,
    now: Date,
    who: { orgId: number; userPk: number; tokenId: string | null; scopes: Scope[] | null },
  ): Promise<StartedSession> {
    const id = randomBytes(12).toString('base64url');
    const secret = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('base64url');
    await sql.query(
      `insert into web_sessions (id, secret_hash, org_id, user_pk, token_id, scopes, csrf_token, created_at, last_seen_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [id, hashSecret(secret), who.orgId, who.userPk, who.tokenId, who.scopes, csrf, now],
    );
    const row = await sql.one<SessionRow>(SESSION_SQL, [id]);
    const principal = principalOf(row);
    await recordAuditSql(sql, {
      orgId: who.orgId,
      apiTokenId: who.tokenId,
      actor: principal.actor,
      action: 'session.started',
      targetKind: 'session',
      targetId: id,
      details: { via: who.tokenId ? 'token' : 'link' },
      at: now,
    });
    return { cookie: `${id}.${secret}`, view: viewOf(row, principal) };
  }

  /**
   * The session of a request without an Authorization header (see auth/sessions.ts): null without a
   * session cookie; 401 for an unknown, ended or idle one; 403 for a state-changing request without
   * the CSRF token or from another origin.
   */
  async authenticate(request: IncomingRequest): Promise<SessionCaller | null> {
    const found = await this.find(request.headers);
    if (!found) return null;
    const { row, principal } = found;
    if (!isSafeMethod(request.method)) {
      checkOrigin(request.headers, this.deps.baseUrl());
      checkCsrfToken(request.headers, row.csrf_token);
    }
    return { principal, rateKey: `s:${row.id}` };
  }

  /** The view of the request's session; null when it has no session cookie. */
  async viewOf(headers: Readonly<Record<string, string>>): Promise<SessionView | null> {
    const found = await this.find(headers);
    return found && viewOf(found.row, found.principal);
  }

  /** Ends the request's session (sign-out); false when it had none. */
  async signOut(headers: Readonly<Record<string, string>>): Promise<boolean> {
    const found = await this.find(headers);
    if (!found) return false;
    const now = new Date(this.deps.clock.now());
    await this.deps.sql.tx(async (sql) => {
      await sql.query('update web_sessions set revoked_at = coalesce(revoked_at, $2) where id = $1', [
        found.row.id,
        now,
      ]);
      await recordAuditSql(sql, {
        orgId: found.principal.orgId,
        apiTokenId: found.principal.tokenId,
        actor: found.principal.actor,
        action: 'session.ended',
        targetKind: 'session',
        targetId: found.row.id,
        details: {},
        at: now,
      });
    });
    this.deps.onEnded?.();
    return true;
  }

  /** Of `sessionIds`, those not signed out or revoked (their streams stay open; auth/sessions.ts). */
  async stillOpen(sessionIds: readonly string[]): Promise<ReadonlySet<string>> {
    const rows = await this.deps.sql.query<{ id: string }>(
      'select id from web_sessions where id = any($1::text[]) and revoked_at is null',
      [[...sessionIds]],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Ends every open session of a user (operator revocation, `r3 session revoke`); how many it ended. */
  async revokeUserSessions(org: string, userId: string): Promise<number | null> {
    const ended = await this.deps.sql.tx(async (sql) => {
      const user = await sql.maybeOne<{ pk: number; org_id: number }>(
        'select u.pk, u.org_id from users u join orgs o on o.id = u.org_id where o.slug = $1 and u.id = $2',
        [org, userId],
      );
      if (!user) return null;
      const now = new Date(this.deps.clock.now());
      const ended = await sql.query<{ id: string }>(
        'update web_sessions set revoked_at = $2 where user_pk = $1 and revoked_at is null returning id',
        [user.pk, now],
      );
      await recordAuditSql(sql, {
        orgId: user.org_id,
        apiTokenId: null,
        actor: 'cli',
        action: 'session.revoked',
        targetKind: 'user',
        targetId: userId,
        details: { sessions: ended.length },
        at: now,
      });
      return ended.length;
    });
    if (ended) this.deps.onEnded?.();
    return ended;
  }

  private async find(
    headers: Readonly<Record<string, string>>,
  ): Promise<{ row: SessionRow; principal: Principal } | null> {
    const value = readCookie(headers.cookie, SESSION_COOKIE);
    if (value === undefined || value === '') return null;
    const parsed = COOKIE_VALUE.exec(value);
    if (!parsed) throw sessionGone('malformed');
    const [, id, secret] = parsed as unknown as [string, string, string];
    const row = await this.deps.sql.maybeOne<SessionRow>(SESSION_SQL, [id]);
    if (!row || !hashMatches(hashSecret(secret), row.secret_hash)) throw sessionGone('unknown');
    const now = this.deps.clock.now();
    if (row.revoked_at) throw sessionGone('signed_out');
    if (row.last_seen_at.getTime() + SESSION_IDLE_MS <= now) throw sessionGone('idle');
    if (row.token_id) {
      if (row.token_env !== this.deps.env || row.token_revoked_at) throw sessionGone('token_revoked');
      if (row.token_expires_at && row.token_expires_at.getTime() <= now) throw sessionGone('token_expired');
    }
    if (now - row.last_seen_at.getTime() >= SEEN_EVERY_MS) {
      await this.deps.sql.query('update web_sessions set last_seen_at = $2 where id = $1', [
        row.id,
        new Date(now),
      ]);
    }
    return { row, principal: principalOf(row) };
  }
}

/** `r3 login-link` without `--role` for a user that does not exist. */
export class MissingUserError extends Error {
  constructor(org: string, userId: string) {
    super(`no user "${userId}" in org "${org}" (pass --role to create it)`);
    this.name = 'MissingUserError';
  }
}

function sessionGone(reason: string) {
  return unauthorized('Your session has ended; sign in again.', { reason: `session_${reason}` });
}

function principalOf(row: SessionRow): Principal {
  const scopes = (row.token_id ? row.token_scopes : row.scopes) ?? [];
  return {
    orgId: row.org_id,
    orgSlug: row.org_slug,
    userId: row.user_id,
    role: row.role,
    scopes: new Set(scopes as Scope[]),
    tokenId: row.token_id,
    actor: row.token_id ? `token:${row.token_id}` : `user:${row.user_id}`,
    rateLimit: { perMinute: row.rate_limit_per_min, burst: row.rate_limit_burst },
    sessionId: row.id,
  };
}

function viewOf(row: SessionRow, principal: Principal): SessionView {
  return {
    id: row.id,
    org: principal.orgSlug,
    userId: principal.userId,
    role: principal.role,
    scopes: [...principal.scopes],
    canApprove: canApprove(principal),
    via: row.token_id ? 'token' : 'link',
    tokenId: row.token_id,
    csrfToken: row.csrf_token,
  };
}

/** The view of a Bearer caller (no session). */
export function bearerView(principal: Principal): SessionView {
  return {
    id: null,
    org: principal.orgSlug,
    userId: principal.userId,
    role: principal.role,
    scopes: [...principal.scopes],
    canApprove: canApprove(principal),
    via: 'bearer',
    tokenId: principal.tokenId,
    csrfToken: null,
  };
}
