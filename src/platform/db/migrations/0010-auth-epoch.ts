import { Migration } from '@mikro-orm/migrations';

/**
 * `orgs.auth_epoch`: a counter that every committed change to what authenticates an org's callers
 * moves forward — a token revoked, re-scoped, re-dated, moved or deleted, a user's role, id or org
 * changed or the user deleted, any change to the org row itself (its limits above all).
 *
 * A node may then keep the tokens it has authenticated in memory, tagged with the epoch it read them
 * at, and check a later request of the same token by comparing that epoch with the org's current one
 * in the statement that serves the request (src/platform/auth/authenticate.ts). The bump commits with the
 * change, so a statement whose snapshot holds the old epoch does not hold the change either: a
 * request is checked against the state committed when its statement ran, as before.
 *
 * Creating tokens and users bumps nothing: nothing can have cached them yet. `last_used_at` (written
 * every few seconds) bumps nothing. TRUNCATE, which fires no row trigger, bumps every org. Triggers
 * switched off (`session_replication_role = replica`) bump nothing: an operator who rewrites tokens
 * that way must bump `auth_epoch` by hand.
 */
export class Migration0010AuthEpoch extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table orgs add column auth_epoch bigint not null default 0;

      -- Any change to an org row moves its epoch (unless the update moved it already).
      create function r3_orgs_auth_epoch() returns trigger language plpgsql as $$
      begin
        if new.auth_epoch = old.auth_epoch then
          new.auth_epoch := old.auth_epoch + 1;
        end if;
        return new;
      end $$;
      create trigger orgs_auth_epoch before update on orgs
        for each row when (old is distinct from new) execute function r3_orgs_auth_epoch();

      -- A token or user row changed or deleted: its org's epoch moves (both orgs', when it moved).
      create function r3_auth_epoch_bump() returns trigger language plpgsql as $$
      begin
        update orgs set auth_epoch = auth_epoch + 1
         where id = old.org_id or (tg_op = 'UPDATE' and id = new.org_id);
        return null;
      end $$;
      create trigger api_tokens_auth_epoch after update on api_tokens
        for each row
        when ((old.id, old.org_id, old.user_pk, old.env, old.scopes, old.secret_hash, old.expires_at, old.revoked_at)
              is distinct from
              (new.id, new.org_id, new.user_pk, new.env, new.scopes, new.secret_hash, new.expires_at, new.revoked_at))
        execute function r3_auth_epoch_bump();
      create trigger api_tokens_auth_epoch_delete after delete on api_tokens
        for each row execute function r3_auth_epoch_bump();
      create trigger users_auth_epoch after update on users
        for each row
        when ((old.pk, old.org_id, old.id, old.role) is distinct from (new.pk, new.org_id, new.id, new.role))
        execute function r3_auth_epoch_bump();
      create trigger users_auth_epoch_delete after delete on users
        for each row execute function r3_auth_epoch_bump();

      create function r3_auth_epoch_bump_all() returns trigger language plpgsql as $$
      begin
        update orgs set auth_epoch = auth_epoch + 1;
        return null;
      end $$;
      create trigger api_tokens_auth_epoch_truncate after truncate on api_tokens
        for each statement execute function r3_auth_epoch_bump_all();
      create trigger users_auth_epoch_truncate after truncate on users
        for each statement execute function r3_auth_epoch_bump_all();
    `);
  }
}
