import { Migration } from '@mikro-orm/migrations';

/**
 * OAuth clients (the oauth feature, docs/api.md#sign-in-with-oauth): one row per client r3 knows —
 * registered through `POST /oauth/register` (RFC 7591; `kind` `registered`, a random `client_id`), or
 * a Client ID Metadata Document (`kind` `document`: the `client_id` is the document's URL; the row is
 * the document as last fetched, fresh until `fresh_until`, then fetched again). Clients belong to no
 * org: a client registers before anyone signs in with it. `metadata` keeps the client's metadata as
 * accepted (RFC 7591 names).
 */
export class Migration0033OauthClients extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table oauth_clients (
        client_id text primary key,
        kind text not null check (kind in ('registered', 'document')),
        client_name text not null,
        redirect_uris text[] not null,
        metadata jsonb not null,
        created_at timestamptz not null,
        fetched_at timestamptz,
        fresh_until timestamptz,
        check ((kind = 'document') = (fresh_until is not null))
      );
    `);
  }
}
