/**
 * The pool's sessions (src/platform/db/sql.ts): named prepared statements are planned generically, always, so
 * a batched statement is not planned anew for every batch size it meets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../../src/platform/db/sql.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.url, { max: 2 });
});
afterAll(async () => {
  await db?.pool.end();
  await database?.drop();
});

describe('the pool', () => {
  it('plans prepared statements generically', async () => {
    const [row] = await db.query<{ mode: string }>(`select current_setting('plan_cache_mode') as mode`);
    expect(row?.mode).toBe('force_generic_plan');
  });

  it('keeps one generic plan for a batched statement whatever the batch size', async () => {
    const text = 'select x.v from unnest($1::int[]) with ordinality as x(v, ord) order by x.ord';
    const client = await db.pool.connect();
    try {
      for (const size of [1, 2, 50, 1, 3, 1, 1, 200]) {
        const values = Array.from({ length: size }, (_, i) => i);
        const { rows } = await client.query({ name: 'pool_test_batch', text, values: [values] });
        expect(rows.map((r: { v: number }) => r.v)).toEqual(values);
      }
      const { rows } = await client.query<{ generic_plans: number; custom_plans: number }>(
        `select generic_plans, custom_plans from pg_prepared_statements where name = 'pool_test_batch'`,
      );
      expect(rows[0]).toEqual({ generic_plans: 8, custom_plans: 0 });
    } finally {
      client.release();
    }
  });
});
