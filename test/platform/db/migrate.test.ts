/**
 * Migrations on start-up (src/platform/db/database.ts): processes that start together on an empty database
 * (a deployment rolling out several at once) all start, and each migration is applied once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../../src/migrations.js';
import { type Database, openDatabase } from '../../../src/platform/db/database.js';
import { createLogger } from '../../../src/platform/log.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

let database: TestDatabase;
const opened: Database[] = [];
beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await database?.drop();
});

describe('migrate()', () => {
  it('applies every migration once when three processes migrate an empty database at the same time', async () => {
    const log = createLogger('silent');
    for (let i = 0; i < 3; i++)
      opened.push(await openDatabase(database.url, { poolSize: 2, log, migrations }));
    const applied = await Promise.all(opened.map((db) => db.migrate()));
    const names = migrations.map((m) => m.name);
    // One of them applied them all; the others found nothing left to apply.
    expect(applied.map((list) => list.length).sort()).toEqual([0, 0, names.length]);
    expect(applied.find((list) => list.length > 0)).toEqual(names);
    const rows = await opened[0]?.sql.query<{ name: string }>(
      'select name from mikro_orm_migrations order by id',
    );
    expect(rows?.map((r) => r.name)).toEqual(names);
  });
});
