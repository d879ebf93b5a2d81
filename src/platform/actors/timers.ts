/**
 * The durable-timer scheduler. Timers are rows of `timers` written by transitions (`scheduleTimer`,
 * `cancelTimer`); the database is the only record of them, so a restart loses none.
 *
 * Firing one timer is one transaction: claim the earliest due row with `for update skip locked`,
 * delete it, and send its event (plus `at`, the firing time) to its actor. A refused event means the
 * timer went stale (the actor moved on): it is consumed all the same. An error rolls the transaction
 * back and postpones the timer by `retryMs`, so one bad timer cannot block the others.
 *
 * Up to `concurrency` timers fire at once in a process (each its own transaction; more than one only
 * once the first claim found a timer due, so an idle check is one transaction): a thousand items due
 * in the same second were escalated one after another, one commit each, and the last 28 s late on
 * two processes (docs/performance.md, "Review decisions and deadlines under load"). A timer is not
 * claimed while an earlier one of the same actor is due (in flight in another transaction, its row
 * is still there for this one until that commits), so an actor's timers still fire in their order.
 */
import type { Db } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Clock } from '../util/clock.js';
import { coalescedRunner } from '../util/coalesce.js';
import { TIMER } from './acting-as.js';
import type { ActorHost } from './host.js';

export interface TimerSchedulerOptions {
  db: Db;
  host: ActorHost;
  clock: Clock;
  log: Logger;
  /** Longest sleep between checks (default 1 s). */
  pollMs?: number;
  /** How long a timer whose event failed waits before the next try (default 30 s). */
  retryMs?: number;
  /** How many timers fire at once in this process (default 4). */
  concurrency?: number;
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

const CLAIM = `
  delete from timers
   where (actor_kind, actor_id, timer_id) = (
     select t.actor_kind, t.actor_id, t.timer_id from timers t
      where t.due_at <= $1
        and not exists (
          select 1 from timers e
           where e.actor_kind = t.actor_kind and e.actor_id = t.actor_id
             and (e.due_at, e.timer_id) < (t.due_at, t.timer_id))
      order by t.due_at
      limit 1
      for update of t skip locked)
  returning actor_kind, actor_id, timer_id, org_id, event, due_at`;

/** Creates the scheduler (its loop starts with `start()`). */
export function createTimerScheduler(options: TimerSchedulerOptions): TimerScheduler {
  const { db, host, clock, log } = options;
  const pollMs = options.pollMs ?? 1_000;
  const retryMs = options.retryMs ?? 30_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  let running = false;
  let next: NodeJS.Timeout | null = null;

  /** Fires one timer due by `now`; false when none is. Its event's `at` is the time it fired. */
  async function fireOne(now: number): Promise<boolean> {
    const due = new Date(now).toISOString();
    let claimed: TimerRow | null = null;
    try {
      return await host.transact(async (tx) => {
        claimed = null;
        const row = await tx.sql.maybeOne<TimerRow>(CLAIM, [due]);
        if (!row) return false;
        claimed = row;
        const event = { ...row.event, at: new Date(Math.max(now, clock.now())).toISOString() };
        const result = await host.sendStored(
          tx,
          row.actor_kind,
          { orgId: row.org_id, id: row.actor_id },
          event,
          {
            actingAs: TIMER,
          },
        );
        if (result.outcome !== 'applied') {
          log.debug(
            { timer: row.timer_id, actor: row.actor_id, outcome: result.outcome },
            'stale timer consumed',
          );
        }
        return true;
      });
    } catch (error) {
      const row = claimed as TimerRow | null;
      if (!row) throw error;
      log.error(
        { err: error, timer: row.timer_id, actorKind: row.actor_kind, actorId: row.actor_id },
        'timer failed',
      );
      await db.query(
        'update timers set due_at = $4 where actor_kind = $1 and actor_id = $2 and timer_id = $3',
        [row.actor_kind, row.actor_id, row.timer_id, new Date(now + retryMs).toISOString()],
      );
      return true;
    }
  }

  /** Fires every timer due by now, `concurrency` at a time once one was found due. */
  async function runDue(): Promise<number> {
    const now = clock.now();
    let fired = 0;
    let failure: { error: unknown } | null = null;
    const draining: Array<Promise<void>> = [];
    const drain = async (): Promise<void> => {
      try {
        while (await fireOne(now)) {
          fired++;
          if (draining.length < concurrency) draining.push(drain());
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
