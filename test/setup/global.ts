/**
 * vitest global setup: find a PostgreSQL (TEST_DATABASE_URL, else 127.0.0.1:5432 when it answers,
 * else an embedded cluster in a fresh temp directory), migrate a template database once, and hand
 * its name to the test files, which each clone their own database from it.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureBuilt } from '../../ops/build.mjs';
import { migrations } from '../../src/migrations.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../src/platform/db/embedded.js';
import { createLogger } from '../../src/platform/log.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    testRunId: string;
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_500 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

interface Prepared {
  adminUrl: string;
  template: string;
  runId: string;
  teardown(): Promise<void>;
}

/**
 * The suite's two projects (vitest.config.ts) each run this setup, in one process: they share one
 * database (and one embedded cluster), made by the first and removed after the last is done.
 */
const shared = globalThis as { r3TestDatabase?: { prepared: Promise<Prepared>; users: number } };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.r3TestDatabase ??= { prepared: prepare(), users: 0 };
  const state = shared.r3TestDatabase;
  state.users += 1;
  const { adminUrl, template, runId, teardown } = await state.prepared;
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);
  project.provide('testRunId', runId);
  return async () => {
    state.users -= 1;
    if (state.users > 0) return;
    shared.r3TestDatabase = undefined;
    await teardown();
  };
}

async function prepare(): Promise<Prepared> {
  // Tests start `bin/r3.js` processes, which run the build: make it once, before they race to.
  await ensureBuilt();
  const log = createLogger('warn', 2);
  let embedded: EmbeddedDatabase | null = null;
  let tempDir: string | null = null;
  let adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  // R3_TEST_EMBEDDED=1 takes the fresh-laptop path even where a PostgreSQL answers (to verify it).
  if (process.env.R3_TEST_EMBEDDED === '1' || !(await answers(adminUrl))) {
    if (process.env.TEST_DATABASE_URL)
      throw new Error(`TEST_DATABASE_URL (${process.env.TEST_DATABASE_URL}) does not answer`);
    tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'r3-test-pg-'));
    await fs.chmod(tempDir, 0o755);
    process.stderr.write(`[r3 tests] no PostgreSQL to use: starting an embedded one in ${tempDir}\n`);
    embedded = await startEmbeddedPostgres(tempDir, log, 'postgres');
    adminUrl = embedded.urlFor('postgres');
  }
  const runId = randomBytes(4).toString('hex');
  const template = `r3_tpl_${runId}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${template}`);
  const db = await openDatabase(withDatabase(adminUrl, template), { poolSize: 2, log, migrations });
  await db.migrate();
  await db.close();
  await admin.query(`alter database ${template} is_template true`);

  const teardown = async () => {
    const leftovers = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like $1`,
      [`r3_%${runId}%`],
    );
    for (const { datname } of leftovers.rows) {
      await admin.query(`alter database ${datname} is_template false`).catch(() => undefined);
      await admin.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
    }
    await admin.end();
    if (embedded) await embedded.stop();
    if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
  };
  return { adminUrl, template, runId, teardown };
}
