/**
 * r3 processes sharing one fresh test database, for the tests that kill and restart them: registers
 * the `beforeAll` that creates the database (rate limits off) and the `afterAll` that stops every
 * process spawned through it and drops the database. `db` is a small pool of the test's own for
 * reading what the processes wrote.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type HttpAnswer, request } from './app.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { type ServeProcess, spawnServe } from './process.js';

export interface SharedDatabase {
  /** Set by the `beforeAll`. */
  database: TestDatabase;
  db: pg.Pool;
  /** `r3 serve`'s environment: the database, rate limits off. */
  env: Record<string, string>;
  /** Spawns `r3 serve` on the database; stopped after all. */
  spawn(): Promise<ServeProcess>;
  /** An API call to the process at `url` with `token` (`/api/v1` prefixed to `path`). */
  api(token: string): (url: string, method: string, path: string, body?: unknown) => Promise<HttpAnswer>;
}

export function sharedDatabase(): SharedDatabase {
  const processes: ServeProcess[] = [];
  const shared = {
    env: {} as Record<string, string>,
    async spawn() {
      const process = await spawnServe(shared.env);
      processes.push(process);
      return process;
    },
    api: (token: string) => (url: string, method: string, path: string, body?: unknown) =>
      request(url, method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) }),
  } as SharedDatabase;
  beforeAll(async () => {
    shared.database = await createTestDatabase();
    shared.db = new pg.Pool({ connectionString: shared.database.url, max: 2 });
    shared.env = { DATABASE_URL: shared.database.url, R3_RATE_LIMIT_PER_MIN: '0' };
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await shared.db?.end();
    await shared.database?.drop();
  });
  return shared;
}
