import { Migration } from '@mikro-orm/migrations';

/**
 * Worker liveness: one row per process whose workers claim jobs. The row names the advisory lock the
 * process holds on a session of its own for as long as it lives (`pg_advisory_lock(r3 worker space,
 * lock_key)`); PostgreSQL frees the lock the moment that session ends — `kill -9`, a lost host, a
 * closed connection. A live process that can take the lock of another's row knows that one is dead,
 * deletes the row and releases the jobs it held (src/platform/jobs/liveness.ts).
 */
export class Migration0016Workers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table workers (
        id text primary key,
        lock_key integer not null unique,
        host text not null,
        pid integer not null,
        started_at timestamptz not null default now()
      );
    `);
  }
}
