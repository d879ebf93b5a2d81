/**
 * The process's one pool (src/platform/db/database.ts, src/platform/db/sql.ts): MikroORM's, shared
 * by plain SQL and the ORM, at most `poolSize` sessions; named prepared statements are planned
 * generically, always, so a batched statement is not planned anew for every batch size it meets.
 * Beside it, the hot reads' sessions (src/platform/db/hot-reads.ts): at most `size` of r3's own,
 * with the pool's settings, reused, first come first served when all are lent; a session whose
 * backend died is replaced, not lent again; closing ends them and refuses borrowers.
 */
import { Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, openDatabase } from '../../../src/platform/db/database.js';
import { hotReadConnections } from '../../../src/platform/db/hot-reads.js';
import { plannedForValues, sqlOver } from '../../../src/platform/db/sql.js';
import { createLogger } from '../../../src/platform/log.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { recordStatements } from '../../helpers/statements.js';

const original = pg.Client.prototype.query;
let database: TestDatabase;
let db: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  db = await openDatabase(database.url, { poolSize: 2, log: createLogger('silent'), migrations: [] });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const ormRows = <T>(text: string) => db.orm.em.getConnection().execute<T[]>(text);

describe('the pool', () => {
  it('plans prepared statements generically, for plain SQL and the ORM alike', async () => {
    const [row] = await db.sql.query<{ mode: string }>(`select current_setting('plan_cache_mode') as mode`);
    expect(row?.mode).toBe('force_generic_plan');
    const [orm] = await ormRows<{ mode: string; app: string }>(
      `select current_setting('plan_cache_mode') as mode, current_setting('application_name') as app`,
    );
    expect(orm).toEqual({ mode: 'force_generic_plan', app: 'r3' });
  });

  it('keeps one generic plan for a batched statement whatever the batch size', async () => {
    const text = 'select x.v from unnest($1::int[]) with ordinality as x(v, ord) order by x.ord';
    await db.sql.tx(async (sql) => {
      for (const size of [1, 2, 50, 1, 3, 1, 1, 200]) {
        const values = Array.from({ length: size }, (_, i) => i);
        const rows = await sql.prepared<{ v: number }>('pool_test_batch', text, [values]);
        expect(rows.map((r) => r.v)).toEqual(values);
      }
      const rows = await sql.query(
        `select generic_plans, custom_plans from pg_prepared_statements where name = 'pool_test_batch'`,
      );
      expect(rows[0]).toEqual({ generic_plans: 8, custom_plans: 0 });
    });
  });

  it('is one pool: the ORM and plain SQL take turns on the same sessions, never more than poolSize', async () => {
    const pid = 'select pg_backend_pid() as pid';
    const [fromSql] = await db.sql.query<{ pid: number }>(pid);
    const [fromOrm] = await ormRows<{ pid: number }>(pid);
    expect(fromOrm?.pid).toBe(fromSql?.pid);
    const busy = `select pg_backend_pid() as pid, pg_sleep(0.01)`;
    const pids = await Promise.all([
      ...Array.from({ length: 6 }, () => db.sql.one<{ pid: number }>(busy)),
      ...Array.from({ length: 6 }, async () => (await ormRows<{ pid: number }>(busy))[0] as { pid: number }),
    ]);
    expect(new Set(pids.map((r) => r.pid)).size).toBeLessThanOrEqual(2);
  });

  it('plans a statement for its values in a transaction whose settings are local to it', async () => {
    const settings = `select current_setting('plan_cache_mode') as mode, current_setting('work_mem') as mem,
                              current_setting('transaction_isolation') as isolation, $1::int as n`;
    const [row] = await plannedForValues(db.sql, settings, [7], ["work_mem = '1234kB'"]);
    expect(row).toEqual({ mode: 'force_custom_plan', mem: '1234kB', isolation: 'read committed', n: 7 });
    const [serializable] = await db.sql.tx((sql) => sql.query(settings, [8]), {
      isolation: 'serializable',
      settings: ["work_mem = '2345kB'"],
    });
    expect(serializable).toEqual({
      mode: 'force_generic_plan',
      mem: '2345kB',
      isolation: 'serializable',
      n: 8,
    });
    // Both sessions of the pool are back to their own settings.
    const after = await Promise.all(
      [0, 1].map(() => db.sql.one<{ mode: string; mem: string }>(settings, [9])),
    );
    for (const session of after) {
      expect(session.mode).toBe('force_generic_plan');
      expect(['1234kB', '2345kB']).not.toContain(session.mem);
    }
  });

  it("sends a transaction's BEGIN with its first statement (pipelined), which still runs inside it", async () => {
    await db.sql.query('create table if not exists pool_test_tx (n int)');
    const calls: string[] = [];
    const pipelined = new Set<boolean>();
    let begun = false;
    const query = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
      const sent = original.apply(this, args as never) as unknown;
      // A pipelining connection writes a statement at once, not after the answers before it.
      pipelined.add((this as unknown as { pipeline: boolean }).pipeline);
      if (text.startsWith('begin')) {
        calls.push('begin');
        void (sent as Promise<unknown>).then(() => {
          begun = true;
        });
      } else calls.push(`${text.split(' ')[0]} ${begun ? 'after' : 'before'} BEGIN answered`);
      return sent as never;
    });
    const error = await db.sql
      .tx(async (sql) => {
        await sql.query('insert into pool_test_tx values (1)');
        throw new Error('rolled back');
      })
      .catch((e: unknown) => e);
    query.mockRestore();
    expect(String(error)).toContain('rolled back');
    expect(calls.slice(0, 2)).toEqual(['begin', 'insert before BEGIN answered']);
    expect([...pipelined]).toEqual([true]);
    expect(await db.sql.query('select n from pool_test_tx')).toEqual([]);
  });

  it('fails a transaction whose settings fail with their error, writing nothing (one that does not parse too)', async () => {
    await db.sql.query('create table if not exists pool_test_tx (n int)');
    for (const [setting, message] of [
      ["statement_timeout = 'bogus'", 'invalid value for parameter "statement_timeout"'],
      ["statement_timeout = 'unterminated", 'unterminated quoted string'],
    ] as const) {
      const error = await db.sql
        .tx((sql) => sql.query('insert into pool_test_tx values (2)'), { settings: [setting] })
        .catch((e: unknown) => e);
      expect(String(error)).toContain(message);
      expect(await db.sql.query('select n from pool_test_tx')).toEqual([]);
    }
  });

  it('sends the COMMIT behind statements whose answers wait for it, failing with their error, writing nothing', async () => {
    await db.sql.query('create table if not exists pool_test_commit (n int)');
    const slow = 'insert into pool_test_commit select 1 from pg_sleep(0.05)';
    const { order } = await recordStatements(() =>
      db.sql.tx(async (sql) => {
        sql.atCommit?.(sql.query(slow));
      }),
    );
    expect(order.indexOf('sent commit')).toBeGreaterThan(order.indexOf(`sent ${slow}`));
    expect(order.indexOf('sent commit')).toBeLessThan(order.indexOf(`answered ${slow}`));
    expect(await db.sql.query('select n from pool_test_commit')).toEqual([{ n: 1 }]);

    const error = await db.sql
      .tx(async (sql) => {
        await sql.query('insert into pool_test_commit values (2)');
        sql.atCommit?.(
          sql.query('insert into pool_test_commit values (1 / (select count(*) - 2 from pool_test_commit))'),
        );
      })
      .catch((e: unknown) => e);
    expect(String(error)).toContain('division by zero');
    expect(await db.sql.query('select n from pool_test_commit')).toEqual([{ n: 1 }]);
  });

  it("tells commit observers each committed COMMIT's time, the statements it waits for included, until stopped", async () => {
    await db.sql.query('create table if not exists pool_test_observed (n int)');
    const seen: number[] = [];
    const stop = db.sql.observeCommits((seconds) => seen.push(seconds));
    try {
      await db.sql.tx((sql) => sql.query('insert into pool_test_observed values (1)'));
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeGreaterThan(0);
      // The COMMIT goes out behind a statement of 50 ms whose answer it waits for.
      await db.sql.tx(async (sql) => {
        sql.atCommit?.(sql.query('insert into pool_test_observed select 2 from pg_sleep(0.05)'));
      });
      expect(seen).toHaveLength(2);
      expect(seen[1]).toBeGreaterThanOrEqual(0.045);
      // Rolled back: no COMMIT.
      await expect(
        db.sql.tx(async (sql) => {
          await sql.query('insert into pool_test_observed values (3)');
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      // A failed statement turned the COMMIT into a rollback: not a commit either.
      await expect(
        db.sql.tx(async (sql) => {
          sql.atCommit?.(sql.query('insert into pool_test_observed values (1 / 0)'));
        }),
      ).rejects.toThrow('division by zero');
      expect(seen).toHaveLength(2);
    } finally {
      stop();
    }
    await db.sql.tx((sql) => sql.query('insert into pool_test_observed values (4)'));
    expect(seen).toHaveLength(2);
  });

  it('writes the statements a transaction sends in one turn to the socket at once', async () => {
    const writes = vi.spyOn(Socket.prototype, 'write');
    try {
      await db.sql.tx(async (sql) => {
        writes.mockClear();
        let flushed = 0;
        // pg writes each message with write(); a corked socket hands them to the kernel together.
        const writev = vi.spyOn(Socket.prototype as unknown as { _writev: () => void }, '_writev');
        const single = vi.spyOn(Socket.prototype as unknown as { _write: () => void }, '_write');
        try {
          await Promise.all([sql.query('select 1'), sql.query('select 2'), sql.query('select 3')]);
          flushed = writev.mock.calls.length + single.mock.calls.length;
        } finally {
          writev.mockRestore();
          single.mockRestore();
        }
        expect(writes.mock.calls.length).toBeGreaterThanOrEqual(3);
        expect(flushed).toBe(1);
      });
    } finally {
      writes.mockRestore();
    }
  });

  it('parses plain SQL results with pg’s parsers (timestamptz as a Date, int8 as a number)', async () => {
    const row = await db.sql.one<{ at: unknown; n: unknown }>(`select now() as at, 2::int8 as n`);
    expect(row.at).toBeInstanceOf(Date);
    expect(row.n).toBe(2);
  });

  it('closes a session whose work failed instead of lending it again', async () => {
    let failed = 0;
    await expect(
      db.sql.session(async (sql) => {
        failed = (await sql.one<{ pid: number }>('select pg_backend_pid() as pid')).pid;
        throw new Error('failed mid-session');
      }),
    ).rejects.toThrow('failed mid-session');
    const pids = await Promise.all(
      [0, 1].map(() => db.sql.one<{ pid: number }>('select pg_backend_pid() as pid')),
    );
    expect(pids.map((r) => r.pid)).not.toContain(failed);
  });

  it('leases one session whose statements go out at once and run in order, each its own transaction', async () => {
    await db.sql.query('create table lease_test (id int primary key)');
    const lease = await db.sql.lease();
    try {
      // Sent back to back without waiting: the second goes out before the first is answered.
      const first = lease.sql.query<{ pid: number }>('select pg_backend_pid() as pid from pg_sleep(0.2)');
      const second = lease.sql.query<{ pid: number; at: Date }>(
        'select pg_backend_pid() as pid, clock_timestamp() as at',
      );
      const sentAt = Date.now();
      const [[a], [b]] = await Promise.all([first, second]);
      // One session, and PostgreSQL ran the second after the first's sleep.
      expect(b?.pid).toBe(a?.pid);
      expect(b?.at.getTime()).toBeGreaterThanOrEqual(sentAt + 150);
      // A statement that fails fails alone: the one behind it commits.
      const failing = lease.sql.query('insert into lease_test values (1), (1)');
      const behind = lease.sql.query('insert into lease_test values (2)');
      await expect(failing).rejects.toThrow(/duplicate key/);
      await behind;
      const ids = await db.sql.query<{ id: number }>('select id from lease_test order by id');
      expect(ids).toEqual([{ id: 2 }]);
    } finally {
      lease.release();
      await db.sql.query('drop table lease_test');
    }
    // Given back: the pool lends it again (poolSize 2, both sessions usable).
    const pids = await Promise.all([0, 1].map(() => db.sql.one('select pg_backend_pid() as pid')));
    expect(pids).toHaveLength(2);
  });
});

describe('opening', () => {
  it('creates the database the URL names when the server has none by that name', async () => {
    const gone = await createTestDatabase();
    await gone.drop();
    const reopened = await openDatabase(gone.url, {
      poolSize: 1,
      log: createLogger('silent'),
      migrations: [],
    });
    try {
      const row = await reopened.sql.one<{ name: string }>('select current_database() as name');
      expect(row.name).toBe(gone.name);
    } finally {
      await reopened.close();
      await gone.drop();
    }
  });
});

const pidOf = async (client: pg.Client) =>
  (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;

/** The error `text` fails with on `client`, or null when it succeeds. */
const failureOf = (client: pg.Client, text: string): Promise<unknown> =>
  client.query(text).then(
    () => null,
    (error: unknown) => error,
  );

describe('the hot reads’ sessions', () => {
  /** Terminates backend `pid` (through the test's own pool) and waits until it is gone. */
  const terminate = async (pid: number | undefined) => {
    await db.sql.query('select pg_terminate_backend($1)', [pid]);
    while ((await db.sql.query('select 1 from pg_stat_activity where pid = $1', [pid])).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  it('open with the pool’s settings, on sessions that are not the pool’s', async () => {
    const [row] = await db.reads.query<{ mode: string; app: string; pid: number; commit: string }>(
      `select current_setting('plan_cache_mode') as mode, current_setting('application_name') as app,
              pg_backend_pid() as pid, current_setting('synchronous_commit') as commit`,
    );
    // Their rate-limit steps commit without waiting for the WAL's flush; the pool's commits still do.
    expect(row).toMatchObject({ mode: 'force_generic_plan', app: 'r3', commit: 'off' });
    const pool = await db.sql.query<{ pid: number; commit: string }>(
      `select pg_backend_pid() as pid, current_setting('synchronous_commit') as commit`,
    );
    expect(pool[0]?.pid).not.toBe(row?.pid);
    expect(pool[0]?.commit).toBe('on');
  });

  it('lend at most `size` sessions, reuse them, and serve waiters first come first served', async () => {
    const source = hotReadConnections({ url: database.url, applicationName: 'r3 test' }, 2);
    try {
      const a = await source.acquire();
      const b = await source.acquire();
      expect(a).not.toBe(b);
      const order: string[] = [];
      const third = source.acquire().then((c) => {
        order.push('third');
        return c;
      });
      const fourth = source.acquire().then((c) => {
        order.push('fourth');
        return c;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(order).toEqual([]);
      source.release(b);
      expect(await third).toBe(b);
      source.release(a);
      expect(await fourth).toBe(a);
      expect(order).toEqual(['third', 'fourth']);
      source.release(a);
      source.release(b);
      // Idle sessions are lent again, no new one opened.
      const again = await source.acquire();
      expect([a, b]).toContain(again);
      source.release(again);
    } finally {
      await source.close();
    }
  });

  it('replace a session whose backend was terminated', async () => {
    const source = hotReadConnections({ url: database.url, applicationName: 'r3 test' }, 1);
    const sql = sqlOver(source);
    try {
      const client = await source.acquire();
      const pid = await pidOf(client);
      source.release(client);
      await terminate(pid);
      // The first statement after it may still meet the dead session (and fail), or not.
      await sql.query('select 1').catch(() => undefined);
      const [row] = await sql.query<{ pid: number }>('select pg_backend_pid() as pid');
      expect(row?.pid).not.toBe(pid);
    } finally {
      await source.close();
    }
  });

  it('drop a session at once when its statement fails for the connection, before pg reports its end', async () => {
    const source = hotReadConnections({ url: database.url, applicationName: 'r3 test' }, 1);
    try {
      const client = await source.acquire();
      const pid = await pidOf(client);
      await terminate(pid);
      const failure = await failureOf(client, 'select 1');
      expect(failure).not.toBeNull();
      // Given back in the same turn as the failure: the connection's end may not have been seen yet.
      source.release(client, failure);
      const next = await source.acquire();
      expect(next).not.toBe(client);
      expect(await pidOf(next)).not.toBe(pid);
      source.release(next);
    } finally {
      await source.close();
    }
  });

  it('keep a session whose statement PostgreSQL refused', async () => {
    const source = hotReadConnections({ url: database.url, applicationName: 'r3 test' }, 1);
    try {
      const client = await source.acquire();
      const failure = await failureOf(client, 'select 1/0');
      expect((failure as { code?: string }).code).toBe('22012');
      source.release(client, failure);
      expect(await source.acquire()).toBe(client);
      source.release(client);
    } finally {
      await source.close();
    }
  });

  it('refuse borrowers once closed', async () => {
    const source = hotReadConnections({ url: database.url, applicationName: 'r3 test' }, 1);
    const held = await source.acquire();
    const waiter = expect(source.acquire()).rejects.toThrow(/closed/);
    await source.close();
    await waiter;
    await expect(source.acquire()).rejects.toThrow(/closed/);
    source.release(held);
  });
});
