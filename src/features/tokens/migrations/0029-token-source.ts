import { Migration } from '@mikro-orm/migrations';

/**
 * `api_tokens.source_token_id`: the token a token was minted through — the pasted token a browser
 * session was started from (docs/api.md "Tokens"). Revoking a token revokes every token minted
 * through it, however deep (service.ts `revokeMinted`); deleting it deletes them. Null for tokens
 * issued by the CLI or from a sign-in link's session: they answer to no other token.
 */
export class Migration0029TokenSource extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table api_tokens add column source_token_id text references api_tokens (id) on delete cascade;
      create index api_tokens_source on api_tokens (source_token_id) where source_token_id is not null;
    `);
  }
}
