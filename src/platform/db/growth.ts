/**
 * Planner statistics for tables that grow fast from empty: a fresh install's first burst, and every
 * benchmark. The pool's sessions plan each hot statement once, generically, and keep that plan (see
 * `sqlOver`); a plan made while a table was empty reads the whole table (a sequential scan is the
 * cheapest way through ten pages) and stays while the table grows to thousands of rows, until
 * something invalidates it. Autovacuum's ANALYZE would, but it looks once a minute and only after a
 * tenth of the table changed. So the process counts the rows it inserts into such a table and
 * analyzes the table itself each time that count doubles, from `from` rows to `until` (past which
 * the table is big enough for autovacuum's pace): about fourteen ANALYZEs of a table in its life,
 * each a few milliseconds on a small table, in the background, one at a time per table. ANALYZE
 * invalidates the cached plans over the table: every session plans them again, for its new size.
 *
 * Each samples `statisticsTarget` × 300 rows (default 10: 3,000 rows), not the server's default
 * 30,000: what these ANALYZEs are for is the table's size and the rough shape of its keys, which
 * a small sample gives, and the full one took a large part of PostgreSQL's statement time while runs
 * were accepted fast (docs/performance.md, "The growth ANALYZEs"). The target holds for that ANALYZE
 * alone (`set local`); autovacuum's later ones use the server's.
 */
import type { Logger } from '../log.js';
import type { Db } from './sql.js';

const IDENT = /^[a-z_][a-z0-9_]*$/;

export interface GrowthStatistics {
  /** `rows` rows were inserted into `table` (a plain lower-case table name). */
  grew(table: string, rows: number): void;
}

export function createGrowthStatistics(options: {
  db: Db;
  log: Logger;
  /** Rows inserted before the first ANALYZE (default 128). */
  from?: number;
  /** Rows inserted past which the process no longer analyzes (default 2²¹). */
  until?: number;
  /** The statistics target of these ANALYZEs (default 10; the server's default is 100). */
  statisticsTarget?: number;
}): GrowthStatistics {
  const { db, log } = options;
  const from = options.from ?? 128;
  const until = options.until ?? 2 ** 21;
  const target = Math.trunc(options.statisticsTarget ?? 10);
  if (!(target >= 1 && target <= 10_000)) throw new Error(`statistics target ${target} is not in 1..10000`);
  const tables = new Map<string, { inserted: number; next: number; running: boolean }>();

  return {
    grew(table, rows) {
      let entry = tables.get(table);
      if (!entry) {
        if (!IDENT.test(table)) throw new Error(`unsafe table name ${JSON.stringify(table)}`);
        entry = { inserted: 0, next: from, running: false };
        tables.set(table, entry);
      }
      entry.inserted += rows;
      if (entry.inserted < entry.next || entry.next > until) return;
      while (entry.next <= entry.inserted) entry.next *= 2;
      if (entry.running) return;
      const analyzing = entry;
      analyzing.running = true;
      db.tx(async (sql) => {
        await sql.query(`set local default_statistics_target = ${target}`);
        await sql.query(`analyze ${table}`);
      })
        .catch((error: unknown) => log.warn({ err: error, table }, 'analyze of a growing table failed'))
        .finally(() => {
          analyzing.running = false;
        });
    },
  };
}
