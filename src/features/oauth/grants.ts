/**
 * What OAuth sign-in grants (docs/api.md#sign-in-with-oauth): authorization requests decided on the
 * consent page, codes, and the token endpoint's two grants.
 *
 * - `authorize` checks a request of `GET /oauth/authorize` and keeps it pending (10 minutes) for the
 *   consent page. Until the client and its exact `redirect_uri` are known, a refusal is answered to
 *   the browser (400); after, it goes back to the client's `redirect_uri` with `error` and `state`.
 *   PKCE with S256 is required (`plain` is refused), and `resource` must be the MCP endpoint's URL.
 * - `decide` (the consent page's Allow / Deny, a signed-in person) binds the request to the person and
 *   answers where the browser goes: `redirect_uri?code=…&state=…`, or `error=access_denied`. The code
 *   lives 60 s and only its SHA-256 is kept.
 * - `exchangeCode` (grant `authorization_code`) spends the code once — a code presented again revokes
 *   what it was exchanged for — and checks client, `redirect_uri`, `resource` and the PKCE verifier.
 * - `refresh` (grant `refresh_token`) rotates: each refresh token is spent once and answered with a
 *   new one of the same family; a spent one presented again revokes the whole family and its access
 *   tokens (RFC 9700 §4.14.2).
 *
 * Access tokens are ordinary r3 API tokens of the person (`oauth: <client name>`, 1 hour), so they are
 * listed, revocable, rate-limited and attributed (`token:<id>`) like any other. Their scopes are the
 * ones asked for that the person holds (`read:skills` is within `read:all`); a refresh narrows them to
 * what the person's role gives now. A consent given from a session started with a pasted token is
 * bound to that token (its *source*, issue 36 #3): the access tokens are minted through it (they
 * expire no later than it and are revoked with it), and the code and refresh tokens are refused once
 * it is revoked or expired — a leaked token cannot authorize an app that outlives it.
 *
 * PKCE is checked with node:crypto (SHA-256, base64url, a constant-time comparison of the two
 * digests' bytes) rather than a package: it is those three calls, and the one package the SDK brings
 * (pkce-challenge) compares with `===`.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type OAuthTokens, OAuthTokensSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { recordAuditSql } from '../../platform/audit/audit.js';
import {
  DEFAULT_SCOPES,
  type Principal,
  type Role,
  SCOPES,
  type Scope,
} from '../../platform/auth/principal.js';
import { hashSecret } from '../../platform/auth/tokens.js';
import { type Db, type Sql, writeAtCommit } from '../../platform/db/sql.js';
import { conflict, forbidden, notFound, validationFailed } from '../../platform/errors.js';
import type { Clock } from '../../platform/util/clock.js';
import type { TokenService } from '../tokens/index.js';
import type { OAuthClients } from './clients.js';
import { OAuthFailure } from './errors.js';
import { mcpResource } from './metadata.js';

/** How long a person has to decide on the consent page. */
export const REQUEST_TTL_MS = 10 * 60_000;
/** How long a code lives. */
export const CODE_TTL_MS = 60_000;
/** How long an access token lives. */
export const ACCESS_TOKEN_TTL_MS = 3_600_000;
/** How long a refresh token lives unused. */
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;

/** How long past its end a request, code or family is kept before the sweep deletes it. */
const SWEEP_AFTER_MS = 86_400_000;

/** The web UI's consent page. */
export const CONSENT_PATH = '/oauth/consent';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Public clients name themselves in the form (there is no other client authentication). */
function requireClientId(clientId: string | undefined): asserts clientId is string {
  if (!clientId)
    throw new OAuthFailure('invalid_client', 'client_id is required (r3 registers public clients).');
}

/** Why an unspent code cannot be exchanged with `params` at `now`, or null. */
function codeRefusal(row: CodeRow, params: TokenParams, now: number): OAuthFailure | null {
  const invalid = (why: string) => new OAuthFailure('invalid_grant', why);
  if (row.code_expires_at.getTime() <= now) return invalid('The code has expired (codes live 60 s).');
  if (row.client_id !== params.client_id) return invalid('The code was issued to another client.');
  if (row.redirect_uri !== params.redirect_uri) {
    return invalid('redirect_uri is not the one the code was asked with.');
  }
  if (params.resource !== undefined && params.resource !== row.resource) {
    return new OAuthFailure('invalid_target', `resource must be ${row.resource}.`);
  }
  if (!verifierMatches(params.code_verifier ?? '', row.code_challenge)) {
    return invalid('code_verifier does not match the code_challenge (PKCE).');
  }
  return null;
}

/** A pending request as the consent page shows it. */
export interface AuthorizationView {
  id: string;
  client: { id: string; name: string; uri: string | null; kind: 'registered' | 'document' };
  redirectUri: string;
  /** The scopes asked for. */
  scopes: Scope[];
  /** Those the signed-in person would grant (asked and held). */
  granted: Scope[];
  expiresAt: string;
  status: 'pending' | 'allowed' | 'denied' | 'expired';
}

/** A refusal of `GET /oauth/authorize` sent back to the client's redirect URI. */
export class RedirectedFailure extends Error {
  constructor(readonly location: string) {
    super('authorization refused');
  }
}

/** `uri` with `params` added to its query. */
function withParams(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value != null) url.searchParams.set(key, value);
  return url.href;
}

/** Whether `scopes` includes `scope` (`read:skills` is within `read:all`). */
function holds(scopes: ReadonlySet<Scope> | readonly Scope[], scope: Scope): boolean {
  const has = (s: Scope) => ('has' in scopes ? scopes.has(s) : scopes.includes(s));
  return has(scope) || (scope === 'read:skills' && has('read:all'));
}

/** The scopes a role's person holds (a sign-in link's: the web feature's `LINK_SCOPES`). */
export type RoleScopes = Readonly<Record<Role, readonly Scope[]>>;

/** The scopes of a space-separated `scope` parameter; null when one is unknown. */
function scopesOf(text: string): Scope[] | null {
  const out: Scope[] = [];
  for (const entry of text.split(' ')) {
    if (entry === '') continue;
    if (!(SCOPES as readonly string[]).includes(entry)) return null;
    if (!out.includes(entry as Scope)) out.push(entry as Scope);
  }
  return out;
}

/** `verifier`'s S256 challenge matches `challenge` (RFC 7636 §4.6), compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const computed = hash('sha256', verifier, 'buffer');
  const expected = Buffer.from(challenge, 'base64url');
  return expected.length === computed.length && timingSafeEqual(computed, expected);
}

interface AuthorizationRow {
  id: string;
  client_id: string;
  client_name: string;
  client_kind: 'registered' | 'document';
  client_uri: string | null;
  redirect_uri: string;
  scopes: Scope[];
  state: string | null;
  expires_at: Date;
  decided_at: Date | null;
  allowed: boolean | null;
  org_id: number | null;
}

interface CodeRow {
  id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  code_expires_at: Date;
  code_used_at: Date | null;
  org_id: number;
  user_pk: number;
  user_id: string;
  granted: Scope[];
  family_id: number | null;
  source_token_id: string | null;
}

interface RefreshRow {
  family_id: number;
  client_id: string;
  client_name: string;
  org_id: number;
  user_pk: number;
  user_id: string;
  role: Role;
  scopes: Scope[];
  resource: string;
  revoked_at: Date | null;
  expires_at: Date;
  used_at: Date | null;
  source_token_id: string | null;
}

/** A grant's source token (issue 36 #3) as the grant sees it: whether it ended, and its expiry. */
interface SourceState {
  id: string;
  ended: boolean;
  expiresAt: Date | null;
}

/**
 * Reads a grant's source token at `now` under a share lock, so that a revocation racing the grant
 * cannot miss the access token it mints: the revocation's UPDATE of the source waits for this
 * transaction, and its cascade (a later statement of its transaction) then sees the new token; or this
 * read waits for the revocation's commit and sees the source revoked. Its own statement: PostgreSQL
 * locks no row on the nullable side of the outer join that reads the grant. Null without a source.
 */
async function lockSource(sql: Sql, id: string | null, now: number): Promise<SourceState | null> {
  if (id === null) return null;
  const row = await sql.one<{ ended: boolean; expires_at: Date | null }>(
    'select revoked_at is not null or expires_at <= $2 as ended, expires_at from api_tokens where id = $1 for share',
    [id, new Date(now)],
  );
  return { id, ended: row.ended, expiresAt: row.expires_at };
}

/** What the token endpoint is given (the form's parameters). */
export type TokenParams = Readonly<Record<string, string>>;

/** A grant's outcome: tokens, or a refusal — answered after the transaction commits what it spent. */
type Outcome = { tokens: OAuthTokens } | { failure: OAuthFailure };

export class OAuthGrants {
  constructor(
    private readonly deps: {
      sql: Db;
      clock: Clock;
      clients: OAuthClients;
      tokens: TokenService;
      baseUrl: () => string;
      roleScopes: RoleScopes;
      /** Called after a commit revoked tokens (open streams of them end). */
      onRevoked: () => void;
    },
  ) {}

  /**
   * Checks an authorization request and keeps it pending; answers where the browser goes (the
   * consent page). Throws VALIDATION_FAILED (400, to the browser) while the client or its
   * redirect URI is in doubt, `RedirectedFailure` after.
   */
  async authorize(query: Readonly<Record<string, unknown>>): Promise<string> {
    const single = (name: string): string | undefined => {
      const value = query[name];
      if (value === undefined) return undefined;
      if (typeof value !== 'string') {
        throw validationFailed([{ field: `query.${name}`, message: 'must be given once' }]);
      }
      return value;
    };
    const clientId = single('client_id');
    const redirectUri = single('redirect_uri');
    if (!clientId) throw validationFailed([{ field: 'query.client_id', message: 'is required' }]);
    if (!redirectUri) throw validationFailed([{ field: 'query.redirect_uri', message: 'is required' }]);
    let client: Awaited<ReturnType<OAuthClients['find']>>;
    try {
      client = await this.deps.clients.find(clientId);
    } catch (error) {
      if (error instanceof OAuthFailure) {
        throw validationFailed([{ field: 'query.client_id', message: error.description }]);
      }
      throw error;
    }
    if (!client.redirectUris.includes(redirectUri)) {
      throw validationFailed([
        { field: 'query.redirect_uri', message: 'is not one of the redirect URIs this client registered' },
      ]);
    }
    const state = single('state');
    const refuse = (error: string, description: string): never => {
      throw new RedirectedFailure(
        withParams(redirectUri, { error, error_description: description, state, iss: this.deps.baseUrl() }),
      );
    };
    if (single('response_type') !== 'code')
      refuse('unsupported_response_type', 'response_type must be code.');
    const challenge = single('code_challenge');
    const method = single('code_challenge_method');
    if (!challenge) refuse('invalid_request', 'PKCE is required: send code_challenge (S256).');
    if (method !== 'S256') {
      refuse('invalid_request', 'code_challenge_method must be S256 (plain is not accepted).');
    }
    if (!CHALLENGE.test(challenge as string)) {
      refuse(
        'invalid_request',
        'code_challenge must be the base64url SHA-256 of the verifier (43 characters).',
      );
    }
    if (state !== undefined && state.length > 1000) refuse('invalid_request', 'state is too long.');
    const resource = mcpResource(this.deps.baseUrl());
    if (single('resource') !== resource) {
      refuse('invalid_target', `resource must be r3's MCP endpoint, ${resource}.`);
    }
    const asked = scopesOf(single('scope') ?? client.scope ?? DEFAULT_SCOPES.join(' '));
    if (!asked || asked.length === 0)
      refuse('invalid_scope', `scope must list r3's scopes: ${SCOPES.join(' ')}.`);
    const id = randomBytes(18).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.sql.query(
      `insert into oauth_authorizations (id, client_id, redirect_uri, scopes, state, code_challenge, resource, created_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        client.clientId,
        redirectUri,
        asked,
        state ?? null,
        challenge,
        resource,
        new Date(now),
        new Date(now + REQUEST_TTL_MS),
      ],
    );
    return `${this.deps.baseUrl()}${CONSENT_PATH}?request=${id}`;
  }

  private async findRequest(
    sql: Sql,
    principal: Principal,
    id: string,
    lock: boolean,
  ): Promise<AuthorizationRow> {
    const row = await sql.maybeOne<AuthorizationRow>(
      `select a.id, a.client_id, c.client_name, c.kind as client_kind, c.metadata->>'client_uri' as client_uri,
              a.redirect_uri, a.scopes, a.state, a.expires_at, a.decided_at, a.allowed, a.org_id
         from oauth_authorizations a join oauth_clients c on c.client_id = a.client_id
        where a.id = $1${lock ? ' for update of a' : ''}`,
      [id],
    );
    // A decided request is its person's org's: another org does not see it.
    if (!row || (row.org_id !== null && row.org_id !== principal.orgId)) throw notFound('authorization', id);
    return row;
  }

  private view(row: AuthorizationRow, principal: Principal): AuthorizationView {
    const status =
      row.decided_at !== null
        ? row.allowed
          ? 'allowed'
          : 'denied'
        : row.expires_at.getTime() <= this.deps.clock.now()
          ? 'expired'
          : 'pending';
    return {
      id: row.id,
      client: { id: row.client_id, name: row.client_name, uri: row.client_uri, kind: row.client_kind },
      redirectUri: row.redirect_uri,
      scopes: row.scopes,
      granted: row.scopes.filter((scope) => holds(principal.scopes, scope)),
      expiresAt: row.expires_at.toISOString(),
      status,
    };
  }

  /** The consent page's view of request `id` for `principal`. */
  async request(principal: Principal, id: string): Promise<AuthorizationView> {
    return this.view(await this.findRequest(this.deps.sql, principal, id, false), principal);
  }

  /**
   * The consent page's decision: Allow issues a code bound to `principal`; Deny refuses. Answers the
   * URL the browser goes to. 409 when the request was decided already or has expired.
   */
  async decide(
    principal: Principal,
    id: string,
    allow: boolean,
    requestId: string,
  ): Promise<{ redirectTo: string; view: AuthorizationView }> {
    return this.deps.sql.tx(async (sql) => {
      const row = await this.findRequest(sql, principal, id, true);
      const now = this.deps.clock.now();
      if (row.decided_at !== null)
        throw conflict('This authorization request was decided already.', { reason: 'decided' });
      if (row.expires_at.getTime() <= now) {
        throw conflict('This authorization request has expired; start signing in again from the app.', {
          reason: 'expired',
        });
      }
      const user = await sql.maybeOne<{ pk: number }>('select pk from users where org_id = $1 and id = $2', [
        principal.orgId,
        principal.userId,
      ]);
      if (!user)
        throw forbidden('Only a person of the organization may authorize an app.', { reason: 'no_user' });
      const granted = row.scopes.filter((scope) => holds(principal.scopes, scope));
      const iss = this.deps.baseUrl();
      let redirectTo: string;
      let code: string | null = null;
      if (!allow) {
        redirectTo = withParams(row.redirect_uri, {
          error: 'access_denied',
          error_description: 'The person declined.',
          state: row.state,
          iss,
        });
      } else if (granted.length === 0) {
        redirectTo = withParams(row.redirect_uri, {
          error: 'invalid_scope',
          error_description: 'The person holds none of the scopes asked for.',
          state: row.state,
          iss,
        });
      } else {
        code = randomBytes(32).toString('base64url');
        redirectTo = withParams(row.redirect_uri, { code, state: row.state, iss });
      }
      const decided = allow && code !== null;
      await sql.query(
        `update oauth_authorizations
            set decided_at = $2, allowed = $3, org_id = $4, user_pk = $5, granted = $6, code_hash = $7, code_expires_at = $8,
                source_token_id = $9
          where id = $1`,
        [
          id,
          new Date(now),
          decided,
          principal.orgId,
          user.pk,
          decided ? granted : null,
          code === null ? null : hashSecret(code),
          code === null ? null : new Date(now + CODE_TTL_MS),
          decided ? principal.tokenId : null,
        ],
      );
      await recordAuditSql(sql, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: decided ? 'oauth.allowed' : 'oauth.denied',
        targetKind: 'oauth_client',
        targetId: row.client_id,
        details: { client: row.client_name, scopes: row.scopes, granted: decided ? granted : [] },
        requestId,
        at: new Date(now),
      });
      const view = this.view(
        { ...row, decided_at: new Date(now), allowed: decided, org_id: principal.orgId },
        principal,
      );
      return { redirectTo, view };
    });
  }

  /** Grant `authorization_code`. Throws `OAuthFailure`. */
  async exchangeCode(params: TokenParams, requestId: string): Promise<OAuthTokens> {
    const code = params.code;
    const clientId = params.client_id;
    if (!code) throw new OAuthFailure('invalid_request', 'code is required.');
    requireClientId(clientId);
    if (!params.redirect_uri) throw new OAuthFailure('invalid_request', 'redirect_uri is required.');
    if (!params.code_verifier) throw new OAuthFailure('invalid_request', 'code_verifier is required (PKCE).');
    return this.grant(requestId, async (sql, now, revokeFamily) => {
      const row = await sql.maybeOne<CodeRow>(
        `select a.id, a.client_id, c.client_name, a.redirect_uri, a.code_challenge, a.resource, a.code_expires_at,
                a.code_used_at, a.org_id, a.user_pk, u.id as user_id, a.granted, a.family_id, a.source_token_id
           from oauth_authorizations a
           join oauth_clients c on c.client_id = a.client_id
           join users u on u.pk = a.user_pk
          where a.code_hash = $1
          for update of a`,
        [hashSecret(code)],
      );
      const invalid = (why: string): Outcome => ({ failure: new OAuthFailure('invalid_grant', why) });
      if (!row) return invalid('The code is unknown.');
      if (row.code_used_at !== null) {
        // A code presented twice: what it was exchanged for may be in a thief's hands (RFC 6749 §4.1.2).
        if (row.family_id !== null) await revokeFamily(row.family_id, 'code_reused');
        return invalid('The code was used already; the tokens issued for it are revoked.');
      }
      const source = await lockSource(sql, row.source_token_id, now);
      const refusal =
        codeRefusal(row, params, now) ??
        (source?.ended
          ? new OAuthFailure(
              'invalid_grant',
              'The token the consent was given with has been revoked or has expired.',
            )
          : null);
      if (refusal) {
        // Spent by this attempt all the same.
        await writeAtCommit(
          sql,
          sql.query('update oauth_authorizations set code_used_at = $2 where id = $1', [
            row.id,
            new Date(now),
          ]),
        );
        return { failure: refusal };
      }
      // Spent, and the family it starts, in one statement.
      const family = await sql.one<{ id: number }>(
        `with family as (
           insert into oauth_refresh_families (client_id, org_id, user_pk, scopes, resource, created_at, source_token_id)
           values ($2, $3, $4, $5, $6, $7, $8) returning id
         )
         update oauth_authorizations set code_used_at = $7, family_id = (select id from family)
          where id = $1
         returning family_id as id`,
        [
          row.id,
          row.client_id,
          row.org_id,
          row.user_pk,
          row.granted,
          row.resource,
          new Date(now),
          row.source_token_id,
        ],
      );
      return {
        tokens: await this.issue(sql, {
          familyId: family.id,
          orgId: row.org_id,
          userPk: row.user_pk,
          userId: row.user_id,
          clientName: row.client_name,
          scopes: row.granted,
          source,
          requestId,
          now,
        }),
      };
    });
  }

  /** Grant `refresh_token` (rotating). Throws `OAuthFailure`. */
  async refresh(params: TokenParams, requestId: string): Promise<OAuthTokens> {
    const refreshToken = params.refresh_token;
    const clientId = params.client_id;
    if (!refreshToken) throw new OAuthFailure('invalid_request', 'refresh_token is required.');
    requireClientId(clientId);
    return this.grant(requestId, async (sql, now, revokeFamily) => {
      const hashed = hashSecret(refreshToken);
      const row = await sql.maybeOne<RefreshRow>(
        `select f.id as family_id, f.client_id, c.client_name, f.org_id, f.user_pk, u.id as user_id, u.role, f.scopes,
                f.resource, f.revoked_at, t.expires_at, t.used_at, f.source_token_id
           from oauth_refresh_tokens t
           join oauth_refresh_families f on f.id = t.family_id
           join oauth_clients c on c.client_id = f.client_id
           join users u on u.pk = f.user_pk
          where t.token_hash = $1
          for update of t, f`,
        [hashed],
      );
      const invalid = (why: string): Outcome => ({ failure: new OAuthFailure('invalid_grant', why) });
      if (!row) return invalid('The refresh token is unknown.');
      if (row.client_id !== clientId) return invalid('The refresh token was issued to another client.');
      if (row.revoked_at !== null) return invalid('The refresh token has been revoked.');
      if (row.used_at !== null) {
        await revokeFamily(row.family_id, 'refresh_token_reused');
        return invalid('The refresh token was used already; every token of its family is revoked.');
      }
      if (row.expires_at.getTime() <= now) return invalid('The refresh token has expired.');
      const source = await lockSource(sql, row.source_token_id, now);
      if (source?.ended)
        return invalid('The token the consent was given with has been revoked or has expired.');
      if (params.resource !== undefined && params.resource !== row.resource) {
        return { failure: new OAuthFailure('invalid_target', `resource must be ${row.resource}.`) };
      }
      let scopes = row.scopes;
      if (params.scope !== undefined) {
        const asked = scopesOf(params.scope);
        if (!asked || asked.some((scope) => !holds(row.scopes, scope))) {
          return { failure: new OAuthFailure('invalid_scope', 'scope may only narrow the scopes granted.') };
        }
        scopes = asked;
      }
      // No more than the person's role gives now (a role may have changed since the consent).
      scopes = scopes.filter((scope) => holds(this.deps.roleScopes[row.role], scope));
      if (scopes.length === 0) return invalid('The person no longer holds any of the scopes granted.');
      await writeAtCommit(
        sql,
        sql.query('update oauth_refresh_tokens set used_at = $2 where token_hash = $1', [
          hashed,
          new Date(now),
        ]),
      );
      return {
        tokens: await this.issue(sql, {
          familyId: row.family_id,
          orgId: row.org_id,
          userPk: row.user_pk,
          userId: row.user_id,
          clientName: row.client_name,
          scopes,
          source,
          requestId,
          now,
        }),
      };
    });
  }

  /**
   * Runs a grant in one transaction at one instant. What it spends and revokes commits even when it
   * refuses (`failure`), which is thrown after the commit; streams of revoked tokens end after it.
   */
  private async grant(
    requestId: string,
    fn: (
      sql: Sql,
      now: number,
      revokeFamily: (familyId: number, reason: string) => Promise<void>,
    ) => Promise<Outcome>,
  ): Promise<OAuthTokens> {
    let revoked = false;
    const outcome = await this.deps.sql.tx((sql) => {
      const now = this.deps.clock.now();
      return fn(sql, now, async (familyId, reason) => {
        if (await this.revokeFamily(sql, familyId, reason, requestId, now)) revoked = true;
      });
    });
    if (revoked) this.deps.onRevoked();
    if ('failure' in outcome) throw outcome.failure;
    return outcome.tokens;
  }

  /** An access token (an API token of the person) and a new refresh token of family `familyId`. */
  private async issue(
    sql: Sql,
    grant: {
      familyId: number;
      orgId: number;
      userPk: number;
      userId: string;
      clientName: string;
      scopes: Scope[];
      /** The token the consent was given with: the access token is minted through it, ending no later. */
      source: { id: string; expiresAt: Date | null } | null;
      requestId: string;
      now: number;
    },
  ): Promise<OAuthTokens> {
    const now = new Date(grant.now);
    const ttlMs = Math.min(ACCESS_TOKEN_TTL_MS, (grant.source?.expiresAt?.getTime() ?? Infinity) - grant.now);
    const access = await this.deps.tokens.issueIn(
      sql,
      {
        orgId: grant.orgId,
        userPk: grant.userPk,
        userId: grant.userId,
        name: `oauth: ${grant.clientName}`,
        scopes: grant.scopes,
        expiresAt: new Date(grant.now + ttlMs),
        actor: `user:${grant.userId}`,
        requestId: grant.requestId,
        sourceTokenId: grant.source?.id ?? null,
      },
      now,
    );
    const refreshToken = randomBytes(32).toString('base64url');
    await writeAtCommit(
      sql,
      sql.query(
        `insert into oauth_refresh_tokens (token_hash, family_id, access_token_id, created_at, expires_at)
       values ($1, $2, $3, $4, $5)`,
        [
          hashSecret(refreshToken),
          grant.familyId,
          access.tokenId,
          now,
          new Date(grant.now + REFRESH_TOKEN_TTL_MS),
        ],
      ),
    );
    return OAuthTokensSchema.parse({
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: Math.floor(ttlMs / 1000),
      scope: grant.scopes.join(' '),
      refresh_token: refreshToken,
    });
  }

  /**
   * Deletes what can no longer be used nor tell anything (run every few minutes): authorization
   * requests and codes a day past their deadline, and refresh-token families a day after their
   * revocation or once none of their tokens can be presented (each spent or expired). Answers how
   * many rows went.
   */
  async sweep(): Promise<number> {
    const now = this.deps.clock.now();
    const dayAgo = new Date(now - SWEEP_AFTER_MS);
    const requests = await this.deps.sql.query(
      'delete from oauth_authorizations where expires_at <= $1 and coalesce(code_expires_at, expires_at) <= $1 returning 1',
      [dayAgo],
    );
    const families = await this.deps.sql.query(
      `delete from oauth_refresh_families f
        where f.revoked_at <= $1
           or (f.created_at <= $1 and not exists (
                 select 1 from oauth_refresh_tokens t
                  where t.family_id = f.id and t.used_at is null and t.expires_at > $2))
        returning 1`,
      [dayAgo, new Date(now)],
    );
    return requests.length + families.length;
  }

  /** Revokes family `familyId` and every access token issued with it; whether it revoked anything. */
  private async revokeFamily(
    sql: Sql,
    familyId: number,
    reason: string,
    requestId: string,
    at: number,
  ): Promise<boolean> {
    const now = new Date(at);
    const family = await sql.maybeOne<{ org_id: number; client_id: string }>(
      `update oauth_refresh_families set revoked_at = $2, revoked_reason = $3
        where id = $1 and revoked_at is null returning org_id, client_id`,
      [familyId, now, reason],
    );
    if (!family) return false;
    const tokens = await sql.query<{ id: string }>(
      `update api_tokens set revoked_at = $2
        where id in (select access_token_id from oauth_refresh_tokens where family_id = $1) and revoked_at is null
        returning id`,
      [familyId, now],
    );
    await recordAuditSql(sql, {
      orgId: family.org_id,
      apiTokenId: null,
      actor: 'system:oauth',
      action: 'oauth.family_revoked',
      targetKind: 'oauth_client',
      targetId: family.client_id,
      details: { reason, familyId, tokens: tokens.map((t) => t.id) },
      requestId,
      at: now,
    });
    return true;
  }
}
