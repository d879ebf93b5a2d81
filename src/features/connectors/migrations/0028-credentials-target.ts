import { Migration } from '@mikro-orm/migrations';

/**
 * `source_connections.credentials_target`: the connection target (connection-target.ts) the stored
 * credentials were set for. An apply that moves a source's target clears its credentials, and a
 * connector is never built with credentials of another target. Null for credentials stored before
 * this: they are bound to the target they are next used with.
 */
export class Migration0028CredentialsTarget extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table source_connections add column credentials_target text');
  }
}
