/**
 * The people of an org, as the API shows them (docs/api.md#users-and-people): its users (for an
 * assignee picker) and who an attribution string names (`token:<id>` → the token's user and name;
 * `user:<id>` → the user), so a page can say "ann (laptop)" where the record says
 * `token:7vltixjsaaru733y`. Every read is of one org: another org's user or token is unknown here.
 *
 * Terminology: an *actor* is an attribution string as records carry it (`by`, `createdBy`,
 * transitions' `actor`); a *person* is what one resolves to.
 */
import type { Role } from '../../platform/auth/principal.js';
import type { Sql } from '../../platform/db/sql.js';

/** A user of the org. */
export interface UserView {
  id: string;
  role: Role;
  createdAt: string;
}

/**
 * Who an actor is: `token` (an API token: its user and the token's name), `user` (a browser session
 * by sign-in link), or `system` (`mcp`, `cli`, r3's own workers and timers). An unknown token or
 * user (or another org's) resolves with `userId` null.
 */
export interface PersonView {
  actor: string;
  kind: 'token' | 'user' | 'system';
  userId: string | null;
  tokenName: string | null;
}

interface UserRow {
  id: string;
  role: Role;
  created_at: Date;
}

const userView = (row: UserRow): UserView => ({
  id: row.id,
  role: row.role,
  createdAt: row.created_at.toISOString(),
});

/** Actors of one request at most (the query's `actor` values). */
export const MAX_ACTORS = 100;

export class PeopleService {
  constructor(private readonly sql: Sql) {}

  /** A page of the org's users by id, after `after` (exclusive); `more` when another page follows. */
  async users(
    orgId: number,
    page: { after?: string; limit: number },
  ): Promise<{ users: UserView[]; more: boolean }> {
    const rows = await this.sql.query<UserRow>(
      `select id, role, created_at from users
        where org_id = $1 and ($2::text is null or id > $2)
        order by id limit $3`,
      [orgId, page.after ?? null, page.limit + 1],
    );
    const more = rows.length > page.limit;
    return { users: (more ? rows.slice(0, page.limit) : rows).map(userView), more };
  }

  /** One user of the org, or null. */
  async user(orgId: number, id: string): Promise<UserView | null> {
    const row = await this.sql.maybeOne<UserRow>(
      'select id, role, created_at from users where org_id = $1 and id = $2',
      [orgId, id],
    );
    return row ? userView(row) : null;
  }

  /** Who each of `actors` is, in their order (distinct). */
  async resolve(orgId: number, actors: readonly string[]): Promise<PersonView[]> {
    const distinct = [...new Set(actors)];
    const tokenIds = distinct.filter((a) => a.startsWith('token:')).map((a) => a.slice('token:'.length));
    const userIds = distinct.filter((a) => a.startsWith('user:')).map((a) => a.slice('user:'.length));
    const [tokens, users] = await Promise.all([
      tokenIds.length === 0
        ? []
        : this.sql.query<{ id: string; name: string; user_id: string }>(
            `select t.id, t.name, u.id as user_id
               from api_tokens t join users u on u.pk = t.user_pk
              where t.org_id = $1 and t.id = any($2::text[])`,
            [orgId, tokenIds],
          ),
      userIds.length === 0
        ? []
        : this.sql.query<{ id: string }>('select id from users where org_id = $1 and id = any($2::text[])', [
            orgId,
            userIds,
          ]),
    ]);
    const tokenById = new Map(tokens.map((t) => [t.id, t]));
    const userById = new Map(users.map((u) => [u.id, u]));
    return distinct.map((actor): PersonView => {
      if (actor.startsWith('token:')) {
        const token = tokenById.get(actor.slice('token:'.length));
        return {
          actor,
          kind: 'token',
          userId: token?.user_id ?? null,
          tokenName: token?.name ?? null,
        };
      }
      if (actor.startsWith('user:')) {
        const user = userById.get(actor.slice('user:'.length));
        return { actor, kind: 'user', userId: user?.id ?? null, tokenName: null };
      }
      return { actor, kind: 'system', userId: null, tokenName: null };
    });
  }
}
