import { Migration } from '@mikro-orm/migrations';

/**
 * Rate limiting for a whole batch of requests in one statement (src/platform/ratelimit/gcra-sql.ts):
 * concurrent requests share one round trip instead of making one each.
 *
 * A bucket's requests of one batch are charged with one upsert of its row: under a single `now`, a
 * refusal leaves the bucket as it was, so once one request of a bucket is refused every later one
 * in the batch is too, and the count that fits has a closed form. `taken` records how many requests
 * the row's last write admitted, so the statement can hand each request its own answer from the
 * row it returns. The two functions below are plain SQL expressions: the planner inlines them.
 *
 * The single-request functions of 0001 (`r3_rate_take`, `r3_authenticate`) stay for nodes of the
 * previous release during a rolling upgrade; `taken` defaults to 0 for them.
 */
export class Migration0007BatchedAuth extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table rate_limits add column taken integer not null default 0;

      -- Where a bucket's next step starts (its theoretical arrival time, not before now): a bucket
      -- filled under another policy starts full, so a changed limit applies at once.
      create function r3_gcra_base(p_tat_ms double precision, p_row_interval_ms double precision,
                                   p_row_burst integer, p_interval_ms double precision, p_burst integer,
                                   p_now_ms double precision)
      returns double precision language sql immutable as $$
        select greatest(case when p_row_interval_ms = p_interval_ms and p_row_burst = p_burst
                             then p_tat_ms else p_now_ms end, p_now_ms)
      $$;

      -- How many of p_n steps starting at p_base_ms fit a bucket of p_burst at p_now_ms. The epsilon
      -- is r3_rate_take's: exactly p_burst requests fit a full bucket.
      create function r3_gcra_fits(p_base_ms double precision, p_now_ms double precision,
                                   p_interval_ms double precision, p_burst integer, p_n integer)
      returns integer language sql immutable as $$
        select greatest(0, least(p_n,
          floor((p_interval_ms * p_burst + 1e-6 - (p_base_ms - p_now_ms)) / p_interval_ms)::integer))
      $$;
    `);
  }
}
