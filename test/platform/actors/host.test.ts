/**
 * The actor host against the real database: what one transition writes, that a failure at any point
 * leaves nothing half-written, optimistic conflicts retried, refusals and tenancy, and cascades to the
 * review item in the same transaction.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type GateReachedEvent,
  type RunApproveEvent,
  type RunCancelEvent,
  type StepSucceededEvent,
  type skillRunMachine,
  workflowRunMachine,
} from '../../../machines/index.js';
import { RUN_KINDS, SKILL_RUN_KIND } from '../../../src/features/runs/run-kinds.js';
import { SYSTEM, WORKER } from '../../../src/platform/actors/acting-as.js';
import { createStatementBatcher } from '../../../src/platform/actors/batcher.js';
import { createActorHost, OptimisticConflictError } from '../../../src/platform/actors/host.js';
import type { ActorKindDef, EffectContext } from '../../../src/platform/actors/kind.js';
import {
  buildStatements,
  statementParams,
  type TransitionRows,
} from '../../../src/platform/actors/statements.js';
import type { ActorTx } from '../../../src/platform/actors/tx.js';
import type { Job, JobOrigin } from '../../../src/platform/jobs/queue.js';
import { createLogger } from '../../../src/platform/log.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkillRun, loggedEvents, orgIdOf, rowCounts, skillRunArgs } from '../../helpers/runs.js';
import { recordStatements } from '../../helpers/statements.js';
import { deferred, withTimeout } from '../../helpers/wait.js';

let t: TestApp;
let org: number;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  // The tests read what transitions wrote to the outbox, which the relay deletes as it publishes.
  await t.app.outbox.stop();
  await t.token({ org: 'acme' });
  await t.token({ org: 'other' });
  org = await orgIdOf(t.app, 'acme');
});
afterAll(() => t.close());

const at = () => new Date(t.clock.now()).toISOString();
const succeeded = (step = 'summarize'): StepSucceededEvent => ({
  type: 'STEP_SUCCEEDED',
  step,
  attempt: 1,
  output: { text: 'draft' },
  at: at(),
});
const approve = (): RunApproveEvent => ({
  type: 'APPROVE',
  by: 'token:abc',
  onBehalfOf: null,
  note: 'ok',
  at: at(),
});

async function runRow(id: number) {
  return t.app.db.sql.one<{ status: string; version: number; last_seq: number; snapshot: unknown }>(
    'select status, version, last_seq, snapshot from runs where id = $1',
    [id],
  );
}

/** Makes every insert (or update) into `table` fail, runs `fn`, then removes the fault. */
async function withFault<T>(table: string, op: 'insert' | 'update', fn: () => Promise<T>): Promise<unknown> {
  const sql = t.app.db.sql;
  await sql.query(`create or replace function r3_test_fault() returns trigger language plpgsql as $$
    begin raise exception 'injected fault on %', tg_table_name; end $$`);
  await sql.query(
    `create trigger r3_test_fault before ${op} on ${table} for each row execute function r3_test_fault()`,
  );
  try {
    await fn();
    return null;
  } catch (error) {
    return error;
  } finally {
    await sql.query(`drop trigger r3_test_fault on ${table}`);
  }
}

describe('a transition', () => {
  it('writes the row, the log, run events, outbox rows and the job in one go', async () => {
    const before = await rowCounts(t.app);
    const created = await createSkillRun(t.app, org);
    const after = await rowCounts(t.app);
    expect(created.to).toBe('running.awaitingModel');
    expect(after).toMatchObject({
      runs: before.runs + 1,
      transitions: before.transitions + 1,
      events: before.events + 2,
      outbox: before.outbox + 2,
      jobs: before.jobs + 1,
    });
    const id = created.actor.row.id;
    const row = await runRow(id);
    expect(row).toMatchObject({ status: 'running', version: 1, last_seq: 2 });
    const outbox = await t.app.db.sql.query<{ subject: string; payload: Record<string, unknown> }>(
      `select subject, payload from outbox_messages where payload->>'runId' = $1 order by id, ord`,
      [String(id)],
    );
    expect(outbox.map((o) => o.subject)).toEqual([
      `evt.${org}.run.${id}.started`,
      `evt.${org}.run.${id}.step_started`,
    ]);
    expect(outbox[1]?.payload).toMatchObject({
      orgId: org,
      runId: id,
      kind: 'skill',
      slug: 'summarize',
      seq: 2,
      event: 'step_started',
      status: 'running',
      step: 'summarize',
      output: null,
      workspaceSha: 'abc1234',
    });
    const [job] = await t.app.db.sql.query<{ kind: string; payload: unknown; key: string }>(
      `select kind, payload, key from jobs where payload->>'actorId' = $1`,
      [String(id)],
    );
    expect(job).toMatchObject({
      kind: 'execute_step',
      payload: { actorKind: 'skill-run', actorId: id, orgId: org, step: 'summarize', attempt: 1 },
    });
  });

  it("deletes a run's events with the run, one statement deleting many runs", async () => {
    const runs = [await createSkillRun(t.app, org), await createSkillRun(t.app, org)];
    const ids = runs.map((r) => r.actor.row.id);
    const events = () =>
      t.app.db.sql.one<{ n: number }>('select count(*)::int as n from run_events where run_id = any($1)', [
        ids,
      ]);
    expect((await events()).n).toBe(4);
    await t.app.db.sql.query('delete from runs where id = any($1)', [ids]);
    expect((await events()).n).toBe(0);
  });

  it('refuses an event the state does not accept, writing nothing', async () => {
    const { actor } = await createSkillRun(t.app, org);
    const before = await rowCounts(t.app);
    const result = await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, { orgId: org, id: actor.row.id }, approve(), { actingAs: SYSTEM }),
    );
    expect(result.outcome).toBe('refused');
    expect(await rowCounts(t.app)).toEqual(before);
    expect((await runRow(actor.row.id)).version).toBe(1);
  });

  it("answers an event its machine's schema refuses as invalid, before the machine and writing nothing", async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    const before = await rowCounts(t.app);
    // Well typed, but no principal and no ISO time: the schema refuses what the type lets through.
    const bad: RunApproveEvent = { type: 'APPROVE', by: '', at: 'yesterday' };
    const result = await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, ref, bad, { actingAs: SYSTEM }),
    );
    expect(result).toMatchObject({
      outcome: 'invalid',
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'event.by' }),
        expect.objectContaining({ field: 'event.at' }),
      ]),
    });
    expect(await rowCounts(t.app)).toEqual(before);
    expect((await runRow(actor.row.id)).status).toBe('pending');
    // The same run takes the well-formed event.
    const ok = await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, ref, approve(), { actingAs: SYSTEM }),
    );
    expect(ok.outcome).toBe('applied');
  });

  it("types each kind's events: another kind's event does not compile, and is invalid at run time", async () => {
    const { actor } = await createSkillRun(t.app, org);
    const ref = { orgId: org, id: actor.row.id };
    const gate: GateReachedEvent = { type: 'GATE_REACHED', step: 'summarize', at: at() };
    const result = await t.app.actors.transact((tx) =>
      // @ts-expect-error GATE_REACHED is a workflow run's alone: not an event every run kind takes
      t.app.actors.send(tx, RUN_KINDS, ref, gate, { actingAs: SYSTEM }),
    );
    expect(result).toMatchObject({
      outcome: 'invalid',
      issues: [expect.objectContaining({ field: 'event.type' })],
    });
    const stored = await t.app.actors.transact((tx) =>
      t.app.actors.sendStored(
        tx,
        'skill-run',
        ref,
        { type: 'WAKE', until: at(), at: at() },
        { actingAs: SYSTEM },
      ),
    );
    expect(stored.outcome).toBe('invalid');
    await expect(
      t.app.actors.transact((tx) =>
        t.app.actors.sendStored(tx, 'no-such-kind', ref, approve(), { actingAs: SYSTEM }),
      ),
    ).rejects.toThrow(/unknown actor kind/);
  });

  it('registers a kind only with its own machine', () => {
    const def = t.app.actors.kind(SKILL_RUN_KIND);
    const host = createActorHost({ db: t.app.db.sql, clock: t.clock, log: t.app.log });
    expect(() => host.register({ ...def, machine: workflowRunMachine })).toThrow(
      /not registered with its machine/,
    );
  });

  it("does not find another org's actor", async () => {
    const { actor } = await createSkillRun(t.app, org);
    const other = await orgIdOf(t.app, 'other');
    const result = await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, { orgId: other, id: actor.row.id }, succeeded(), { actingAs: WORKER }),
    );
    expect(result.outcome).toBe('not_found');
    expect(await t.app.actors.load(t.app.db.sql, RUN_KINDS, { orgId: other, id: actor.row.id })).toBeNull();
  });

  it('opens the review item with the run and closes it with the decision, in the same transaction', async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const id = actor.row.id;
    const [item] = await t.app.db.sql.query<{ status: string; open: boolean; title: string }>(
      `select status, open, title from review_items where run_id = $1 and kind = 'skill'`,
      [id],
    );
    expect(item).toEqual({ status: 'unassigned', open: true, title: `Skill summarize (run ${id})` });
    await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, { orgId: org, id }, approve(), { actingAs: SYSTEM }),
    );
    const [closed] = await t.app.db.sql.query<{ status: string; open: boolean; decision: unknown }>(
      `select status, open, decision from review_items where run_id = $1 and kind = 'skill'`,
      [id],
    );
    expect(closed).toMatchObject({
      status: 'decided',
      open: false,
      decision: { action: 'approve', by: 'token:abc' },
    });
  });

  it("stores a run's output and steps' results in their columns only, and loads them back from there", async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER }),
    );
    const stored = await t.app.db.sql.one<{
      snapshot: { context: Record<string, unknown> };
      output: unknown;
    }>('select snapshot, output from runs where id = $1', [ref.id]);
    expect(stored.output).toEqual({ text: 'draft' });
    expect(stored.snapshot.context).not.toHaveProperty('output');
    expect(stored.snapshot.context).not.toHaveProperty('stepResults');
    expect(stored.snapshot.context).toMatchObject({ draftReady: true, reviewState: 'pending' });
    const loaded = await t.app.actors.load(t.app.db.sql, RUN_KINDS, ref);
    expect(loaded?.snapshot.context).toMatchObject({
      output: { text: 'draft' },
      stepResults: { summarize: { output: { text: 'draft' } } },
    });
    // The columns are what a load reads: a changed column is the loaded context's value.
    await t.app.db.sql.query(`update runs set output = '{"text":"edited"}' where id = $1`, [ref.id]);
    const again = await t.app.actors.load(t.app.db.sql, RUN_KINDS, ref);
    expect(again?.snapshot.context.output).toEqual({ text: 'edited' });
    // A snapshot stored whole (before the kind kept them in columns) still loads, the columns winning.
    await t.app.db.sql.query(
      `update runs set snapshot = json_build_object('value', snapshot->'value', 'status', snapshot->'status',
         'context', (snapshot->'context')::jsonb || '{"output": {"text": "old"}, "stepResults": {}}'::jsonb)
       where id = $1`,
      [ref.id],
    );
    const whole = await t.app.actors.load(t.app.db.sql, RUN_KINDS, ref);
    expect(whole?.snapshot.context).toMatchObject({
      output: { text: 'edited' },
      stepResults: { summarize: { output: { text: 'draft' } } },
    });
    const approved = await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, ref, approve(), { actingAs: SYSTEM }),
    );
    expect(approved.outcome).toBe('applied');
    expect((await runRow(ref.id)).snapshot).not.toHaveProperty('context.output');
  });

  it("gives a caller's own read the load's columns, so the fields kept in columns come with it", async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER }),
    );
    // Unprefixed (the step executor's read: the columns under their own names), and prefixed.
    for (const prefix of ['', 'subject.']) {
      const raw = await t.app.db.sql.one<Record<string, unknown>>(
        `select r.status, ${t.app.actors.loadColumns(RUN_KINDS, 'r', prefix)} from runs r where r.id = $1`,
        [ref.id],
      );
      const loaded =
        prefix === ''
          ? t.app.actors.resolveRow(RUN_KINDS, raw)
          : t.app.actors.resolvePrefixed(RUN_KINDS, raw, prefix);
      expect(loaded?.row).toMatchObject({ id: ref.id, orgId: org, version: actor.row.version + 1 });
      expect(loaded?.snapshot.context).toMatchObject({
        output: { text: 'draft' },
        stepResults: { summarize: { output: { text: 'draft' } } },
      });
      if (prefix === '') {
        // A read that leaves one of them out is refused, not loaded without the field.
        const { output: _, ...without } = raw;
        expect(() => t.app.actors.resolveRow(RUN_KINDS, without)).toThrow(/without its column output/);
      }
    }
    for (const [alias, prefix] of [
      ['r; drop', ''],
      ['r', 'x"'],
    ] as const) {
      expect(() => t.app.actors.loadColumns(RUN_KINDS, alias, prefix)).toThrow(/unsafe load alias or prefix/);
    }
  });

  it('refuses a kind that keeps a context field in a column it does not project', () => {
    // Typed kinds: only a field of the machine's context, and only one of the kind's projected columns.
    type Held = NonNullable<
      ActorKindDef<typeof skillRunMachine, { output: 'project'; input: 'create' }>['contextInColumns']
    >;
    const typed: Held = { output: 'output' };
    // @ts-expect-error input is a create column, not a projected one
    const notProjected: Held = { output: 'input' };
    // @ts-expect-error a skill run's context has no field outputs
    const noField: Held = { outputs: 'output' };
    expect([typed, notProjected, noField].map((held) => Object.keys(held))).toEqual([
      ['output'],
      ['output'],
      ['outputs'],
    ]);
    // At run time (a kind held as any kind's), register refuses it.
    const def = t.app.actors.kind(SKILL_RUN_KIND);
    const host = createActorHost({ db: t.app.db.sql, clock: t.clock, log: t.app.log });
    expect(() => host.register({ ...def, contextInColumns: { output: 'input' } })).toThrow(
      /context column input is not a projected column/,
    );
  });
});

describe('atomicity: a failure at any point leaves nothing half-written', () => {
  // A fault on a table fails the transition's statement right after the writes before it.
  const createPoints = [
    ['after the snapshot is written (log row fails)', 'actor_transitions'],
    ['after the log row (run events fail)', 'run_events'],
    ['after the run events (outbox fails)', 'outbox'],
    ['after the outbox rows (jobs fail)', 'jobs'],
  ] as const;

  it.each(createPoints)('creating a run: %s', async (_label, table) => {
    const before = await rowCounts(t.app);
    const error = await withFault(table, 'insert', () => createSkillRun(t.app, org));
    expect(String(error)).toContain(`injected fault on ${table}`);
    expect(await rowCounts(t.app)).toEqual(before);
  });

  it('creating a run: in a follow-up (the review item fails)', async () => {
    const before = await rowCounts(t.app);
    const error = await withFault('review_items', 'insert', () =>
      createSkillRun(t.app, org, { requiresApproval: true }),
    );
    expect(String(error)).toContain('injected fault on review_items');
    expect(await rowCounts(t.app)).toEqual(before);
  });

  it('creating a run: after everything, when the transaction itself fails', async () => {
    const before = await rowCounts(t.app);
    const error = await t.app.actors
      .transact(async (tx) => {
        await createSkillRun(t.app, org, { tx });
        throw new Error('the caller failed after the transition');
      })
      .catch((e: unknown) => e);
    expect(String(error)).toContain('the caller failed');
    expect(await rowCounts(t.app)).toEqual(before);
  });

  const sendPoints = [
    ['after the snapshot update (log row fails)', 'actor_transitions', 'insert'],
    ['after the log row (run events fail)', 'run_events', 'insert'],
    ['after the run events (outbox fails)', 'outbox', 'insert'],
    ['in the follow-up (closing the review item fails)', 'review_items', 'update'],
  ] as const;

  it.each(sendPoints)('approving a pending run: %s', async (_label, table, op) => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const id = actor.row.id;
    const rowBefore = await runRow(id);
    const before = await rowCounts(t.app);
    const error = await withFault(table, op, () =>
      t.app.actors.transact((tx) =>
        t.app.actors.send(tx, RUN_KINDS, { orgId: org, id }, approve(), { actingAs: SYSTEM }),
      ),
    );
    expect(String(error)).toContain(`injected fault on ${table}`);
    expect(await rowCounts(t.app)).toEqual(before);
    expect(await runRow(id)).toEqual(rowBefore);
    const [item] = await t.app.db.sql.query<{ open: boolean }>(
      'select open from review_items where run_id = $1',
      [id],
    );
    expect(item?.open).toBe(true);
  });
});

/** Resolves once a session of the test database waits on a lock (`label` names it on a timeout). */
async function lockWait(label: string): Promise<void> {
  await withTimeout(
    (async () => {
      for (;;) {
        const row = await t.app.db.sql.one<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (row.n > 0) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })(),
    label,
  );
}

/**
 * Two transitions of one run at once: A writes SUCCEEDED and holds its row lock until B (APPROVE,
 * with `lock` or not) is blocked on it. Answers both outcomes, B's attempts and the run.
 */
async function contend(lock: boolean) {
  const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
  const ref = { orgId: org, id: actor.row.id };
  const host = t.app.actors;
  const firstWrote = deferred();
  const releaseFirst = deferred();
  const first = host.transact(async (tx) => {
    const result = await host.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER });
    firstWrote.resolve();
    await releaseFirst.promise;
    return result.outcome;
  });
  await firstWrote.promise;
  let attempts = 0;
  const second = host.transact(async (tx) => {
    attempts++;
    return (await host.send(tx, RUN_KINDS, ref, approve(), { actingAs: SYSTEM, lock })).outcome;
  });
  await lockWait('the second transaction to wait on the row lock');
  releaseFirst.resolve();
  return { first: await first, second: await second, attempts, id: actor.row.id };
}

describe('optimistic locking', () => {
  it('retries a transaction whose actor moved between load and write', async () => {
    // B loads the old version, then waits on A's lock; after A commits its version check fails.
    const { first, second, attempts, id } = await contend(false);
    expect(first).toBe('applied');
    expect(second).toBe('applied');
    expect(attempts).toBe(2);
    const row = await runRow(id);
    expect(row).toMatchObject({ status: 'approved', version: 3 });
    const events = await t.app.db.sql.query<{ event: string }>(
      'select event from run_events where run_id = $1 order by seq',
      [id],
    );
    expect(events.map((e) => e.event)).toEqual([
      'started',
      'step_started',
      'step_completed',
      'paused_for_review',
      'approved',
    ]);
  });

  it('with lock, waits for the row instead: one attempt, both applied in order', async () => {
    // B's locked load waits on A's row lock, then reads the version A committed.
    const { first, second, attempts, id } = await contend(true);
    expect(first).toBe('applied');
    expect(second).toBe('applied');
    expect(attempts).toBe(1);
    expect(await runRow(id)).toMatchObject({ status: 'approved', version: 3 });
  });

  it("enqueues a creation's jobs at jobsQueuedAt when given (their place in the queue), else now", async () => {
    const queuedAt = '2020-01-02T03:04:05.000Z';
    const early = await createSkillRun(t.app, org, { jobsQueuedAt: queuedAt });
    const now = await createSkillRun(t.app, org);
    const runAt = async (id: number) =>
      (
        await t.app.db.sql.one<{ run_at: Date }>(
          `select run_at from jobs where payload ->> 'actorId' = $1::text`,
          [String(id)],
        )
      ).run_at.toISOString();
    expect(await runAt(early.actor.row.id)).toBe(queuedAt);
    const created = await t.app.db.sql.one<{ created_at: Date }>(
      'select created_at from runs where id = $1',
      [now.actor.row.id],
    );
    expect(await runAt(now.actor.row.id)).toBe(created.created_at.toISOString());
  });

  it("enqueues a creation's jobs at jobsPriority when given, else 0", async () => {
    const first = await createSkillRun(t.app, org, { jobsPriority: 1 });
    const plain = await createSkillRun(t.app, org);
    const priority = async (id: number) =>
      (
        await t.app.db.sql.one<{ priority: number }>(
          `select priority from jobs where payload ->> 'actorId' = $1::text`,
          [String(id)],
        )
      ).priority;
    expect(await priority(first.actor.row.id)).toBe(1);
    expect(await priority(plain.actor.row.id)).toBe(0);
  });

  it('gives up after its attempts with an OptimisticConflictError, writing nothing', async () => {
    const { actor } = await createSkillRun(t.app, org);
    const ref = { orgId: org, id: actor.row.id };
    const sql = t.app.db.sql;
    // Every update of the row "loses the race": the trigger skips it, as a moved version would.
    await sql.query(`create or replace function r3_test_skip() returns trigger language plpgsql as $$
      begin return null; end $$`);
    await sql.query(
      'create trigger r3_test_skip before update on runs for each row execute function r3_test_skip()',
    );
    const before = await rowCounts(t.app);
    let attempts = 0;
    const error = await t.app.actors
      .transact(async (tx) => {
        attempts++;
        return t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER });
      })
      .catch((e: unknown) => e)
      .finally(() => sql.query('drop trigger r3_test_skip on runs'));
    expect(error).toBeInstanceOf(OptimisticConflictError);
    expect(attempts).toBe(6);
    expect(await rowCounts(t.app)).toEqual(before);
  });
});

describe('jobs that go first, leased to the process whose transaction enqueues them', () => {
  const WORKER_ID = 'host-test:1:abc';
  const leasedUntil = () => new Date(t.clock.now() + 60_000).toISOString();
  /** A host with the run kinds over a queue that leases as told, recording what it is asked. */
  function leasingHost(leases: boolean) {
    const asked: string[] = [];
    const started: Array<{ job: Job; origin: JobOrigin | undefined }> = [];
    const host = createActorHost({
      db: t.app.db.sql,
      clock: t.clock,
      log: createLogger('silent'),
      jobs: {
        lease(kind) {
          asked.push(kind);
          return leases ? { workerId: WORKER_ID, lockedUntil: leasedUntil() } : null;
        },
        startLeased: (job, origin) => started.push({ job, origin }),
      },
    });
    for (const kind of RUN_KINDS) host.register(t.app.actors.kind(kind));
    return { host, asked, started };
  }
  const jobOf = (runId: number) =>
    t.app.db.sql.one<{ id: number; attempts: number; locked_by: string | null; locked_until: Date | null }>(
      `select id, attempts, locked_by, locked_until from jobs where payload ->> 'actorId' = $1::text`,
      [String(runId)],
    );

  it('writes one leased (claimed, attempt 1) and starts it after the commit with the actor as created', async () => {
    const { host, started } = leasingHost(true);
    let beforeCommit = -1;
    const created = await host.transact(async (tx) => {
      const done = await createSkillRun(t.app, org, { host, tx, jobsPriority: 1, input: { text: 'lease' } });
      beforeCommit = started.length;
      return done;
    });
    expect(beforeCommit).toBe(0);
    const id = created.actor.row.id;
    const job = await jobOf(id);
    expect(job).toMatchObject({ attempts: 1, locked_by: WORKER_ID });
    expect(job.locked_until?.toISOString()).toBe(leasedUntil());
    expect(started).toHaveLength(1);
    expect(started[0]?.job).toEqual({
      id: Number(job.id),
      orgId: org,
      kind: 'execute_step',
      payload: expect.objectContaining({ actorId: id, orgId: org, step: 'summarize', attempt: 1 }),
      key: null,
      attempts: 1,
      maxAttempts: 5,
      priority: 1,
    });
    expect(started[0]?.origin?.actor).toBe(created.actor);
    expect(started[0]?.origin?.row).toMatchObject({
      id,
      org_id: org,
      kind: 'skill',
      status: 'running',
      version: 1,
      input: { text: 'lease' },
    });
    // Nobody else may claim it: it is the leasing process's.
    const claimed = await t.app.jobs.claim('another-worker', 100, 1);
    expect(claimed.map((j) => j.id)).not.toContain(Number(job.id));
    expect(await jobOf(id)).toMatchObject({ attempts: 1, locked_by: WORKER_ID });
  });

  it('starts nothing when the transaction rolls back, and leaves no job', async () => {
    const { host, asked, started } = leasingHost(true);
    let id = 0;
    await expect(
      host.transact(async (tx) => {
        id = (await createSkillRun(t.app, org, { host, tx, jobsPriority: 1 })).actor.row.id;
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(asked).toEqual(['execute_step']);
    expect(started).toEqual([]);
    expect(
      await t.app.db.sql.query(`select 1 from jobs where payload ->> 'actorId' = $1::text`, [String(id)]),
    ).toEqual([]);
  });

  it('queues for a claim a job the queue does not take now, or one that does not go first', async () => {
    const refusing = leasingHost(false);
    const refused = await createSkillRun(t.app, org, { host: refusing.host, jobsPriority: 1 });
    expect(refusing.asked).toEqual(['execute_step']);
    expect(await jobOf(refused.actor.row.id)).toMatchObject({
      attempts: 0,
      locked_by: null,
      locked_until: null,
    });
    const leasing = leasingHost(true);
    const plain = await createSkillRun(t.app, org, { host: leasing.host });
    expect(leasing.asked).toEqual([]);
    expect(await jobOf(plain.actor.row.id)).toMatchObject({ attempts: 0, locked_by: null });
    expect([...refusing.started, ...leasing.started]).toEqual([]);
  });
});

describe('several creations of one kind (createMany)', () => {
  it('write in one statement, each with its rows, follow-ups after the write', async () => {
    const before = await rowCounts(t.app);
    let statements: string[] = [];
    const created = await t.app.actors.transact(async (tx) => {
      const prepared = vi.spyOn(tx.sql, 'prepared');
      const made = await t.app.actors.createMany(tx, SKILL_RUN_KIND, [
        skillRunArgs(org, { input: { text: 'one' } }),
        skillRunArgs(org, { input: { text: 'two' }, requiresApproval: true }),
        skillRunArgs(org, { input: { text: 'three' }, jobsPriority: 1 }),
      ]);
      statements = prepared.mock.calls.map(([name]) => name).filter((name) => name !== 'actor_ids');
      prepared.mockRestore();
      return made;
    });
    // The three runs in one statement, then the follow-up of the one that needs approval (its review
    // item, opened with the policy in force: its facts read first); ids come from the allocator's
    // blocks.
    expect(statements).toEqual([
      'actor_insert_skill-run#0',
      'review_policy_facts_run',
      'actor_insert_review-item#0',
    ]);
    const ids = created.map((c) => c.actor.row.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // The second waits for its approval (its review item is its creation's follow-up).
    expect(created.map((c) => c.projection.status)).toEqual(['running', 'pending', 'running']);
    const rows = await t.app.db.sql.query<{ id: number; input: { text: string }; version: number }>(
      'select id, input, version from runs where id = any($1::bigint[]) order by id',
      [ids],
    );
    expect(rows.map((r) => [Number(r.id), r.input.text, r.version])).toEqual([
      [ids[0], 'one', 1],
      [ids[1], 'two', 1],
      [ids[2], 'three', 1],
    ]);
    const jobs = await t.app.db.sql.query<{ actor: string; priority: number }>(
      `select payload ->> 'actorId' as actor, priority from jobs where payload ->> 'actorId' = any($1::text[])`,
      [ids.map(String)],
    );
    expect(Object.fromEntries(jobs.map((j) => [Number(j.actor), j.priority]))).toEqual({
      [ids[0] as number]: 0,
      [ids[1] as number]: 0,
      [ids[2] as number]: 1,
    });
    expect(await rowCounts(t.app)).toMatchObject({
      runs: before.runs + 3,
      review_items: before.review_items + 1,
      // The runs' creations and the review item's.
      transitions: before.transitions + 4,
      jobs: before.jobs + 3,
    });
  });

  it('write none when the statement fails, and need a real transaction for more than one', async () => {
    const before = await rowCounts(t.app);
    const error = await withFault('run_events', 'insert', () =>
      t.app.actors.transact((tx) =>
        t.app.actors.createMany(tx, SKILL_RUN_KIND, [skillRunArgs(org), skillRunArgs(org)]),
      ),
    );
    expect(String(error)).toContain('injected fault on run_events');
    expect(await rowCounts(t.app)).toEqual(before);
    // Asked as a single transaction: rerun in a real one, both written.
    const created = await t.app.actors.transact(
      (tx) => t.app.actors.createMany(tx, SKILL_RUN_KIND, [skillRunArgs(org), skillRunArgs(org)]),
      { single: true },
    );
    expect(created).toHaveLength(2);
    expect(await rowCounts(t.app)).toMatchObject({ runs: before.runs + 2 });
  });
});

/**
 * A host of its own with the run kinds, the skill run's `recordEvent` wrapped by `around` (which gets
 * the effect's context first) and `extra` added to its kind.
 */
function hostWithSkillRun(
  around: (ctx: EffectContext) => void,
  extra: Partial<ActorKindDef> = {},
  log = createLogger('silent'),
) {
  const host = createActorHost({ db: t.app.db.sql, clock: t.clock, log });
  for (const kind of RUN_KINDS) {
    const def = t.app.actors.kind(kind);
    const recordEvent = def.effects?.recordEvent;
    if (kind !== SKILL_RUN_KIND || !recordEvent) {
      host.register(def);
      continue;
    }
    host.register({
      ...def,
      ...extra,
      effects: {
        ...def.effects,
        recordEvent(params, ctx) {
          around(ctx);
          return recordEvent(params, ctx);
        },
      },
    });
  }
  return host;
}

describe('settled events: applied in the write of the transition that settles them', () => {
  type Answer = Array<{ type: string; [key: string]: unknown }>;
  /**
   * A host with the run kinds whose skill run settles its STEP_SUCCEEDED with `answer`
   * (`TransitionWrites.settle`, from the transition's first run event).
   */
  function settlingHost(answer: (tx: ActorTx) => Promise<Answer>) {
    const warnings: unknown[] = [];
    const log = createLogger('silent');
    log.warn = ((details: unknown) => void warnings.push(details)) as typeof log.warn;
    const settling = new WeakSet<object>();
    const host = hostWithSkillRun(
      (ctx) => {
        if (ctx.event.type === 'STEP_SUCCEEDED' && !settling.has(ctx.writes)) {
          settling.add(ctx.writes);
          ctx.writes.settle(answer);
        }
      },
      {},
      log,
    );
    return { host, warnings };
  }
  const transitionsOf = (id: number) =>
    t.app.db.sql.query<{ from_state: string | null; event_type: string; to_state: string }>(
      `select from_state, event_type, to_state from actor_transitions
        where actor_kind = 'skill-run' and actor_id = $1 order by id`,
      [id],
    );
  const eventsOf = async (id: number) =>
    (
      await t.app.db.sql.query<{ seq: number; event: string }>(
        'select seq, event from run_events where run_id = $1 order by seq',
        [id],
      )
    ).map((e) => `${e.seq}:${e.event}`);

  it('writes the transition and the events it settled in one statement, a log row each', async () => {
    let read = 0;
    const { host } = settlingHost(async (tx) => {
      // A settler reads in the transaction, before the write.
      read = (await tx.sql.one<{ n: number }>('select 1 as n')).n;
      return [approve()];
    });
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    let updates: string[] = [];
    const result = await host.transact(async (tx) => {
      const prepared = vi.spyOn(tx.sql, 'prepared');
      const sent = await host.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER });
      updates = prepared.mock.calls.map(([name]) => name).filter((name) => name.startsWith('actor_update_'));
      prepared.mockRestore();
      return sent;
    });
    expect(read).toBe(1);
    expect(result).toMatchObject({ outcome: 'applied', from: 'pending.awaitingModel', to: 'approved' });
    // One write of the run (version 1 → 2), the review item opened and closed by the follow-ups.
    expect(updates.filter((name) => name.startsWith('actor_update_skill-run'))).toHaveLength(1);
    expect(await runRow(ref.id)).toMatchObject({ status: 'approved', version: 2 });
    expect(await transitionsOf(ref.id)).toEqual([
      { from_state: null, event_type: 'xstate.init', to_state: 'pending.awaitingModel' },
      { from_state: 'pending.awaitingModel', event_type: 'STEP_SUCCEEDED', to_state: 'pending.draftReady' },
      { from_state: 'pending.draftReady', event_type: 'APPROVE', to_state: 'approved' },
    ]);
    expect(await eventsOf(ref.id)).toEqual([
      '1:started',
      '2:step_started',
      '3:step_completed',
      '4:paused_for_review',
      '5:approved',
    ]);
    const item = await t.app.db.sql.one<{ status: string }>(
      `select status from review_items where kind = 'skill' and run_id = $1`,
      [ref.id],
    );
    expect(item.status).toBe('decided');
  });

  it('skips a settled event the machine refuses (with a warning), writing the rest', async () => {
    const reject = { type: 'REJECT', by: 'token:abc', onBehalfOf: null, reason: 'no', at: at() };
    // The second APPROVE finds the run approved already: refused; the REJECT after it too.
    const { host, warnings } = settlingHost(async () => [approve(), approve(), reject]);
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    const result = await host.transact((tx) =>
      host.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER }),
    );
    expect(result).toMatchObject({ outcome: 'applied', to: 'approved' });
    expect((await transitionsOf(ref.id)).map((r) => r.event_type)).toEqual([
      'xstate.init',
      'STEP_SUCCEEDED',
      'APPROVE',
    ]);
    expect(warnings).toEqual([
      expect.objectContaining({ event: 'APPROVE', state: 'approved' }),
      expect.objectContaining({ event: 'REJECT', state: 'approved' }),
    ]);
  });

  it('writes nothing when a settler fails, or answers an event the kind does not take', async () => {
    for (const answer of [
      async (): Promise<Answer> => {
        throw new Error('settler failed');
      },
      async (): Promise<Answer> => [{ type: 'NOT_AN_EVENT' }],
    ]) {
      const { host } = settlingHost(answer);
      const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
      const ref = { orgId: org, id: actor.row.id };
      const before = await rowCounts(t.app);
      await expect(
        host.transact((tx) => host.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER })),
      ).rejects.toThrow(/settler failed|NOT_AN_EVENT does not match/);
      expect(await rowCounts(t.app)).toEqual(before);
      expect(await runRow(ref.id)).toMatchObject({ status: 'pending', version: 1 });
    }
  });

  it('in a single transaction: a settler that reads reruns it in a real one', async () => {
    let calls = 0;
    const { host } = settlingHost(async (tx) => {
      calls++;
      await tx.sql.query('select 1');
      return [approve()];
    });
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    const result = await host.transact(
      (tx) => host.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER }),
      { single: true },
    );
    expect(result).toMatchObject({ outcome: 'applied', to: 'approved' });
    expect(calls).toBe(2);
    expect(await runRow(ref.id)).toMatchObject({ status: 'approved', version: 2 });
  });
});

describe('events sent together (followedBy) and sends gathered for the end of the transaction', () => {
  it('applies the events it is followed by after the first in the same write, a log row each', async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    const result = await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), {
        actingAs: WORKER,
        followedBy: [approve(), approve()],
      }),
    );
    // The second APPROVE finds the run approved: skipped (a warning), the rest written.
    expect(result).toMatchObject({ outcome: 'applied', to: 'approved' });
    expect(await runRow(ref.id)).toMatchObject({ status: 'approved', version: 2 });
    expect(await loggedEvents(t.app, 'skill-run', ref.id)).toEqual([
      'xstate.init',
      'STEP_SUCCEEDED',
      'APPROVE',
    ]);
  });

  it('flushes each key once after the function, before the commit, with its items in order', async () => {
    const flushed: Array<[string, string[]]> = [];
    const flush = (key: string) => async (tx: ActorTx, items: string[]) => {
      flushed.push([key, items]);
      // In the transaction: a flush may gather more, flushed after it.
      await tx.sql.query('select 1');
      if (key === 'a') tx.gather('c', 'late', flush('c'));
    };
    const order: string[] = [];
    await t.app.actors.transact(async (tx) => {
      tx.gather('a', 'one', flush('a'));
      tx.gather('b', 'two', flush('b'));
      tx.gather('a', 'three', flush('never used: the first flush given for a key'));
      tx.afterCommit(() => order.push(`committed after ${flushed.length} flushes`));
      order.push(`function done, ${flushed.length} flushed`);
    });
    expect(order).toEqual(['function done, 0 flushed', 'committed after 3 flushes']);
    expect(flushed).toEqual([
      ['a', ['one', 'three']],
      ['b', ['two']],
      ['c', ['late']],
    ]);
  });

  it('flushes nothing when the function fails, and needs a real transaction for a gather', async () => {
    const flushed: string[][] = [];
    await expect(
      t.app.actors.transact(async (tx) => {
        tx.gather('a', 'one', async (_tx, items: string[]) => void flushed.push(items));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(flushed).toEqual([]);
    let attempts = 0;
    await t.app.actors.transact(
      async (tx) => {
        attempts++;
        tx.gather('a', 'one', async (_tx, items: string[]) => void flushed.push(items));
      },
      { single: true },
    );
    expect(attempts).toBe(2);
    expect(flushed).toEqual([['one']]);
  });
});

describe('values read with a locked load (lockedWith)', () => {
  it("come with the row in the lock's round trip, to the effects; a load without lock has none", async () => {
    const seen: unknown[] = [];
    const host = hostWithSkillRun(
      (ctx) => void seen.push([ctx.row.columns.doubled, ctx.row.columns.org_slug]),
      {
        lockedWith: { doubled: 't.version * 2', org_slug: 'select slug from orgs o where o.id = t.org_id' },
      },
    );
    for (const lock of [true, false]) {
      seen.length = 0;
      const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
      const ref = { orgId: org, id: actor.row.id };
      let statements: string[] = [];
      await host.transact(async (tx) => {
        const prepared = vi.spyOn(tx.sql, 'prepared');
        await host.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER, lock });
        statements = prepared.mock.calls.map(([name]) => name);
        prepared.mockRestore();
      });
      expect(statements[0]).toBe(lock ? 'actor_lock_skill-run' : 'actor_load_runs');
      expect(seen[0]).toEqual(lock ? [2, 'acme'] : [undefined, undefined]);
    }
  });
});

describe('several sends (sendMany)', () => {
  it('write in one statement per kind, each with its outcome, follow-ups after it', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await createSkillRun(t.app, org, { requiresApproval: true })).actor.row.id);
    const [a = 0, b = 0, c = 0] = ids;
    const other = await orgIdOf(t.app, 'other');
    const item = (id: number, event: unknown, orgId = org) => ({
      ref: { orgId, id },
      event,
      options: { actingAs: WORKER },
    });
    let statements: string[] = [];
    const results = await t.app.actors.transact(async (tx) => {
      const prepared = vi.spyOn(tx.sql, 'prepared');
      const sent = await t.app.actors.sendMany(tx, RUN_KINDS, [
        item(a, succeeded()),
        // Another org's id is not found; an event the state does not take is refused.
        item(b, succeeded(), other),
        item(b, succeeded('another-step')),
        item(c, succeeded()),
        // A second send to one actor starts from the first's write.
        item(c, approve()),
      ]);
      statements = prepared.mock.calls
        .map(([name]) => name)
        .filter((name) => name.startsWith('actor_update'));
      prepared.mockRestore();
      return sent;
    });
    expect(results.map((r) => r.outcome)).toEqual(['applied', 'not_found', 'refused', 'applied', 'applied']);
    // a's and c's first in one statement, c's approval after it (its review item closed in a follow-up).
    expect(statements.filter((name) => name.startsWith('actor_update_skill-run'))).toHaveLength(2);
    expect(await runRow(a)).toMatchObject({ status: 'pending', version: 2 });
    expect(await runRow(b)).toMatchObject({ status: 'pending', version: 1 });
    expect(await runRow(c)).toMatchObject({ status: 'approved', version: 3 });
  });

  it('in a single transaction: more than one write reruns it in a real one', async () => {
    const runs = await Promise.all([1, 2].map(() => createSkillRun(t.app, org)));
    let attempts = 0;
    const results = await t.app.actors.transact(
      (tx) => {
        attempts++;
        return t.app.actors.sendMany(
          tx,
          RUN_KINDS,
          runs.map((r) => ({
            ref: { orgId: org, id: r.actor.row.id },
            event: succeeded(),
            options: { actingAs: WORKER },
          })),
        );
      },
      { single: true },
    );
    expect(attempts).toBe(2);
    expect(results.map((r) => r.outcome)).toEqual(['applied', 'applied']);
  });
});

describe('a locked load sent ahead (loadAhead)', () => {
  it('is taken by the locked send that follows, its row locked from when it was sent', async () => {
    // Without review: its draft is the whole transition (a pending run's would also tell its item).
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: false });
    const ref = { orgId: org, id: actor.row.id };
    let statements: string[] = [];
    let lockedMeanwhile = '';
    const result = await t.app.actors.transact(async (tx) => {
      const prepared = vi.spyOn(tx.sql, 'prepared');
      t.app.actors.loadAhead(tx, RUN_KINDS, ref);
      t.app.actors.loadAhead(tx, RUN_KINDS, ref);
      // Another transaction cannot lock the row meanwhile.
      await tx.sql.query('select 1');
      lockedMeanwhile = await t.app.db.sql
        .query('select id from runs where id = $1 for update nowait', [ref.id])
        .then(
          () => 'free',
          (error: { code?: string }) => String(error.code),
        );
      const sent = await t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER, lock: true });
      statements = prepared.mock.calls.map(([name]) => name);
      prepared.mockRestore();
      return sent;
    });
    expect(result.outcome).toBe('applied');
    expect(lockedMeanwhile).toBe('55P03');
    expect(
      statements.filter((name) => name.startsWith('actor_lock') || name.startsWith('actor_load')),
    ).toEqual(['actor_lock_runs']);
  });

  it("is not taken by a send without lock, nor for another org's id; a single transaction sends none", async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    const other = await orgIdOf(t.app, 'other');
    const outcomes = await t.app.actors.transact(async (tx) => {
      t.app.actors.loadAhead(tx, RUN_KINDS, ref);
      const theirs = await t.app.actors.send(tx, RUN_KINDS, { orgId: other, id: ref.id }, succeeded(), {
        actingAs: WORKER,
        lock: true,
      });
      const unlocked = await t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER });
      return [theirs.outcome, unlocked.outcome, tx.ahead.size];
    });
    expect(outcomes).toEqual(['not_found', 'applied', 1]);
    let sentAhead = -1;
    await t.app.actors.transact(
      async (tx) => {
        t.app.actors.loadAhead(tx, RUN_KINDS, ref);
        sentAhead = tx.ahead.size;
      },
      { single: true },
    );
    expect(sentAhead).toBe(0);
  });
});

describe('follow-ups pipelined behind their write', () => {
  it("are sent before the write's answer, which still fails the transaction when it fails", async () => {
    // The run's creation opens its review item in a follow-up.
    const recorded = await recordStatements(() =>
      t.app.actors.transact((tx) => createSkillRun(t.app, org, { tx, requiresApproval: true })),
    );
    const order = recorded.on('actor_insert_skill-run#0');
    const write = order.indexOf('sent actor_insert_skill-run#0');
    const followUp = order.findIndex((entry, i) => i > write && entry.startsWith('sent '));
    expect(write).toBeGreaterThanOrEqual(0);
    expect(followUp).toBeGreaterThan(write);
    expect(followUp).toBeLessThan(order.indexOf('answered actor_insert_skill-run#0'));
    // A write that fails: its error, not the follow-ups' (which ran in the failed transaction).
    const before = await rowCounts(t.app);
    const error = await withFault('runs', 'insert', () =>
      createSkillRun(t.app, org, { requiresApproval: true }),
    );
    expect(String(error)).toContain('injected fault on runs');
    expect(await rowCounts(t.app)).toEqual(before);
  });
});

describe('the COMMIT behind the writes of rows the transaction holds', () => {
  const update = (order: string[], verb: string) =>
    order.findIndex((entry) => entry.startsWith(`${verb} actor_update_skill-run`));

  it('sends the COMMIT before the answer of a locked update; an unlocked one is answered first', async () => {
    // Without review: its draft is the whole transition (a pending run's would also tell its item).
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: false });
    const ref = { orgId: org, id: actor.row.id };
    const locked = await recordStatements(() =>
      t.app.actors.transact((tx) =>
        t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER, lock: true }),
      ),
    );
    expect(locked.result.outcome).toBe('applied');
    // The transaction's own connection (the app's relay and workers send on others meanwhile).
    const lockedOrder = locked.on('actor_update_skill-run');
    expect(update(lockedOrder, 'sent')).toBeGreaterThanOrEqual(0);
    expect(lockedOrder.indexOf('sent commit')).toBeGreaterThan(update(lockedOrder, 'sent'));
    expect(lockedOrder.indexOf('sent commit')).toBeLessThan(update(lockedOrder, 'answered'));
    expect(await runRow(ref.id)).toMatchObject({ status: 'completed', version: 2 });

    // Without the lock the version may have moved: the answer is checked before the COMMIT is sent.
    const pending = (await createSkillRun(t.app, org, { requiresApproval: true })).actor.row.id;
    const unlocked = await recordStatements(() =>
      t.app.actors.transact(async (tx) => {
        const sent = await t.app.actors.send(tx, RUN_KINDS, { orgId: org, id: pending }, approve(), {
          actingAs: SYSTEM,
        });
        await tx.sql.query('select 1');
        return sent;
      }),
    );
    expect(unlocked.result.outcome).toBe('applied');
    const unlockedOrder = unlocked.on('actor_update_skill-run');
    expect(update(unlockedOrder, 'answered')).toBeGreaterThanOrEqual(0);
    expect(update(unlockedOrder, 'answered')).toBeLessThan(unlockedOrder.indexOf('sent commit'));
    expect(await runRow(pending)).toMatchObject({ status: 'approved', version: 2 });
  });

  it('fails the transaction with the error of a locked update that failed, writing nothing', async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    const before = await rowCounts(t.app);
    const rowBefore = await runRow(ref.id);
    await t.app.db.sql.query('create table if not exists host_commit_test (n int)');
    let attempts = 0;
    const error = await withFault('runs', 'update', () =>
      t.app.actors.transact(async (tx) => {
        attempts++;
        // A statement before it, committed with it or not at all.
        await tx.sql.query('insert into host_commit_test values (1)');
        return t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER, lock: true });
      }),
    );
    expect(String(error)).toContain('injected fault on runs');
    expect(attempts).toBe(1);
    expect(await rowCounts(t.app)).toEqual(before);
    expect(await runRow(ref.id)).toEqual(rowBefore);
    expect(await t.app.db.sql.query('select n from host_commit_test')).toEqual([]);
  });
});

describe('a transaction that transitions an actor it already updated', () => {
  it('starts from its own write instead of loading the row again', async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const ref = { orgId: org, id: actor.row.id };
    const outcomes = await t.app.actors.transact(async (tx) => {
      const first = await t.app.actors.send(tx, RUN_KINDS, ref, succeeded(), { actingAs: WORKER });
      // A load from here on would find a snapshot it cannot resolve; the row is this transaction's.
      await tx.sql.query(`update runs set snapshot = '{}' where id = $1`, [ref.id]);
      const second = await t.app.actors.send(tx, RUN_KINDS, ref, approve(), { actingAs: SYSTEM });
      return [first.outcome, second.outcome];
    });
    expect(outcomes).toEqual(['applied', 'applied']);
    const row = await runRow(ref.id);
    expect(row).toMatchObject({ status: 'approved', version: 3 });
    expect(row.snapshot).toMatchObject({ value: 'approved' });
  });

  it("does not take another org's actor for it", async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const other = await orgIdOf(t.app, 'other');
    const outcomes = await t.app.actors.transact(async (tx) => {
      await t.app.actors.send(tx, RUN_KINDS, { orgId: org, id: actor.row.id }, succeeded(), {
        actingAs: WORKER,
      });
      const theirs = { orgId: other, id: actor.row.id };
      return (await t.app.actors.send(tx, RUN_KINDS, theirs, approve(), { actingAs: SYSTEM })).outcome;
    });
    expect(outcomes).toBe('not_found');
  });
});

describe('single transactions (one transition, one statement)', () => {
  const single = <T>(fn: Parameters<typeof t.app.actors.transact<T>>[0]) =>
    t.app.actors.transact(fn, { single: true });

  it('write concurrent creations whole, however they are batched', async () => {
    const before = await rowCounts(t.app);
    const outboxRows = async () =>
      (await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from outbox')).n;
    const rowsBefore = await outboxRows();
    // Creation statements go out pipelined on a leased connection of the pool (batcher.ts).
    const leases = vi.spyOn(t.app.db.sql, 'lease');
    let leased = 0;
    const created = await Promise.all(
      Array.from({ length: 40 }, () => single((tx) => createSkillRun(t.app, org, { tx }))),
    ).finally(() => {
      leased = leases.mock.calls.length;
      leases.mockRestore();
    });
    expect(leased).toBeGreaterThan(0);
    expect(new Set(created.map((c) => c.actor.row.id)).size).toBe(40);
    const after = await rowCounts(t.app);
    expect(after).toMatchObject({
      runs: before.runs + 40,
      transitions: before.transitions + 40,
      events: before.events + 80,
      outbox: before.outbox + 80,
      jobs: before.jobs + 40,
    });
    // A creation statement writes its messages as one outbox row: 80 messages in fewer rows than
    // there were creations, since the 40 went out in a few statements.
    expect(await outboxRows()).toBeLessThan(rowsBefore + 40);
    // Each run's outbox rows are in its event order.
    const disorder = await t.app.db.sql.query(
      `select 1 from outbox_messages o1 join outbox_messages o2 on o1.payload->>'runId' = o2.payload->>'runId'
        where (o1.id, o1.ord) < (o2.id, o2.ord) and (o1.payload->>'seq')::int > (o2.payload->>'seq')::int`,
    );
    expect(disorder).toHaveLength(0);
  });

  it('fall back to a real transaction when the transition has follow-ups, still atomic', async () => {
    const { actor } = await single((tx) => createSkillRun(t.app, org, { tx, requiresApproval: true }));
    const items = await t.app.db.sql.query('select 1 from review_items where run_id = $1 and open', [
      actor.row.id,
    ]);
    expect(items).toHaveLength(1);
    const before = await rowCounts(t.app);
    const error = await withFault('review_items', 'insert', () =>
      single((tx) => createSkillRun(t.app, org, { tx, requiresApproval: true })),
    );
    expect(String(error)).toContain('injected fault on review_items');
    expect(await rowCounts(t.app)).toEqual(before);
  });

  it('let exactly one of many concurrent decisions on one run win', async () => {
    const { actor } = await createSkillRun(t.app, org);
    const ref = { orgId: org, id: actor.row.id };
    const events: Array<StepSucceededEvent | RunCancelEvent> = [
      succeeded(),
      { type: 'CANCEL', by: 'token:abc', at: at() },
    ];
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        single((tx) =>
          t.app.actors.send(tx, RUN_KINDS, ref, events[i % 2] as StepSucceededEvent | RunCancelEvent, {
            actingAs: SYSTEM,
          }),
        ),
      ),
    );
    expect(results.filter((r) => r.outcome === 'applied')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'refused')).toHaveLength(11);
    const terminal = await t.app.db.sql.query(
      `select event from run_events where run_id = $1 and event in ('completed', 'cancelled')`,
      [ref.id],
    );
    expect(terminal).toHaveLength(1);
  });

  it('send an urgent update past the update statement of its kind in flight', async () => {
    const ref = async () => ({ orgId: org, id: (await createSkillRun(t.app, org)).actor.row.id });
    const [held, queued, urgent] = [await ref(), await ref(), await ref()];
    const send = (run: typeof held, options: { urgent?: boolean } = {}) =>
      single((tx) => t.app.actors.send(tx, RUN_KINDS, run, succeeded(), { actingAs: WORKER, ...options }));
    // Another session holds run `held`'s row: its update statement waits in flight, and the run kinds
    // keep one update statement in flight at a time.
    const locked = deferred();
    const release = deferred();
    const holder = t.app.db.sql.tx(async (sql) => {
      await sql.query('select 1 from runs where id = $1 for update', [held.id]);
      locked.resolve();
      await release.promise;
    });
    await locked.promise;
    const first = send(held);
    try {
      await lockWait('the held run’s update to wait on the row lock');
      let queuedDone = false;
      const second = send(queued).then((result) => {
        queuedDone = true;
        return result;
      });
      // The urgent one commits while the others wait: behind the held row, and behind its statement.
      const sent = await withTimeout(send(urgent, { urgent: true }), 'the urgent update');
      expect(sent.outcome).toBe('applied');
      expect(queuedDone).toBe(false);
      release.resolve();
      expect((await first).outcome).toBe('applied');
      expect((await second).outcome).toBe('applied');
    } finally {
      release.resolve();
      await holder;
    }
  });

  it('publish no message of an actor that a batched update missed', async () => {
    const ids = await Promise.all([0, 1, 2].map(async () => (await createSkillRun(t.app, org)).actor.row.id));
    // The host's own statements, under names of their own (prepared names are per connection).
    const updates = buildStatements(t.app.actors.kind(SKILL_RUN_KIND)).update;
    const batcher = createStatementBatcher({
      sql: t.app.db.sql,
      statements: { for: (rows) => ({ ...updates.for(rows), name: `test_${updates.for(rows).name}` }) },
    });
    // An update of run `id` expecting its version moved by `skew`, with one test message.
    const update = async (id: number, skew: number): Promise<TransitionRows> => {
      const r = await t.app.db.sql.one<Record<string, unknown> & { version: number }>(
        'select * from runs where id = $1',
        [id],
      );
      const actor: Record<string, unknown> = { id, org_id: org, updated_at: new Date().toISOString() };
      for (const column of [
        'snapshot',
        'last_seq',
        'status',
        'paused_at',
        'review_state',
        'output',
        'error',
      ]) {
        actor[column] = r[column];
      }
      for (const column of ['review', 'step_results', 'completed_at']) actor[column] = r[column];
      actor.version = r.version + skew;
      return {
        actors: [actor],
        ...{
          transitions: [],
          events: [],
          jobs: [],
          timersSet: [],
          timersDelete: [],
          audit: [],
          jobsDone: [],
        },
        outbox: [{ subject: `evt.${org}.run.${id}.probe`, event_id: randomUUID(), payload: { id } }],
        extra: {},
      };
    };
    const [a, b, c] = ids as [number, number, number];
    const rows = await Promise.all([update(a, 0), update(b, 0), update(c, -1)]);
    // The first goes out alone; the next two share a statement, in which c's version misses.
    const written = await Promise.all([
      batcher.submit(rows[0] as TransitionRows, a),
      batcher.submit(rows[1] as TransitionRows, b),
      batcher.submit(rows[2] as TransitionRows, c),
    ]);
    expect(written).toEqual([true, true, false]);
    const published = await t.app.db.sql.query<{ run: number }>(
      `select (payload->>'id')::int as run from outbox_messages where subject like $1 order by id, ord`,
      [`evt.${org}.run.%.probe`],
    );
    expect(published.map((m) => m.run)).toEqual([a, b]);
  });

  it('keep one failing creation from failing the others batched with it', async () => {
    const before = await rowCounts(t.app);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        // Org 0 does not exist: its run row breaks the foreign key.
        single((tx) => createSkillRun(t.app, i === 7 ? 0 : org, { tx })),
      ),
    );
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(String((results[7] as PromiseRejectedResult).reason)).toContain('runs_org_id_fkey');
    expect((await rowCounts(t.app)).runs).toBe(before.runs + 19);
  });
});

describe('plans over tables that grow from empty', () => {
  it("find an update's rows by index once its table has grown, not by a scan planned while it was empty", async () => {
    // A run's transition statement, planned as the pool's sessions plan it (generically) on a
    // session that prepared it now.
    const { actor } = await createSkillRun(t.app, org);
    const rows = {
      actors: [{ id: actor.row.id, org_id: org, version: actor.row.version }],
      transitions: [],
      events: [],
      outbox: [],
      jobs: [],
      timersSet: [],
      timersDelete: [],
      audit: [],
      jobsDone: [{ actor_id: actor.row.id, job_id: 1, locked_by: 'nobody' }],
      extra: {},
    } satisfies TransitionRows;
    const statement = buildStatements(t.app.actors.kind(SKILL_RUN_KIND)).update.for(rows);
    const plan = () =>
      t.app.db.sql.session(async (sql) => {
        await sql.query('set plan_cache_mode = force_generic_plan');
        await sql.query(`prepare r3_test_plan as ${statement.text}`);
        try {
          const lines = await sql.query<{ 'QUERY PLAN': string }>(
            `explain execute r3_test_plan(${statementParams(statement, rows)
              .map((p) => `'${p.replaceAll("'", "''")}'`)
              .join(', ')})`,
          );
          return lines.map((l) => l['QUERY PLAN']).join('\n');
        } finally {
          await sql.query('deallocate r3_test_plan');
        }
      });
    // The host analyzes the runs table as the runs it created double (growth.ts).
    const analyzed = () =>
      t.app.db.sql.one<{ at: string | null }>(
        `select coalesce(last_analyze, last_autoanalyze)::text as at from pg_stat_user_tables where relname = 'runs'`,
      );
    const before = (await analyzed()).at;
    for (let i = 0; i < 6; i++) {
      await Promise.all(
        Array.from({ length: 50 }, () =>
          t.app.actors.transact((tx) => createSkillRun(t.app, org, { tx }), { single: true }),
        ),
      );
    }
    await withTimeout(
      (async () => {
        while ((await analyzed()).at === before) await new Promise((r) => setTimeout(r, 20));
      })(),
      'the runs table analyzed',
    );
    const text = await plan();
    expect(text).not.toMatch(/Seq Scan on runs/);
    expect(text).toMatch(/Index[^\n]* on runs_pkey|Index Scan using runs_pkey/);
    expect(text).toMatch(/jobs_pkey/);
  });
});
