import { Migration } from '@mikro-orm/migrations';

/**
 * What OAuth sign-in grants (the oauth feature, docs/api.md#sign-in-with-oauth):
 *
 * - `oauth_authorizations`: one authorization request (`GET /oauth/authorize`), from its start
 *   (pending, `expires_at`: the person has that long to decide on the consent page) through the
 *   decision (`decided_at`; Allow binds it to the person's org and user, the scopes `granted`, and a
 *   code — only its SHA-256, `code_hash` — that lives until `code_expires_at` and is spent once,
 *   `code_used_at`) to the refresh-token family the code started (`family_id`).
 * - `oauth_refresh_families`: the refresh tokens descended from one code (RFC 9700 §4.14.2): whose
 *   they are, the scopes granted; `revoked_at` ends every token of the family at once (a refresh
 *   token presented twice revokes its family, and the access tokens issued with it).
 * - `oauth_refresh_tokens`: each refresh token (only its SHA-256), spent once by rotation (`used_at`),
 *   with the access token (an API token) issued with it.
 */
export class Migration0034OauthGrants extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table oauth_refresh_families (
        id bigserial primary key,
        client_id text not null references oauth_clients (client_id) on delete cascade,
        org_id bigint not null references orgs (id) on delete cascade,
        user_pk bigint not null references users (pk) on delete cascade,
        scopes text[] not null,
        resource text not null,
        created_at timestamptz not null,
        revoked_at timestamptz,
        revoked_reason text
      );
      create index oauth_refresh_families_user on oauth_refresh_families (user_pk);

      create table oauth_refresh_tokens (
        token_hash bytea primary key,
        family_id bigint not null references oauth_refresh_families (id) on delete cascade,
        access_token_id text references api_tokens (id) on delete set null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        used_at timestamptz
      );
      create index oauth_refresh_tokens_family on oauth_refresh_tokens (family_id);

      create table oauth_authorizations (
        id text primary key,
        client_id text not null references oauth_clients (client_id) on delete cascade,
        redirect_uri text not null,
        scopes text[] not null,
        state text,
        code_challenge text not null,
        resource text not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        decided_at timestamptz,
        allowed boolean,
        org_id bigint references orgs (id) on delete cascade,
        user_pk bigint references users (pk) on delete cascade,
        granted text[],
        code_hash bytea unique,
        code_expires_at timestamptz,
        code_used_at timestamptz,
        family_id bigint references oauth_refresh_families (id) on delete set null,
        check ((decided_at is null) = (allowed is null)),
        check ((code_hash is null) = (code_expires_at is null))
      );
      create index oauth_authorizations_expires on oauth_authorizations (expires_at);
    `);
  }
}
