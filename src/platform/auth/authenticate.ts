/**
 * Bearer token → principal and the token's rate-limit step, checked against the state committed
 * when the request's statement ran: revocation, expiry, role and limit changes hold on every node
 * from the moment they commit — there is no window in which a revoked token works. Concurrent
 * requests share one statement per batch (src/platform/util/batch-loader.ts), which also takes the rate-limit
 * step of every request whose token is usable (src/platform/ratelimit/gcra-sql.ts); a batch is always sent
 * after its requests arrived. The secret is compared in constant time against the stored hash.
 * `lastUsedAt` is recorded in memory and flushed in batches.
 *
 * Two statements, by what this process already knows of the token:
 * - unknown (first use here, or its org changed since): the token, user and org rows are read, and
 *   with them the org's `auth_epoch` (migration 0010);
 * - known (a token this process authenticated before): only the org's row is read, and the token is
 *   accepted when the org's `auth_epoch` still is the one the token was read at. Every committed
 *   change to the org's tokens, users or the org itself moves that epoch in the same transaction, so
 *   an equal epoch in the statement's snapshot means nothing the principal was built from has
 *   changed. A different epoch sends the request through the first statement.
 * The known tokens are a process-local map (at most `KNOWN_TOKENS`, oldest out first); entries are
 * only ever trusted after that comparison, so a stale entry costs a second round trip, never a
 * wrong answer.
 *
 * A route may fuse its first read into either statement (`FusedRead`): the read is evaluated only
 * for a request whose token is usable, in that token's org, in the same snapshot as the check — one
 * round trip for both — and, for known tokens, once per batch for each org, read and key
 * (concurrent pollers of one run share its rendering: `leaders`). Its answer reaches the handler only after the request passed
 * authentication, rate limiting and authorization, like any read the handler makes itself.
 */
import type { Sql } from '../db/sql.js';
import { unauthorized } from '../errors.js';
import { RATE_ALLOWED, RATE_TAT, rateStepCtes } from '../ratelimit/gcra-sql.js';
import type { RateDecision } from '../ratelimit/limiter.js';
import { decide, type RatePolicy } from '../ratelimit/limiter.js';
import { createBatchLoader } from '../util/batch-loader.js';
import { setBounded } from '../util/bounded-map.js';
import type { Clock } from '../util/clock.js';
import type { LastUsedRecorder } from './last-used.js';
import type { Principal, Role, Scope } from './principal.js';
import { checksumMatches, hashMatches, hashSecret, type TokenEnv, tokenShape } from './tokens.js';

/** A row of the batch: one per request; the token's columns only on its first request in the batch. */
interface AuthRow extends RateAndFused {
  ord: number;
  token_id: string;
  /** The token exists; its columns below are set on its first request of the batch only. */
  found: boolean;
  first: boolean;
  env: TokenEnv;
  scopes: string[];
  secret_hash: Buffer;
  expires_at: Date | null;
  revoked_at: Date | null;
  user_id: string;
  role: Role;
  org_id: number;
  org_slug: string;
  rate_limit_per_min: number | null;
  rate_limit_burst: number | null;
  /** The org's `auth_epoch` in the statement's snapshot. */
  auth_epoch: string;
}

/** What both statements answer per request: its rate-limit step and its fused read. */
interface RateAndFused {
  ord: number;
  allowed: boolean | null;
  tat_ms: number | null;
  interval_ms: number | null;
  burst: number | null;
  /** The request's fused read was taken (its token was usable); `fused` is then its answer. */
  fused_read: boolean;
  fused: string | null;
}

/** A row of the known-token statement: whether the org's epoch still is the token's. */
interface KnownRow extends RateAndFused {
  usable: boolean;
}

/**
 * A read fused into the authentication statement. `sql` answers the SQL of a scalar text expression
 * (typically a parenthesized subquery) for one request: `org` is the SQL of the token's org id,
 * `key` of the request's bigint key, `param(i)` of the read's i-th value from `values()` (taken once
 * per batch).
 */
export interface FusedRead {
  sql(org: string, key: string, param: (i: number) => string): string;
  values(): readonly unknown[];
}

/** What a route asks to be read with its authentication: a registered read's name and the key. */
export interface FusedRequest {
  read: string;
  key: number;
}

/** A fused read's answer: the key it was read for, and its text (null: nothing found). */
export interface FusedAnswer {
  key: number;
  value: string | null;
}

// Parameters shared by every statement: $1 the tokens, $4 the batch's instant (epoch ms), $5/$6 the
// deployment's policy, $7/$8 each request's fused read (0: none) and key, then every registered
// read's values. A statement's `req` relation has, per request: ord, token_id, org_id, per_min,
// burst, usable, fused_kind, fused_key. `limited`: the statement takes rate-limit steps; without
// them it writes nothing.
function rateAndFusedSql(reads: readonly FusedRead[], req: string, columns: string, limited = true): string {
  let next = 9;
  const fused = reads.map((read, i) => {
    const base = next;
    next += read.values().length;
    return `when ${i + 1} then ${read.sql('req.org_id', 'req.fused_key', (j) => `$${base + j}`)}`;
  });
  const fusedColumns = reads.length
    ? `req.usable and req.fused_kind > 0 as fused_read,
       case when req.usable then case req.fused_kind ${fused.join(' ')} end end as fused`
    : 'false as fused_read, null::text as fused';
  if (!limited) {
    // One pass over the requests, streamed: no CTE to materialize (docs/performance.md, "Choices in the code").
    // $4 is not needed here; it is typed all the same, so one parameter list serves
    // every statement.
    return `select req.ord, ${columns}
       null::boolean as allowed, null::float8 as tat_ms, null::float8 as interval_ms, null::integer as burst,
       ${fusedColumns}
  from (${req}) req
 where $4::double precision is not null`;
  }
  return `with req as materialized (${req}
), charged as (
  select req.ord, 't:' || req.token_id as key, 60000.0::double precision / req.per_min as interval_ms, req.burst
    from req where req.usable and req.per_min > 0 and req.burst > 0
), ${rateStepCtes('charged', '$4::double precision')}
select req.ord, ${columns}
       ${RATE_ALLOWED} as allowed, ${RATE_TAT} as tat_ms, h.interval_ms, h.burst,
       ${fusedColumns}
  from req
  left join rate_hits h on h.ord = req.ord
  left join rate_rows rr on rr.key = h.key`;
}

const TOKEN_COLUMNS = [
  'env',
  'scopes',
  'secret_hash',
  'expires_at',
  'revoked_at',
  'user_id',
  'role',
  'org_id',
  'org_slug',
  'rate_limit_per_min',
  'rate_limit_burst',
  'auth_epoch',
];

// Unknown tokens, per request (ord): the token, user and org rows — found only when the secret's hash
// matches too, so a known id with a wrong secret takes exactly the path of an unknown id (no row read
// back, no columns sent, nothing parsed: the two cannot be told apart by timing) — and, for a usable
// token of a limited org, its rate-limit step. r3 still re-checks the hash in constant time before
// trusting the row. A token's columns travel once per batch, on its first request: one client's
// burst is mostly one token. $2 the secret hashes, $3 this deployment's environment.
function authenticateSql(reads: readonly FusedRead[]): string {
  return rateAndFusedSql(
    reads,
    `
  select x.ord, x.token_id, t.id is not null as found, x.fused_kind, x.fused_key,
         row_number() over (partition by x.token_id, x.secret_hash order by x.ord) = 1 as first,
         t.env, t.scopes, t.secret_hash, t.expires_at, t.revoked_at, u.id as user_id, u.role,
         o.id as org_id, o.slug as org_slug, o.rate_limit_per_min, o.rate_limit_burst, o.auth_epoch::text,
         coalesce(o.rate_limit_per_min, $5) as per_min, coalesce(o.rate_limit_burst, $6) as burst,
         t.secret_hash = x.secret_hash and t.env = $3 and t.revoked_at is null
           and (t.expires_at is null or t.expires_at > to_timestamp($4 / 1000.0)) as usable
    from unnest($1::text[], $2::bytea[], $7::int[], $8::bigint[])
           with ordinality as x(token_id, secret_hash, fused_kind, fused_key, ord)
    left join api_tokens t on t.id = x.token_id and t.secret_hash = x.secret_hash
    left join users u on u.pk = t.user_pk
    left join orgs o on o.id = t.org_id`,
    `req.token_id, req.found, req.first,
       ${TOKEN_COLUMNS.map((c) => `case when req.first then req.${c} end as ${c}`).join(', ')},`,
  );
}

// Known tokens, per request: the token's org row only; usable while its epoch is the one the token
// was read at (the token's expiry is checked by r3 against the batch's instant). $2 the orgs, $3
// the epochs (as text: int8 beyond 2^53 stays exact). Tokens whose limits were off when read go
// through the statement without rate-limit steps: turning limits on moves the epoch, so such a
// request is then refused here and read anew.
function knownSql(reads: readonly FusedRead[], limited: boolean): string {
  return rateAndFusedSql(
    reads,
    `
  select x.ord, x.token_id, x.org_id, x.fused_kind, x.fused_key,
         coalesce(o.rate_limit_per_min, $5) as per_min, coalesce(o.rate_limit_burst, $6) as burst,
         coalesce(o.auth_epoch = x.epoch, false) as usable
    from unnest($1::text[], $2::bigint[], $3::bigint[], $7::int[], $8::bigint[])
           with ordinality as x(token_id, org_id, epoch, fused_kind, fused_key, ord)
    left join orgs o on o.id = x.org_id`,
    'req.usable,',
    limited,
  );
}

/** One request's presented token: its id and the SHA-256 of its secret. */
interface Presented {
  tokenId: string;
  secretHash: Buffer;
  /** The registered read's number (0: none) and its key. */
  fusedKind: number;
  fusedKey: number;
}

/** A token this process authenticated: what it was checked against, its org's `auth_epoch` among it. */
interface KnownToken {
  tokenId: string;
  facts: TokenFacts;
  /** Its org's limits (or the deployment's) were on when it was read: its requests take steps. */
  limited: boolean;
}

/** A request of a known token, as the known-token statement takes it. */
interface KnownPresented {
  known: KnownToken;
  fusedKind: number;
  fusedKey: number;
}

/**
 * For each request of a known-token batch, the first request (index) of the batch with the same
 * org, epoch, read and key: the one whose read is taken for all of them. Same org and epoch means
 * the same usability in the statement (`knownSql`: usable is the org's epoch being the token's),
 * and one statement is one snapshot, so they would all read the same text.
 */
function leaders(presented: readonly KnownPresented[]): number[] {
  const first = new Map<string, number>();
  return presented.map((p, i) => {
    if (p.fusedKind === 0) return i;
    const key = `${p.known.facts.principal.orgId}:${p.known.facts.epoch}:${p.fusedKind}:${p.fusedKey}`;
    const leader = first.get(key);
    if (leader !== undefined) return leader;
    first.set(key, i);
    return i;
  });
}

/** A token as one batch read it: what every request presenting it is checked against. */
interface TokenFacts {
  env: TokenEnv;
  secretHash: Buffer;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** Its org's `auth_epoch` in the same snapshot. */
  epoch: string;
  /** Shared by every request of this token (principals are read-only). */
  principal: Principal;
}

/** What the batch found for one request (no token: unknown id), its rate step, the batch's instant. */
interface Lookup {
  token: TokenFacts | null;
  row: AuthRow;
  now: number;
}

function tokenFacts(row: AuthRow): TokenFacts {
  return {
    env: row.env,
    secretHash: row.secret_hash,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    epoch: row.auth_epoch,
    principal: {
      orgId: row.org_id,
      orgSlug: row.org_slug,
      userId: row.user_id,
      role: row.role,
      scopes: new Set(row.scopes as Scope[]),
      tokenId: row.token_id,
      actor: `token:${row.token_id}`,
      rateLimit: { perMinute: row.rate_limit_per_min, burst: row.rate_limit_burst },
    },
  };
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const ENV_PREFIX = /^svc_(live|test)_/;

/** Most tokens one process keeps as known (by default); the oldest is forgotten first. */
export const KNOWN_TOKENS = 10_000;

/** A caller and its rate-limit reading (null when limiting is off for its org). */
export interface Authenticated {
  principal: Principal;
  rate: RateDecision | null;
  /** The fused read's answer; absent when none was taken. */
  fused?: FusedAnswer;
}

export type Authenticate = (
  authorization: string | undefined,
  fused?: FusedRequest | null,
) => Promise<Authenticated>;

/** Builds the authenticator of a deployment that issues and accepts `svc_<env>_` tokens. */
export function createAuthenticator(deps: {
  sql: Sql;
  env: TokenEnv;
  clock: Clock;
  lastUsed: LastUsedRecorder;
  /** The deployment's per-token limits (an org may override them). */
  defaults: RatePolicy;
  /** Reads routes may fuse into authentication, by name. */
  fusedReads?: Readonly<Record<string, FusedRead>>;
  /** Most known tokens kept (default `KNOWN_TOKENS`). */
  knownTokens?: number;
}): Authenticate {
  const { sql, env, clock, lastUsed, defaults } = deps;
  const registered = Object.entries(deps.fusedReads ?? {});
  const names = registered.map(([name]) => name);
  const reads = registered.map(([, read]) => read);
  const kinds = new Map(names.map((name, i) => [name, i + 1]));
  const statement = authenticateSql(reads);
  const knownStatements = { limited: knownSql(reads, true), unlimited: knownSql(reads, false) };
  // Named per set of reads: one pool may serve authenticators built with different ones (tests).
  const suffix = names.map((n) => `_${n}`).join('');
  const readValues = () => reads.flatMap((read) => read.values());
  const known = new Map<string, KnownToken>();
  const knownLimit = deps.knownTokens ?? KNOWN_TOKENS;

  /**
   * Sends one batch to statement `name`, whose `$2` and `$3` are `own`; answers its rows in request
   * order and the batch's instant (its rate-limit steps and expiry checks are taken at that time).
   */
  async function send<P extends { fusedKind: number; fusedKey: number }, R extends { ord: number }>(
    name: string,
    text: string,
    presented: readonly P[],
    tokenId: (p: P) => string,
    own: [unknown, unknown],
  ): Promise<{ rows: R[]; now: number }> {
    const now = clock.now();
    const found = await sql.prepared<R>(`${name}${suffix}`, text, [
      presented.map(tokenId),
      own[0],
      own[1],
      now,
      defaults.perMinute,
      defaults.burst,
      presented.map((p) => p.fusedKind),
      presented.map((p) => p.fusedKey),
      ...readValues(),
    ]);
    if (found.length !== presented.length) throw new Error('authentication answered a partial batch');
    const rows: R[] = new Array(found.length);
    for (const row of found) rows[row.ord - 1] = row;
    return { rows, now };
  }

  const lookups = createBatchLoader<Presented, Lookup>({
    async batch(presented) {
      const { rows, now } = await send<Presented, AuthRow>(
        'authenticate_batch',
        statement,
        presented,
        (p) => p.tokenId,
        [presented.map((p) => p.secretHash), env],
      );
      // In request order, so a token's first row (which carries its columns) comes before the rest.
      const tokens = new Map<string, TokenFacts>();
      return rows.map((row) => {
        let token: TokenFacts | null = null;
        if (row.found) {
          token = row.first ? tokenFacts(row) : (tokens.get(row.token_id) ?? null);
          if (row.first && token) tokens.set(row.token_id, token);
        }
        return { token, row, now };
      });
    },
  });

  const knownLoader = (kind: 'limited' | 'unlimited') =>
    createBatchLoader<KnownPresented, { row: KnownRow; now: number }>({
      async batch(presented) {
        const leader = leaders(presented);
        const { rows, now } = await send<KnownPresented, KnownRow>(
          `authenticate_known_${kind}`,
          knownStatements[kind],
          // A request whose read another one of the batch takes asks for none itself.
          presented.map((p, i) => (leader[i] === i ? p : { ...p, fusedKind: 0 })),
          (p) => p.known.tokenId,
          [presented.map((p) => p.known.facts.principal.orgId), presented.map((p) => p.known.facts.epoch)],
        );
        for (let i = 0; i < rows.length; i++) {
          const from = leader[i] as number;
          if (from === i) continue;
          const [row, taken] = [rows[i] as KnownRow, rows[from] as KnownRow];
          row.fused_read = row.usable && taken.fused_read;
          row.fused = row.fused_read ? taken.fused : null;
        }
        return rows.map((row) => ({ row, now }));
      },
    });
  const checks = { limited: knownLoader('limited'), unlimited: knownLoader('unlimited') };

  function remember(tokenId: string, facts: TokenFacts): void {
    const { perMinute, burst } = facts.principal.rateLimit;
    const limited = (perMinute ?? defaults.perMinute) > 0 && (burst ?? defaults.burst) > 0;
    setBounded(known, tokenId, { tokenId, facts, limited }, knownLimit);
  }

  function accepted(tokenId: string, principal: Principal, row: RateAndFused, now: number, fusedKey: number) {
    lastUsed.record(tokenId, now);
    const rate =
      row.allowed === null || row.tat_ms === null || row.interval_ms === null || row.burst === null
        ? null
        : decide(row.allowed, row.tat_ms, now, row.interval_ms, row.burst);
    return row.fused_read
      ? { principal, rate, fused: { key: fusedKey, value: row.fused } }
      : { principal, rate };
  }

  /** A request of a known token: accepted when its org's epoch has not moved; null to read it anew. */
  async function checkKnown(
    entry: KnownToken,
    fusedKind: number,
    fusedKey: number,
  ): Promise<Authenticated | null> {
    const { facts } = entry;
    const check = entry.limited ? checks.limited : checks.unlimited;
    const { row, now } = await check.load({ known: entry, fusedKind, fusedKey });
    if (!row.usable || (facts.expiresAt && facts.expiresAt.getTime() <= now)) {
      if (known.get(entry.tokenId) === entry) known.delete(entry.tokenId);
      return null;
    }
    return accepted(entry.tokenId, facts.principal, row, now, fusedKey);
  }

  return async (authorization, fused) => {
    if (!authorization) {
      throw unauthorized('Missing Authorization header; send "Authorization: Bearer <token>".', {
        reason: 'missing',
      });
    }
    const bearer = BEARER.exec(authorization);
    if (!bearer) {
      throw unauthorized('The Authorization header must use the Bearer scheme.', { reason: 'not_bearer' });
    }
    const text = bearer[1] as string;
    const tokenEnv = ENV_PREFIX.exec(text)?.[1];
    if (tokenEnv && tokenEnv !== env) {
      throw unauthorized(
        `This is a svc_${tokenEnv}_ token; this deployment (R3_ENV=${env}) accepts only svc_${env}_ tokens.`,
        { reason: 'wrong_environment' },
      );
    }
    const parsed = tokenShape(text);
    if (!parsed) throw unauthorized('Malformed token.', { reason: 'malformed' });
    const secretHash = hashSecret(parsed.secret);
    const fusedKind = (fused && kinds.get(fused.read)) || 0;
    const fusedKey = fusedKind ? (fused as FusedRequest).key : 0;
    const entry = known.get(parsed.tokenId);
    // A secret whose hash is a known token's is that token's, checksum and all: the checksum is
    // checked only for the others, before any database read.
    if (entry && hashMatches(secretHash, entry.facts.secretHash)) {
      const answer = await checkKnown(entry, fusedKind, fusedKey);
      if (answer) return answer;
    } else if (!checksumMatches(parsed)) {
      throw unauthorized('Malformed token.', { reason: 'malformed' });
    }
    const { token, row, now } = await lookups.load({
      tokenId: parsed.tokenId,
      secretHash,
      fusedKind,
      fusedKey,
    });
    if (!token || token.env !== env || !hashMatches(secretHash, token.secretHash)) {
      throw unauthorized('Unknown token.', { reason: 'unknown' });
    }
    if (token.revokedAt) throw unauthorized('This token has been revoked.', { reason: 'revoked' });
    if (token.expiresAt && token.expiresAt.getTime() <= now) {
      throw unauthorized('This token has expired.', { reason: 'expired' });
    }
    remember(parsed.tokenId, token);
    return accepted(parsed.tokenId, token.principal, row, now, fusedKey);
  };
}

/** The principal of unauthenticated public routes: no org, no scopes. */
export const ANONYMOUS: Principal = {
  orgId: 0,
  orgSlug: '',
  userId: 'anonymous',
  role: 'specialist',
  scopes: new Set(),
  tokenId: null,
  actor: 'anonymous',
  rateLimit: { perMinute: null, burst: null },
};
