/**
 * growth.ts: a table is analyzed each time the rows the process inserted into it double, from
 * `from` to `until`, one ANALYZE at a time per table, each sampling at its small statistics target
 * (on a real PostgreSQL: the histogram it leaves has that many buckets, and the session's target is
 * untouched afterwards).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../src/platform/db/database.js';
import { createGrowthStatistics } from '../../../src/platform/db/growth.js';
import type { Db } from '../../../src/platform/db/sql.js';
import { createLogger } from '../../../src/platform/log.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

function fakeDb() {
  const statements: string[] = [];
  const pending: Array<() => void> = [];
  // Each ANALYZE is a transaction of two statements; the fake records the ANALYZE and holds the
  // transaction open until `settle`.
  const db = {
    tx: async (fn: (sql: { query(text: string): Promise<never[]> }) => Promise<unknown>) =>
      fn({
        query: (text: string) => {
          if (text.startsWith('set local')) return Promise.resolve([]);
          statements.push(text);
          return new Promise<never[]>((resolve) => pending.push(() => resolve([])));
        },
      }),
  } as unknown as Db;
  const turn = () => new Promise((r) => setImmediate(r));
  const settle = async () => {
    for (const done of pending.splice(0)) done();
    await turn();
  };
  return { db, statements, settle, turn };
}

describe('growth statistics', () => {
  it('analyzes a table as its inserted rows double, from `from` until `until`', async () => {
    const { db, statements, settle, turn } = fakeDb();
    const growth = createGrowthStatistics({ db, log: createLogger('silent'), from: 4, until: 32 });
    const inserted: number[] = [];
    for (let n = 1; n <= 100; n++) {
      const before = statements.length;
      growth.grew('runs', 1);
      await turn();
      if (statements.length > before) inserted.push(n);
      await settle();
    }
    expect(inserted).toEqual([4, 8, 16, 32]);
    expect(new Set(statements)).toEqual(new Set(['analyze runs']));
  });

  it('runs one ANALYZE of a table at a time, and counts tables apart', async () => {
    const { db, statements, settle, turn } = fakeDb();
    const growth = createGrowthStatistics({ db, log: createLogger('silent'), from: 2 });
    growth.grew('jobs', 2);
    growth.grew('jobs', 2); // 4: a threshold, but the first ANALYZE is still running
    growth.grew('runs', 3);
    await turn();
    expect(statements).toEqual(['analyze jobs', 'analyze runs']);
    await settle();
    growth.grew('jobs', 4); // 8
    await turn();
    expect(statements).toEqual(['analyze jobs', 'analyze runs', 'analyze jobs']);
  });

  it('refuses a table name that is not a plain identifier, and a target out of range', () => {
    const { db } = fakeDb();
    const growth = createGrowthStatistics({ db, log: createLogger('silent') });
    expect(() => growth.grew('runs; drop table runs', 1)).toThrow(/unsafe table name/);
    expect(() => createGrowthStatistics({ db, log: createLogger('silent'), statisticsTarget: 0 })).toThrow(
      /statistics target/,
    );
  });
});

describe('growth statistics on PostgreSQL', () => {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openDatabase(database.url, { poolSize: 1, log: createLogger('silent'), migrations: [] });
    await db.sql.query('create table growing (id bigint primary key, n integer)');
    await db.sql.query('insert into growing select g, g % 1000 from generate_series(1, 20000) g');
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('samples at its own statistics target, for that ANALYZE only', async () => {
    const growth = createGrowthStatistics({
      db: db.sql,
      log: createLogger('silent'),
      from: 2,
      statisticsTarget: 10,
    });
    growth.grew('growing', 2);
    let buckets = 0;
    for (let i = 0; i < 200 && buckets === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const [row] = await db.sql.query<{ buckets: number | null }>(
        `select array_length(histogram_bounds::text::text[], 1) as buckets
           from pg_stats where tablename = 'growing' and attname = 'id'`,
      );
      buckets = row?.buckets ?? 0;
    }
    // A target of 10 leaves 11 bounds (the server's default, 100, would leave 101).
    expect(buckets).toBe(11);
    const [setting] = await db.sql.query<{ target: string }>(
      `select current_setting('default_statistics_target') as target`,
    );
    expect(setting?.target).toBe('100');
  });
});
