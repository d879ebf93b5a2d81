import { Migration } from '@mikro-orm/migrations';

/**
 * The token an OAuth consent was given with (issue 36 #3): a browser session started from a pasted
 * token is that token's and no more, and so is what it authorizes. `source_token_id` on the
 * authorization (set by the decision) and on the refresh family its code starts: the family's access
 * tokens are minted through that token (`api_tokens.source_token_id`, expiring no later than it and
 * revoked with it), and a refresh is refused once it is revoked or expired. Null for a consent given
 * from a sign-in link's session.
 */
export class Migration0053OauthTokenSource extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table oauth_authorizations add column source_token_id text references api_tokens (id) on delete cascade;
      alter table oauth_refresh_families add column source_token_id text references api_tokens (id) on delete cascade;
    `);
  }
}
