/**
 * The durable-timer scheduler. Timers are rows of `timers` written by transitions (`scheduleTimer`,
 * `cancelTimer`); the database is the only record of them, so a restart loses none.
 *
 * Timers fire in batches: one transaction claims up to `batchSize` due rows with `for update skip
 * locked` (at most one per actor: the earliest), deletes them, and sends each its event (plus `at`,
 * the firing time) — the actors' locked loads pipelined in one write, their transitions written with
 * one statement per kind and the decision ledger's entries with one insert (`sendStoredMany`), one
 * commit for the batch. A refused event means the timer went stale (the actor moved on): it is
 * consumed all the same. When the batch's transaction fails, its timers are fired again one by one,
 * each in its own transaction, so one bad timer cannot take the others down: an error there rolls
 * that one back and postpones it by `retryMs`.
 *
 * A thousand items due in the same second were escalated one transaction each (a claim, a load, the
 * write, the ledger's insert, a commit, each paid in r3's and PostgreSQL's CPU) — batches share those
 * costs (docs/performance.md, "Escalations in batches"). Up to `concurrency` batches fire at once in a process
 * (more than one only once a batch came back full, so an idle check is one transaction). A timer is
 * not claimed while an earlier one of the same actor is due (in flight in another transaction, its
 * row is still there for this one until that commits), so an actor's timers fire in their order.
 */
import type { Db } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Clock } from '../util/clock.js';
import { coalescedRunner } from '../util/coalesce.js';
import { TIMER } from './acting-as.js';
import type { ActorHost } from './host.js';
import type { ActorTx } from './tx.js';

export interface TimerSchedulerOptions {
  db: Db;
  host: ActorHost;
  clock: Clock;
  log: Logger;
  /** Longest sleep between checks (default 1 s). */
  pollMs?: number;
  /** How long a timer whose event failed waits before the next try (default 30 s). */
  retryMs?: number;
  /** How many batches fire at once in this process (default 4). */
  concurrency?: number;
  /** How many timers one transaction fires at most (default 32). */
  batchSize?: number;
}

/** The scheduler. */
export interface TimerScheduler {
  /** Fires every timer due at the clock's now; resolves with how many fired (tests drive this). */
  runDue(): Promise<number>;
  /** Asks the running loop to check now (a transition scheduled a timer). */
  wake(): void;
  start(): void;
  stop(): Promise<void>;
}

interface TimerRow {
  actor_kind: string;
  actor_id: number;
  timer_id: string;
  org_id: number;
  event: { type: string; [key: string]: unknown };
  due_at: Date;
}

const EARLIER_OF_SAME_ACTOR = `
        and not exists (
          select 1 from timers e
           where e.actor_kind = t.actor_kind and e.actor_id = t.actor_id
             and (e.due_at, e.timer_id) < (t.due_at, t.timer_id))`;

/** The claimed rows, as `TimerRow`; `d` names `timers` in the statement's DELETE. */
const RETURNING = 'returning d.actor_kind, d.actor_id, d.timer_id, d.org_id, d.event, d.due_at';

/** Up to $2 due timers, the earliest of each actor, skipping those another transaction holds. */
const CLAIM = `
  with claimed as (
    select t.actor_kind, t.actor_id, t.timer_id from timers t
     where t.due_at <= $1 ${EARLIER_OF_SAME_ACTOR}
     order by t.due_at
     limit $2
     for update of t skip locked)
  delete from timers d using claimed c
   where (d.actor_kind, d.actor_id, d.timer_id) = (c.actor_kind, c.actor_id, c.timer_id)
  ${RETURNING}`;

/** One timer by its key, if it is still due and no one holds it (a failed batch's, fired alone). */
const CLAIM_ONE = `
  delete from timers d
   where (d.actor_kind, d.actor_id, d.timer_id) = (
     select t.actor_kind, t.actor_id, t.timer_id from timers t
      where t.actor_kind = $2 and t.actor_id = $3 and t.timer_id = $4 and t.due_at <= $1
        ${EARLIER_OF_SAME_ACTOR}
      for update of t skip locked)
  ${RETURNING}`;

/** Creates the scheduler (its loop starts with `start()`). */
export function createTimerScheduler(options: TimerSchedulerOptions): TimerScheduler {
  const { db, host, clock, log } = options;
  const pollMs = options.pollMs ?? 1_000;
  const retryMs = options.retryMs ?? 30_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const batchSize = Math.max(1, options.batchSize ?? 32);
  let running = false;
  let next: NodeJS.Timeout | null = null;

  /** Sends the claimed `rows`' events in `tx`, a statement per kind; `now`: when they fire. */
  async function send(tx: ActorTx, rows: readonly TimerRow[], now: number): Promise<void> {
    const at = new Date(Math.max(now, clock.now())).toISOString();
    const byKind = new Map<string, TimerRow[]>();
    for (const row of rows) {
      const list = byKind.get(row.actor_kind);
      if (list) list.push(row);
      else byKind.set(row.actor_kind, [row]);
    }
    for (const [kind, list] of byKind) {
      const results = await host.sendStoredMany(
        tx,
        kind,
        list.map((row) => ({
          ref: { orgId: row.org_id, id: row.actor_id },
          event: { ...row.event, at },
          // Locked: a decision at the same moment waits for the batch instead of failing it.
          options: { actingAs: TIMER, lock: true },
        })),
      );
      for (const [i, result] of results.entries()) {
        if (result.outcome === 'applied') continue;
        const row = list[i] as TimerRow;
        log.debug(
          { timer: row.timer_id, actor: row.actor_id, outcome: result.outcome },
          'stale timer consumed',
        );
      }
    }
  }

  /** Fires one timer of a failed batch alone; an error postpones it by `retryMs`. */
  async function fireAlone(key: TimerRow, now: number): Promise<number> {
    const due = new Date(now).toISOString();
    try {
      return await host.transact(async (tx) => {
        const row = await tx.sql.maybeOne<TimerRow>(CLAIM_ONE, [
          due,
          key.actor_kind,
          key.actor_id,
          key.timer_id,
        ]);
        if (!row) return 0;
        await send(tx, [row], now);
        return 1;
      });
    } catch (error) {
      log.error(
        { err: error, timer: key.timer_id, actorKind: key.actor_kind, actorId: key.actor_id },
        'timer failed',
      );
      await db.query(
        'update timers set due_at = $4 where actor_kind = $1 and actor_id = $2 and timer_id = $3',
        [key.actor_kind, key.actor_id, key.timer_id, new Date(now + retryMs).toISOString()],
      );
      return 1;
    }
  }

  /** Fires a batch of timers due by `now`; how many it took (0: none is due). */
  async function fireBatch(now: number): Promise<number> {
    const due = new Date(now).toISOString();
    let claimed: TimerRow[] = [];
    try {
      return await host.transact(async (tx) => {
        claimed = [];
        const rows = await tx.sql.query<TimerRow>(CLAIM, [due, batchSize]);
        if (rows.length === 0) return 0;
        claimed = rows;
        // In due order: the ledger's entries and the outbox's events follow it.
        rows.sort((a, b) => a.due_at.getTime() - b.due_at.getTime() || a.actor_id - b.actor_id);
        await send(tx, rows, now);
        return rows.length;
      });
    } catch (error) {
      if (claimed.length === 0) throw error;
      log.warn({ err: error, timers: claimed.length }, 'timer batch failed; firing its timers one by one');
      let fired = 0;
      for (const row of claimed) fired += await fireAlone(row, now);
      return fired;
    }
  }

  /** Fires every timer due by now, up to `concurrency` batches at a time once one came back full. */
  async function runDue(): Promise<number> {
    const now = clock.now();
    let fired = 0;
    let failure: { error: unknown } | null = null;
    const draining: Array<Promise<void>> = [];
    const drain = async (): Promise<void> => {
      try {
        for (let n = await fireBatch(now); n > 0; n = await fireBatch(now)) {
          fired += n;
          if (n >= batchSize && draining.length < concurrency) draining.push(drain());
        }
      } catch (error) {
        failure ??= { error };
      }
    };
    draining.push(drain());
    // Drains started meanwhile are awaited too.
    for (let settled = 0; settled < draining.length; ) {
      const started = draining.slice(settled);
      settled = draining.length;
      await Promise.all(started);
    }
    if (failure) throw (failure as { error: unknown }).error;
    return fired;
  }

  /** Sleeps until the next timer is due (at most `pollMs`), then checks again. */
  async function scheduleNext(): Promise<void> {
    if (!running) return;
    const row = await db.maybeOne<{ due_at: Date | null }>('select min(due_at) as due_at from timers');
    const wait = row?.due_at ? Math.max(0, Math.min(pollMs, row.due_at.getTime() - clock.now())) : pollMs;
    if (!running) return;
    if (next) clearTimeout(next);
    next = setTimeout(wake, wait);
    next.unref();
  }

  const loop = coalescedRunner({
    run: async () => {
      await runDue();
    },
    active: () => running,
    onError: (error) => log.error({ err: error }, 'timer scheduler failed; retrying on the next poll'),
    after: () => scheduleNext().catch((error) => log.warn({ err: error }, 'timer scheduling failed')),
  });
  const wake = (): void => loop.trigger();

  return {
    runDue,
    wake,
    start() {
      if (running) return;
      running = true;
      wake();
    },
    async stop() {
      running = false;
      if (next) clearTimeout(next);
      next = null;
      await loop.current;
    },
  };
}
