/**
 * growth.ts: a table is analyzed each time the rows the process inserted into it double, from
 * `from` to `until`, one ANALYZE at a time per table.
 */
import { describe, expect, it } from 'vitest';
import { createGrowthStatistics } from '../../../src/platform/db/growth.js';
import type { Db } from '../../../src/platform/db/sql.js';
import { createLogger } from '../../../src/platform/log.js';

function fakeDb() {
  const statements: string[] = [];
  const pending: Array<() => void> = [];
  const db = {
    query: (text: string) => {
      statements.push(text);
      return new Promise<never[]>((resolve) => pending.push(() => resolve([])));
    },
  } as unknown as Db;
  const settle = async () => {
    for (const done of pending.splice(0)) done();
    await new Promise((r) => setImmediate(r));
  };
  return { db, statements, settle };
}

describe('growth statistics', () => {
  it('analyzes a table as its inserted rows double, from `from` until `until`', async () => {
    const { db, statements, settle } = fakeDb();
    const growth = createGrowthStatistics({ db, log: createLogger('silent'), from: 4, until: 32 });
    const inserted: number[] = [];
    for (let n = 1; n <= 100; n++) {
      const before = statements.length;
      growth.grew('runs', 1);
      if (statements.length > before) inserted.push(n);
      await settle();
    }
    expect(inserted).toEqual([4, 8, 16, 32]);
    expect(new Set(statements)).toEqual(new Set(['analyze runs']));
  });

  it('runs one ANALYZE of a table at a time, and counts tables apart', async () => {
    const { db, statements, settle } = fakeDb();
    const growth = createGrowthStatistics({ db, log: createLogger('silent'), from: 2 });
    growth.grew('jobs', 2);
    growth.grew('jobs', 2); // 4: a threshold, but the first ANALYZE is still running
    growth.grew('runs', 3);
    expect(statements).toEqual(['analyze jobs', 'analyze runs']);
    await settle();
    growth.grew('jobs', 4); // 8
    expect(statements).toEqual(['analyze jobs', 'analyze runs', 'analyze jobs']);
  });

  it('refuses a table name that is not a plain identifier', () => {
    const { db } = fakeDb();
    const growth = createGrowthStatistics({ db, log: createLogger('silent') });
    expect(() => growth.grew('runs; drop table runs', 1)).toThrow(/unsafe table name/);
  });
});
