import { Migration } from '@mikro-orm/migrations';

/**
 * Authentication and rate limiting for a whole batch of requests in one statement
 * (src/util/batch-loader.ts): concurrent requests share one round trip instead of making one each.
 *
 * `r3_rate_take_batch` takes one GCRA step per entry. Entries of one bucket are charged in entry
 * order, with one row update per bucket: under a single `now`, a refusal leaves the bucket as it was,
 * so once one request of a bucket is refused every later one in the batch is too, and the count that
 * fits has a closed form. Buckets are locked in key order, so two batches never deadlock.
 *
 * `r3_authenticate_batch` is `r3_authenticate` (0001) for many tokens: it reads the committed token,
 * user and org rows of every request in the batch, and charges a token's bucket only for requests
 * whose secret hash matches a usable token. The single-request functions of 0001 stay, for nodes of
 * the previous release during a rolling upgrade.
 */
export class Migration0007BatchedAuth extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- n GCRA steps on one bucket at p_now_ms: how many fit (taken) and the theoretical arrival
      -- time they start from (base_ms); hit i (from 0) fits when i < taken, leaving the bucket at
      -- base_ms + (i + 1) * p_interval_ms; a refused hit sees base_ms + taken * p_interval_ms.
      -- The caller (r3_rate_take_batch) has created the bucket and holds its lock.
      create function r3_rate_take_n(p_key text, p_now_ms double precision, p_interval_ms double precision,
                                     p_burst integer, p_n integer, out taken integer, out base_ms double precision)
      language plpgsql as $$
      declare
        current_tat double precision;
        -- The same epsilon as r3_rate_take: exactly p_burst requests fit a full bucket.
        capacity double precision := p_interval_ms * p_burst + 1e-6;
      begin
        select case when r.interval_ms = p_interval_ms and r.burst = p_burst then r.tat_ms else p_now_ms end
          into current_tat from rate_limits r where r.key = p_key;
        base_ms := greatest(current_tat, p_now_ms);
        taken := greatest(0, least(p_n, floor((capacity - (base_ms - p_now_ms)) / p_interval_ms)::integer));
        -- The closed form agrees with the step-by-step test up to float rounding; settle it exactly.
        while taken < p_n and base_ms + (taken + 1) * p_interval_ms - p_now_ms <= capacity loop
          taken := taken + 1;
        end loop;
        while taken > 0 and base_ms + taken * p_interval_ms - p_now_ms > capacity loop
          taken := taken - 1;
        end loop;
        if taken = 0 then
          base_ms := current_tat;
          return;
        end if;
        update rate_limits set tat_ms = base_ms + taken * p_interval_ms, interval_ms = p_interval_ms, burst = p_burst
         where key = p_key;
      end $$;

      -- The entries of a batch with, per bucket, the run of one policy each belongs to (segment) and
      -- its place in that run (hit, from 0).
      create function r3_rate_segments(p_keys text[], p_interval_ms double precision[], p_burst integer[])
      returns table (ord bigint, key text, interval_ms double precision, burst integer, segment bigint, hit bigint)
      language sql immutable as $$
        select c.ord, c.key, c.interval_ms, c.burst, c.segment,
               row_number() over (partition by c.key, c.segment order by c.ord) - 1
          from (select b.*, sum(b.changed) over (partition by b.key order by b.ord) as segment
                  from (select x.ord, x.key, x.interval_ms, x.burst,
                               case when (x.interval_ms, x.burst) is not distinct from
                                         (lag(x.interval_ms) over w, lag(x.burst) over w)
                                    then 0 else 1 end as changed
                          from unnest(p_keys, p_interval_ms, p_burst) with ordinality as x(key, interval_ms, burst, ord)
                        window w as (partition by x.key order by x.ord)) b) c
      $$;

      -- One GCRA step per entry (key, interval, burst), in entry order within a bucket; answers
      -- (ord, allowed, tat_ms) per entry, ord counting entries from 1. A bucket's entries are charged
      -- in runs of one policy (a policy change within a batch starts a fresh bucket, as it does
      -- between batches).
      create function r3_rate_take_batch(p_keys text[], p_now_ms double precision,
                                         p_interval_ms double precision[], p_burst integer[])
      returns table (ord bigint, allowed boolean, tat_ms double precision)
      language plpgsql as $$
      declare
        g record;
        took record;
        g_keys text[] := '{}';
        g_segments bigint[] := '{}';
        g_taken integer[] := '{}';
        g_base double precision[] := '{}';
      begin
        -- Every bucket of the batch exists and is locked before any is charged, in key order, so two
        -- batches sharing buckets never deadlock.
        insert into rate_limits (key, tat_ms, interval_ms, burst)
          select distinct on (x.key) x.key, p_now_ms, x.interval_ms, x.burst
            from unnest(p_keys, p_interval_ms, p_burst) as x(key, interval_ms, burst)
           order by x.key
          on conflict (key) do nothing;
        perform 1 from rate_limits r where r.key = any(p_keys) order by r.key for update;
        for g in
          select s.key, s.segment, min(s.interval_ms) as interval_ms, min(s.burst) as burst, count(*)::integer as n
            from r3_rate_segments(p_keys, p_interval_ms, p_burst) s
           group by s.key, s.segment
           order by s.key, s.segment
        loop
          select * into took from r3_rate_take_n(g.key, p_now_ms, g.interval_ms, g.burst, g.n);
          g_keys := g_keys || g.key;
          g_segments := g_segments || g.segment;
          g_taken := g_taken || took.taken;
          g_base := g_base || took.base_ms;
        end loop;
        return query
          select s.ord,
                 s.hit < t.taken,
                 t.base_ms + (least(s.hit, t.taken - 1) + 1) * s.interval_ms
            from r3_rate_segments(p_keys, p_interval_ms, p_burst) s
            join unnest(g_keys, g_segments, g_taken, g_base) as t(key, segment, taken, base_ms)
              on t.key = s.key and t.segment = s.segment
           order by s.ord;
      end $$;

      -- r3_authenticate for a batch: one row per request (ord from 1), the token's columns null when
      -- its id is unknown; the rate-limit columns null when the request was not charged.
      create function r3_authenticate_batch(p_token_ids text[], p_secret_hashes bytea[], p_env text,
                                            p_now_ms double precision, p_default_per_min integer,
                                            p_default_burst integer)
      returns table (ord bigint, id text, env text, scopes text[], secret_hash bytea, expires_at timestamptz,
                     revoked_at timestamptz, user_id text, role text, org_id bigint, org_slug text,
                     rate_limit_per_min integer, rate_limit_burst integer,
                     allowed boolean, tat_ms double precision, interval_ms double precision, burst integer)
      language plpgsql as $$
      declare
        charged_ords bigint[];
        charged_keys text[];
        charged_intervals double precision[];
        charged_bursts integer[];
      begin
        select array_agg(q.ord order by q.ord), array_agg('t:' || q.id order by q.ord),
               array_agg(60000.0::double precision / q.per_min order by q.ord), array_agg(q.burst order by q.ord)
          into charged_ords, charged_keys, charged_intervals, charged_bursts
          from (select x.ord, t.id,
                       coalesce(o.rate_limit_per_min, p_default_per_min) as per_min,
                       coalesce(o.rate_limit_burst, p_default_burst) as burst
                  from unnest(p_token_ids, p_secret_hashes) with ordinality as x(token_id, secret_hash, ord)
                  join api_tokens t on t.id = x.token_id
                  join orgs o on o.id = t.org_id
                 where t.secret_hash = x.secret_hash and t.env = p_env and t.revoked_at is null
                   and (t.expires_at is null or t.expires_at > to_timestamp(p_now_ms / 1000.0))) q
         where q.per_min > 0 and q.burst > 0;
        return query
          select x.ord, t.id, t.env, t.scopes, t.secret_hash, t.expires_at, t.revoked_at, u.id, u.role, o.id,
                 o.slug, o.rate_limit_per_min, o.rate_limit_burst, k.allowed, k.tat_ms,
                 case when k.ord is null then null else 60000.0::double precision / coalesce(o.rate_limit_per_min, p_default_per_min) end,
                 case when k.ord is null then null else coalesce(o.rate_limit_burst, p_default_burst) end
            from unnest(p_token_ids, p_secret_hashes) with ordinality as x(token_id, secret_hash, ord)
            left join api_tokens t on t.id = x.token_id
            left join users u on u.pk = t.user_pk
            left join orgs o on o.id = t.org_id
            left join (select charged_ords[c.ord] as ord, c.allowed, c.tat_ms
                         from r3_rate_take_batch(coalesce(charged_keys, '{}'), p_now_ms,
                                                 coalesce(charged_intervals, '{}'), coalesce(charged_bursts, '{}')) c) k
              on k.ord = x.ord
           order by x.ord;
      end $$;
    `);
  }
}
