/**
 * When a `schedule` trigger is due, by croner: five fields (minute precision) or six (a leading second
 * field), read in UTC (the manifest has no time zone). Evaluation only: nothing here starts a timer;
 * the due times live in the database (schedules.ts).
 */
import { Cron } from 'croner';

/** The due times of one cron expression. */
export interface CronTimes {
  /** The first due time strictly after `after` (epoch ms), or null when there is none. */
  next(after: number): number | null;
  /** The last due time at or before `at` (epoch ms), or null when there is none. */
  latest(at: number): number | null;
}

/** The due times of `expression` (already accepted by the workspace's `cronError`). */
export function cronTimes(expression: string): CronTimes {
  const cron = new Cron(expression.trim(), { mode: '5-or-6-parts', timezone: 'UTC' });
  return {
    next(after) {
      return cron.nextRun(new Date(after))?.getTime() ?? null;
    },
    latest(at) {
      // previousRuns looks strictly before its reference; due times are whole seconds.
      return cron.previousRuns(1, new Date(at + 1))[0]?.getTime() ?? null;
    },
  };
}
