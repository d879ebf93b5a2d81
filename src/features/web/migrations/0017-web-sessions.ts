import { Migration } from '@mikro-orm/migrations';

/**
 * Browser sign-in (the web feature, docs/api.md#browser-sessions-the-web-ui):
 *
 * - `web_login_links`: one-time sign-in links (`r3 login-link`); only the SHA-256 of the code is kept.
 *   A link is spent by setting `used_at` (once: the update that spends it requires it unset).
 * - `web_sessions`: a browser's session. Only the SHA-256 of the cookie's secret is kept. A session
 *   started from a pasted API token names it (`token_id`): revoking or expiring the token ends the
 *   session; `scopes` is null then (the token's scopes apply). A session from a link has its own.
 *   Idle expiry is measured from `last_seen_at`; sign-out sets `revoked_at`.
 */
export class Migration0017WebSessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table web_login_links (
        code_hash bytea primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        user_pk bigint not null references users (pk) on delete cascade,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        used_at timestamptz
      );
      create index web_login_links_expires on web_login_links (expires_at);

      create table web_sessions (
        id text primary key,
        secret_hash bytea not null,
        org_id bigint not null references orgs (id) on delete cascade,
        user_pk bigint not null references users (pk) on delete cascade,
        token_id text references api_tokens (id) on delete cascade,
        scopes text[],
        csrf_token text not null,
        created_at timestamptz not null,
        last_seen_at timestamptz not null,
        revoked_at timestamptz,
        check ((token_id is null) <> (scopes is null))
      );
      create index web_sessions_user on web_sessions (user_pk);
    `);
  }
}
