import { Migration } from '@mikro-orm/migrations';

/** Orgs, users, API tokens, the audit log and the shared rate-limit buckets. */
export class Migration0001Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table orgs (
        id bigserial primary key,
        slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
        name text not null,
        tier text not null default 'standard' check (tier in ('standard', 'enterprise')),
        -- Per-org override of the deployment's limits: null = default, 0 per minute = unlimited.
        rate_limit_per_min integer check (rate_limit_per_min >= 0),
        rate_limit_burst integer check (rate_limit_burst >= 0),
        created_at timestamptz not null default now()
      );

      create table users (
        pk bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        id text not null check (length(id) between 1 and 128),
        role text not null check (role in ('owner', 'pm', 'client_reviewer', 'specialist')),
        name text,
        created_at timestamptz not null default now(),
        unique (org_id, id)
      );

      create table api_tokens (
        id text primary key check (id ~ '^[a-z2-7]{16}$'),
        org_id bigint not null references orgs (id) on delete cascade,
        user_pk bigint not null references users (pk) on delete cascade,
        env text not null check (env in ('live', 'test')),
        name text not null,
        scopes text[] not null,
        secret_hash bytea not null,
        prefix text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz
      );
      create index api_tokens_org on api_tokens (org_id, created_at);

      create table audit_log (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        api_token_id text,
        actor text not null,
        action text not null,
        target_kind text,
        target_id text,
        details jsonb not null default '{}',
        request_id text,
        at timestamptz not null default now()
      );
      create index audit_log_org_at on audit_log (org_id, at desc);
      create index audit_log_token on audit_log (api_token_id) where api_token_id is not null;

      -- GCRA state per bucket ("t:<tokenId>", "ip:<addr>"). Unlogged: no WAL on the hot path; a
      -- crash forgets the buckets, which only means everyone starts full.
      create unlogged table rate_limits (
        key text primary key,
        tat_ms double precision not null,
        -- The policy the bucket was filled under: a changed policy starts a fresh (full) bucket,
        -- so raising or lowering a limit applies at once.
        interval_ms double precision not null,
        burst integer not null
      );

      -- One GCRA step: takes a request from the bucket when it fits and returns the resulting
      -- theoretical arrival time; allowed = false leaves the bucket untouched.
      create function r3_rate_take(p_key text, p_now_ms double precision, p_interval_ms double precision,
                                   p_burst integer, out allowed boolean, out tat_ms double precision)
      language plpgsql as $$
      declare
        current_tat double precision;
        next_tat double precision;
      begin
        insert into rate_limits as r (key, tat_ms, interval_ms, burst)
          values (p_key, p_now_ms + p_interval_ms, p_interval_ms, p_burst)
          on conflict (key) do nothing
          returning r.tat_ms into tat_ms;
        if found then
          allowed := true;
          return;
        end if;
        select case when r.interval_ms = p_interval_ms and r.burst = p_burst then r.tat_ms else p_now_ms end
          into current_tat from rate_limits r where r.key = p_key for update;
        next_tat := greatest(current_tat, p_now_ms) + p_interval_ms;
        -- A small epsilon absorbs float rounding so exactly p_burst requests fit a full bucket.
        if next_tat - p_now_ms <= p_interval_ms * p_burst + 1e-6 then
          update rate_limits set tat_ms = next_tat, interval_ms = p_interval_ms, burst = p_burst where key = p_key;
          allowed := true;
          tat_ms := next_tat;
        else
          allowed := false;
          tat_ms := current_tat;
        end if;
      end $$;

      -- Authentication and the token's rate-limit step in one round trip. Every request reads the
      -- committed token, user and org rows, so a revocation, expiry, role or limit change holds on
      -- every node from the moment it commits. The bucket is charged only when the presented
      -- secret's hash matches and the token is usable (a guessed secret cannot drain a bucket);
      -- r3 still re-checks the hash in constant time before trusting the row.
      create function r3_authenticate(p_token_id text, p_secret_hash bytea, p_env text, p_now_ms double precision,
                                      p_default_per_min integer, p_default_burst integer)
      returns table (id text, env text, scopes text[], secret_hash bytea, expires_at timestamptz,
                     revoked_at timestamptz, user_id text, role text, org_id bigint, org_slug text,
                     rate_limit_per_min integer, rate_limit_burst integer,
                     allowed boolean, tat_ms double precision, interval_ms double precision, burst integer)
      language plpgsql as $$
      declare
        per_min integer;
        took record;
      begin
        select t.id, t.env, t.scopes, t.secret_hash, t.expires_at, t.revoked_at, u.id, u.role, o.id, o.slug,
               o.rate_limit_per_min, o.rate_limit_burst
          into id, env, scopes, secret_hash, expires_at, revoked_at, user_id, role, org_id, org_slug,
               rate_limit_per_min, rate_limit_burst
          from api_tokens t join users u on u.pk = t.user_pk join orgs o on o.id = t.org_id
         where t.id = p_token_id;
        if not found then return; end if;
        per_min := coalesce(rate_limit_per_min, p_default_per_min);
        burst := coalesce(rate_limit_burst, p_default_burst);
        if secret_hash = p_secret_hash and env = p_env and revoked_at is null
           and (expires_at is null or expires_at > to_timestamp(p_now_ms / 1000.0))
           and per_min > 0 and burst > 0 then
          interval_ms := 60000.0 / per_min;
          select * into took from r3_rate_take('t:' || p_token_id, p_now_ms, interval_ms, burst);
          allowed := took.allowed;
          tat_ms := took.tat_ms;
        end if;
        return next;
      end $$;
    `);
  }
}
