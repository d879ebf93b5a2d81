/**
 * The id allocator: unique ids in blocks, and no deadlock when every pooled connection is in a
 * transaction that needs an id while a refill on the pool itself waits for a connection (what
 * requiresApproval triggers under load did: the single-statement path refills on the pool, the
 * transactional path on its own connection).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdAllocator } from '../../../src/platform/actors/ids.js';
import { type Database, openDatabase } from '../../../src/platform/db/database.js';
import type { Db } from '../../../src/platform/db/sql.js';
import { createLogger } from '../../../src/platform/log.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { countingSql } from '../../helpers/sql.js';

let database: TestDatabase;
let opened: Database;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  opened = await openDatabase(database.url, { poolSize: 2, log: createLogger('silent'), migrations: [] });
  db = opened.sql;
  await db.query('create sequence ids_test_seq');
});
afterAll(async () => {
  await opened.close();
  await database.drop();
});

describe('the id allocator', () => {
  it('hands out unique ids, one round trip per block', async () => {
    const ids = createIdAllocator(4);
    const got = await Promise.all(Array.from({ length: 10 }, () => ids.next('ids_test_seq', db)));
    expect(new Set(got).size).toBe(10);
  });

  it('takes bigger blocks while they run out fast, up to the largest', async () => {
    const ids = createIdAllocator(4, 64);
    const counting = countingSql(db);
    const got: number[] = [];
    for (let i = 0; i < 300; i++) got.push(await ids.next('ids_test_seq', counting.sql));
    expect(new Set(got).size).toBe(300);
    expect(got).toEqual([...got].sort((a, b) => a - b));
    const sizes = counting.statements.map((s) => s.values[1]);
    expect(sizes.slice(0, 6)).toEqual([4, 8, 16, 32, 64, 64]);
    expect(sizes.length).toBe(8);
  });

  it('does not make a transaction wait for a refill that waits for its connection', async () => {
    const ids = createIdAllocator(4);
    // Both connections are taken by transactions that have not asked for an id yet…
    const gates: Array<() => void> = [];
    const transactions = [0, 1].map((i) =>
      db.tx(async (sql) => {
        await sql.query('select 1');
        await new Promise<void>((resolve) => {
          gates[i] = resolve;
        });
        return ids.next('ids_test_seq', sql);
      }),
    );
    while (gates.filter(Boolean).length < 2) {
      await new Promise((r) => setTimeout(r, 5));
    }
    // …when a caller without a transaction starts a refill on the pool: it waits for a connection.
    const fromPool = ids.next('ids_test_seq', db);
    await new Promise((r) => setTimeout(r, 20));
    // The transactions now ask for ids: they must refill on their own connections, not wait.
    for (const open of gates) open();
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('deadlocked: the transactions waited for the pool refill')), 5_000),
    );
    const got = await Promise.race([Promise.all([...transactions, fromPool]), timeout]);
    expect(new Set(got).size).toBe(3);
  });
});
