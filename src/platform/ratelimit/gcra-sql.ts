/**
 * The GCRA step of a whole batch of requests, as common table expressions that any statement can
 * embed (authentication takes its tokens' steps in the same statement that reads them).
 *
 * Terminology:
 * - entry: one request's step: `(ord, key, interval_ms, burst)`; entries of one bucket (key) in one
 *   batch share its policy (a batch reads each org's limits once; addresses use the defaults).
 * - hit: an entry's place among its bucket's entries, in arrival (`ord`) order, from 0.
 *
 * One upsert per bucket, in key order (two batches sharing buckets lock them in the same order, so
 * they never deadlock): under one `now`, a refusal leaves a bucket as it was, so the first `taken`
 * hits fit (r3_gcra_fits, migration 0007) and every later one is refused. Hit i < taken leaves the
 * bucket at `base + (i + 1) * interval`; a refused hit sees the bucket as the batch left it.
 */

/**
 * The CTEs `rate_hits (ord, key, interval_ms, hit)` and `rate_rows (key, tat_ms, taken)` over
 * `entries`, a relation with columns `ord, key, interval_ms, burst`; `now` is the SQL of the batch's
 * instant (epoch ms). Join `rate_hits h` on ord, then `rate_rows rr` on key, and select
 * `RATE_ALLOWED` and `RATE_TAT`. A bucket given two policies in one batch gets no row (its entries
 * no answer), which the caller treats as an error.
 */
export function rateStepCtes(entries: string, now: string): string {
  const base = `r3_gcra_base(r.tat_ms, r.interval_ms, r.burst, excluded.interval_ms, excluded.burst, ${now})`;
  const fits = `r3_gcra_fits(${base}, ${now}, excluded.interval_ms, excluded.burst, excluded.taken)`;
  return `rate_hits as (
  select s.ord, s.key, s.interval_ms, s.burst,
         row_number() over (partition by s.key order by s.ord) - 1 as hit
    from ${entries} s
), rate_rows as (
  -- A new bucket is full: min(n, burst) of its n hits fit. On an existing one, excluded.taken
  -- carries that cap into the step.
  insert into rate_limits as r (key, tat_ms, interval_ms, burst, taken)
  select h.key, ${now} + least(count(*)::integer, min(h.burst)) * min(h.interval_ms), min(h.interval_ms),
         min(h.burst), least(count(*)::integer, min(h.burst))
    from rate_hits h
   group by h.key
  having count(distinct (h.interval_ms, h.burst)) = 1
   order by h.key
  on conflict (key) do update set
    taken = ${fits},
    tat_ms = ${base} + ${fits} * excluded.interval_ms,
    interval_ms = excluded.interval_ms,
    burst = excluded.burst
  returning r.key, r.tat_ms, r.taken
)`;
}

/** Whether hit `h` fit its bucket `rr`. */
export const RATE_ALLOWED = 'h.hit < rr.taken';

/** The bucket's theoretical arrival time as hit `h` left (or, refused, found) it. */
export const RATE_TAT = 'rr.tat_ms - greatest(rr.taken - 1 - h.hit, 0) * h.interval_ms';

/**
 * One step per key of `$1` (text[]) at `$2` (epoch ms) under one policy: `$3` interval ms, `$4`
 * burst. Answers `(ord, allowed, tat_ms)` per key, in order.
 */
export const RATE_TAKE_BATCH = `with entries as (
  select x.ord, x.key, $3::double precision as interval_ms, $4::integer as burst
    from unnest($1::text[]) with ordinality as x(key, ord)
), ${rateStepCtes('entries', '$2::double precision')}
select h.ord, ${RATE_ALLOWED} as allowed, ${RATE_TAT} as tat_ms
  from rate_hits h join rate_rows rr on rr.key = h.key
 order by h.ord`;
