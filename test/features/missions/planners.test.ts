/**
 * Mission runs on the `openai` provider against scripted planners on the fake OpenAI-compatible
 * server (real sockets, real PostgreSQL): a valid diamond plan whose middle tasks run in parallel and
 * whose last task gets both outputs; an invalid plan sent back with its errors and fixed; invalid
 * twice (PLAN_INVALID); a task whose skill fails; a team agent deactivated mid-run; the plan review
 * (reject cancels, approve resumes), assign and snooze, and the approve capability.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ChatBody, chatReply, type FakeOpenAI, startFakeOpenAI } from '../../../fakes/openai-server.js';
import { RUN_KINDS } from '../../../src/features/runs/run-kinds.js';
import { WORKER } from '../../../src/platform/actors/acting-as.js';
import { type Callers, callers } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createMission, createTeam, waitForMissionRun } from '../../helpers/missions.js';
import { loggedEvents, orgIdOf } from '../../helpers/runs.js';

let t: TestApp;
let fake: FakeOpenAI;
let c: Callers;
/** Plans the fake answers to planner prompts, in order. */
const plans: string[] = [];

const isPlanner = (body: ChatBody) =>
  body.messages.some((m) => m.role === 'user' && m.content?.includes('You are the planner of a mission'));

beforeAll(async () => {
  fake = await startFakeOpenAI({
    chatContent: (body) => {
      if (isPlanner(body)) return plans.shift() ?? '{"tasks": []}';
      const prompt = body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
      if (body.response_format) return JSON.stringify({ echo: prompt });
      return `done: ${prompt.split('\n').find((line) => line.startsWith('Your task')) ?? prompt.slice(0, 40)}`;
    },
  });
  t = await startTestApp({
    R3_MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: fake.baseUrl,
    R3_MODEL: 'gpt-test',
  });
  c = await callers(t, 'planners');
  await createTeam(t, c.writer, ['lead', 'writer', 'critic']);
  await createMission(t, c.writer, 'diamond', ['lead', 'writer', 'critic']);
  await createMission(t, c.writer, 'reviewed', ['lead', 'writer'], { review: 'plan' });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const task = (id: string, agent: string, dependsOn: string[] = [], extra: Record<string, unknown> = {}) => ({
  id,
  title: `Task ${id}`,
  agent,
  instructions: `Do ${id}`,
  dependsOn,
  ...extra,
});
const diamond = JSON.stringify({
  tasks: [
    task('a', 'lead'),
    task('b', 'writer', ['a']),
    task('c', 'critic', ['a']),
    task('d', 'lead', ['b', 'c']),
  ],
});

async function start(body: Record<string, unknown>): Promise<number> {
  const res = await t.request('POST', '/api/v1/mission-runs', { token: c.invoker, body });
  expect(res.status, res.text).toBe(202);
  return res.body.missionRunId as number;
}

async function events(id: number): Promise<Array<{ event: string; task: string | null }>> {
  const rows = await t.app.db.sql.query<{ event: string; step: string | null }>(
    'select event, step from mission_run_events where run_id = $1 order by seq',
    [id],
  );
  return rows.map((r) => ({ event: r.event, task: r.step }));
}

const plannerPrompts = () =>
  fake.requests
    .map((r) => r.body as ChatBody)
    .filter(isPlanner)
    .map((b) => b.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

describe('scripted planners', () => {
  it('a valid diamond: b and c run in parallel after a; d gets both outputs', async () => {
    // a names its agent's skill: its start (the first, the plan just proposed) finds it read with the lock.
    const plan = diamond.replace('"instructions":"Do a"', '"instructions":"Do a","skill":"draft"');
    expect(plan).not.toBe(diamond);
    plans.push(`Here is the plan:\n\`\`\`json\n${plan}\n\`\`\``);
    // Tasks after others start leased in the process whose transaction started them, from their run as
    // created: no claim, and their step never reads the run.
    const leased = vi.spyOn(t.app.jobs, 'startLeased');
    const reads = vi.spyOn(t.app.db.sql, 'prepared');
    const statements = vi.spyOn(pg.Client.prototype, 'query');
    const id = await start({ missionSlug: 'diamond', input: { product: 'Kite' } });
    const run = await waitForMissionRun(t, c.reader, id, ['awaiting_review', 'failed']);
    const tasksLeased = leased.mock.calls.map(([job, origin]) => {
      // Its payload names the mission run: its step reads its run alone (execute-step.ts).
      expect(job).toMatchObject({
        kind: 'execute_step',
        attempts: 1,
        priority: 1,
        payload: { missionRunId: id },
      });
      expect(origin?.row).toMatchObject({
        id: (job.payload as { actorId: number }).actorId,
        mission_run_id: id,
      });
      return origin?.row.mission_task_id;
    });
    expect(tasksLeased.sort()).toEqual(['b', 'c', 'd']);
    // Each read names its runs' ids as an array (the runs of the jobs that started together).
    const loadedRuns = reads.mock.calls
      .filter(([name]) => name === 'execute_step_load')
      .flatMap(([, , p]) => p?.[0] as number[]);
    const children = await t.app.db.sql.query<{ id: number; task: string }>(
      'select id, mission_task_id as task from runs where mission_run_id = $1',
      [id],
    );
    expect(
      children
        .filter((r) => loadedRuns.includes(r.id))
        .map((r) => r.task)
        .sort(),
    ).toEqual(['#plan-1', 'a']);
    // The tasks' agents and skills came with the mission run's locked load, one per report (the
    // kind's `lockedWith`); only the planner's start read them on its own.
    const texts = statements.mock.calls
      .map(([query]) => (typeof query === 'string' ? query : ((query as { text?: string }).text ?? '')))
      .filter((text) => text.includes('from agents a join workspace_heads'));
    const lockedLoads = texts.filter((text) => text.includes('for update of t')).length;
    expect(texts.filter((text) => !text.includes('for update of t'))).toHaveLength(1);
    statements.mockRestore();
    leased.mockRestore();
    reads.mockRestore();
    expect(run.status).toBe('awaiting_review');
    expect(run.plan.tasks.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
      ['c', 'completed'],
      ['d', 'completed'],
    ]);
    const log = await events(id);
    const at = (event: string, id: string) => log.findIndex((e) => e.event === event && e.task === id);
    // b and c both started before either completed: they were running at once.
    expect(Math.max(at('task_started', 'b'), at('task_started', 'c'))).toBeLessThan(
      Math.min(at('task_completed', 'b'), at('task_completed', 'c')),
    );
    expect(at('task_started', 'd')).toBeGreaterThan(
      Math.max(at('task_completed', 'b'), at('task_completed', 'c')),
    );
    // Each transition that starts tasks records their runs in its own write (settled, a log row each).
    expect(await loggedEvents(t.app, 'mission-run', id)).toEqual([
      'xstate.init',
      'PLAN_PROPOSED',
      'TASK_STARTED',
      'TASK_SUCCEEDED',
      'TASK_STARTED',
      'TASK_SUCCEEDED',
      'TASK_SUCCEEDED',
      'TASK_STARTED',
      'TASK_SUCCEEDED',
    ]);
    const written = await t.app.db.sql.one<{ version: number }>(
      'select version from mission_runs where id = $1',
      [id],
    );
    // Six writes, or five when b's and c's reports ran in one transaction (their run's ends coincided);
    // each after the creation a report's, which loaded the row locked.
    expect([5, 6]).toContain(written.version);
    expect(lockedLoads).toBe(written.version - 1);
    const d = run.plan.tasks[3];
    const dRequest = fake.requests
      .map((r) => r.body as ChatBody)
      .find((b) => b.messages.some((m) => m.content?.includes('Your task (d)')));
    const dPrompt = dRequest?.messages.at(-1)?.content ?? '';
    expect(dPrompt).toContain('## b: Task b');
    expect(dPrompt).toContain('## c: Task c');
    expect(dPrompt).toContain('done: Your task (b): Task b');
    expect(d.output.text).toContain('Your task (d)');
    // The planner ran as the planner agent, with its system prompt.
    const plannerRequest = fake.requests.map((r) => r.body as ChatBody).find(isPlanner);
    expect(plannerRequest?.messages[0]).toEqual({ role: 'system', content: 'You are lead.' });
  });

  it('an invalid plan is sent back once with the errors, and the fixed one runs', async () => {
    plans.push(JSON.stringify({ tasks: [task('a', 'lead', ['b']), task('b', 'ghost', ['a'])] }), diamond);
    const before = plannerPrompts().length;
    const id = await start({ missionSlug: 'diamond', input: {} });
    const run = await waitForMissionRun(t, c.reader, id, ['awaiting_review', 'failed']);
    expect(run.status).toBe('awaiting_review');
    const prompts = plannerPrompts().slice(before);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).not.toContain('previousPlanWasRefused');
    const second = JSON.parse(prompts[1] as string);
    expect(second.previousPlanWasRefused).toEqual([
      'tasks.1.agent: "ghost" is not in the team ("lead", "writer", "critic")',
      'dependsOn: the tasks form a cycle (a → b → a)',
    ]);
    const children = await t.request('GET', `/api/v1/runs?missionRunId=${id}`, { token: c.reader });
    expect(children.body.runs).toHaveLength(6);
  });

  it('invalid twice: the run fails PLAN_INVALID and starts no task', async () => {
    plans.push('I would rather not plan.', JSON.stringify({ tasks: [task('a', 'lead'), task('a', 'lead')] }));
    const id = await start({ missionSlug: 'diamond', input: {} });
    const run = await waitForMissionRun(t, c.reader, id, ['failed', 'awaiting_review']);
    expect(run.status).toBe('failed');
    expect(run.plan).toBeNull();
    expect(run.error.code).toBe('PLAN_INVALID');
    expect(run.error.message).toContain('tasks.1.id: "a" is used by another task');
    const children = await t.request('GET', `/api/v1/runs?missionRunId=${id}`, { token: c.reader });
    expect(children.body.runs).toHaveLength(2);
  });

  it('a task whose skill fails fails the run, naming the task; its running siblings are cancelled', async () => {
    const strict = await t.request('POST', '/api/v1/skills', {
      token: c.writer,
      body: {
        manifest: {
          slug: 'strict',
          name: 'Strict',
          outputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        },
        promptMd: 'Title for {{input.goal}}',
      },
    });
    expect(strict.status).toBe(201);
    await t.request('PATCH', '/api/v1/agents/writer', {
      token: c.writer,
      body: { skillSlugs: ['draft', 'strict'] },
    });
    plans.push(
      JSON.stringify({ tasks: [task('a', 'lead'), task('b', 'writer', ['a'], { skill: 'strict' })] }),
    );
    const id = await start({ missionSlug: 'diamond', input: {} });
    const run = await waitForMissionRun(t, c.reader, id, ['failed', 'awaiting_review']);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'TASK_FAILED', task: 'b' });
    expect(run.error.message).toContain('OUTPUT_INVALID');
    expect(run.plan.tasks.map((x: { status: string }) => x.status)).toEqual(['completed', 'failed']);
  });

  it('a team agent deactivated mid-run: its task fails with AGENT_INACTIVE', async () => {
    const gated = await t.request('POST', '/api/v1/skills', {
      token: c.writer,
      body: {
        manifest: { slug: 'gated', name: 'Gated', requiresApproval: true },
        promptMd: 'Gated {{input.goal}}',
      },
    });
    expect(gated.status).toBe(201);
    await t.request('PATCH', '/api/v1/agents/lead', {
      token: c.writer,
      body: { skillSlugs: ['draft', 'gated'] },
    });
    await t.request('POST', '/api/v1/agents', {
      token: c.writer,
      body: { slug: 'temp', name: 'Temp', skillSlugs: ['draft'] },
    });
    plans.push(
      JSON.stringify({ tasks: [task('a', 'lead', [], { skill: 'gated' }), task('b', 'temp', ['a'])] }),
    );
    const id = await start({ team: ['lead', 'temp'], goal: 'Gated work' });
    const waiting = await waitForMissionRun(t, c.reader, id, ['executing']);
    let taskRun = waiting.plan.tasks[0].runId as number | null;
    for (let i = 0; i < 100 && !taskRun; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      taskRun = (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.reader })).body.plan.tasks[0]
        .runId;
    }
    const off = await t.request('PATCH', '/api/v1/agents/temp', { token: c.writer, body: { active: false } });
    expect(off.status).toBe(200);
    for (let i = 0; i < 100; i++) {
      const run = await t.request('GET', `/api/v1/runs/${taskRun}`, { token: c.reader });
      if (run.body.stepResults.gated) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const approved = await t.request('POST', `/api/v1/runs/${taskRun}/approve`, {
      token: c.writer,
      body: {},
    });
    expect(approved.status).toBe(200);
    const run = await waitForMissionRun(t, c.reader, id, ['failed']);
    expect(run.error).toMatchObject({ code: 'TASK_FAILED', task: 'b' });
    expect(run.error.message).toContain('AGENT_INACTIVE');
    expect(run.error.message).toContain('agent "temp" is not active');
  });

  it('siblings reported in one transaction reach the mission run as one transition (one write)', async () => {
    // The planner answers the diamond and a is done; b's and c's model calls never answer.
    const asked = fake.requests.length;
    fake.enqueue(chatReply(diamond), chatReply('done: a'), { hang: true }, { hang: true });
    const id = await start({ missionSlug: 'diamond', input: {} });
    await fake.waitForRequests(asked + 4);
    const org = await orgIdOf(t.app, 'planners');
    const children = async () =>
      t.app.db.sql.query<{ id: number; task: string; status: string; step: string }>(
        `select r.id, r.mission_task_id as task, r.status, j.payload ->> 'step' as step
           from runs r left join jobs j on j.payload ->> 'actorId' = r.id::text
          where r.mission_run_id = $1 order by r.id`,
        [id],
      );
    const running = (await children()).filter((r) => r.task === 'b' || r.task === 'c');
    expect(running.map((r) => [r.task, r.status])).toEqual([
      ['b', 'running'],
      ['c', 'running'],
    ]);
    const version = async () =>
      (await t.app.db.sql.one<{ version: number }>('select version from mission_runs where id = $1', [id]))
        .version;
    const before = await version();
    // Both report in one transaction, as execute-step's group commit runs siblings that end together.
    await t.app.actors.transact(async (tx) => {
      for (const child of running) {
        const sent = await t.app.actors.send(
          tx,
          RUN_KINDS,
          { orgId: org, id: child.id },
          {
            type: 'STEP_SUCCEEDED',
            step: child.step,
            attempt: 1,
            output: { text: `done: ${child.task}` },
            at: new Date(t.clock.now()).toISOString(),
          },
          { actingAs: WORKER },
        );
        expect(sent.outcome).toBe('applied');
      }
    });
    expect(await version()).toBe(before + 1);
    const logged = await t.app.db.sql.query<{ event_type: string; task: string | null }>(
      `select event_type, coalesce(event ->> 'task', event -> 'tasks' -> 0 ->> 'task') as task
         from actor_transitions where actor_kind = 'mission-run' and actor_id = $1 order by id`,
      [id],
    );
    expect(logged.slice(-3)).toEqual([
      { event_type: 'TASK_SUCCEEDED', task: 'b' },
      { event_type: 'TASK_SUCCEEDED', task: 'c' },
      { event_type: 'TASK_STARTED', task: 'd' },
    ]);
    const run = await waitForMissionRun(t, c.reader, id, ['awaiting_review', 'failed']);
    expect(run.status).toBe('awaiting_review');
    expect(run.plan.tasks.map((x: { output: { text: string } }) => x.output.text.slice(0, 7))).toEqual([
      'done: a',
      'done: b',
      'done: c',
      'done: Y',
    ]);
    expect((await children()).filter((r) => r.task === 'd')).toHaveLength(1);
  });
});

describe('the plan review', () => {
  const plan = JSON.stringify({ tasks: [task('a', 'lead'), task('b', 'writer', ['a'])] });

  it('reject cancels the run; no task runs', async () => {
    plans.push(plan);
    const id = await start({ missionSlug: 'reviewed', input: {} });
    const waiting = await waitForMissionRun(t, c.reader, id, ['awaiting_review']);
    expect(waiting.reviewStage).toBe('plan');
    expect(waiting.plan.tasks.map((x: { status: string }) => x.status)).toEqual(['pending', 'pending']);
    const queue = await t.request('GET', '/api/v1/reviews', { token: c.reader });
    expect(queue.body.reviews).toContainEqual(
      expect.objectContaining({
        kind: 'mission',
        id,
        status: 'awaiting_review',
        title: `Mission reviewed: plan (mission run ${id})`,
        reviewUrl: `${t.app.config.baseUrl}/review/missions/${id}`,
        pollUrl: `/api/v1/mission-runs/${id}`,
      }),
    );
    const rejected = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'mission', id, action: 'reject', reason: 'too vague' },
    });
    expect(rejected.status).toBe(200);
    const run = await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.reader });
    expect(run.body).toMatchObject({
      status: 'cancelled',
      review: { decision: 'rejected', reason: 'too vague' },
    });
    const children = await t.request('GET', `/api/v1/runs?missionRunId=${id}`, { token: c.reader });
    expect(children.body.runs).toHaveLength(1);
  });

  it('assign and snooze work; decide needs the approve capability (403 first); approve resumes to completed', async () => {
    plans.push(plan);
    const id = await start({ missionSlug: 'reviewed', input: {} });
    await waitForMissionRun(t, c.reader, id, ['awaiting_review']);
    const assigned = await t.request('POST', '/api/v1/reviews/assign', {
      token: c.writer,
      body: { kind: 'mission', id, assignedTo: null, note: 'anyone' },
    });
    expect(assigned.status).toBe(200);
    const snoozed = await t.request('POST', '/api/v1/reviews/snooze', {
      token: c.writer,
      body: { kind: 'mission', id, until: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(snoozed.status).toBe(200);
    const hidden = await t.request('GET', '/api/v1/reviews', { token: c.reader });
    expect(
      hidden.body.reviews.some((r: { id: number; kind: string }) => r.kind === 'mission' && r.id === id),
    ).toBe(false);
    const noApprove = (await t.token({ org: 'planners', scopes: ['read:all', 'run:invoke'] })).token;
    const forbidden = await t.request('POST', '/api/v1/reviews/decide', {
      token: noApprove,
      body: { kind: 'mission', id, action: 'approve' },
    });
    expect(forbidden.status).toBe(403);
    const theirs = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.stranger,
      body: { kind: 'mission', id, action: 'approve' },
    });
    expect(theirs.status).toBe(404);
    const approved = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'mission', id, action: 'approve' },
    });
    expect(approved.status).toBe(200);
    const run = await waitForMissionRun(t, c.reader, id, ['completed', 'failed']);
    expect(run.status).toBe('completed');
    expect(run.review).toMatchObject({ decision: 'approved' });
    const again = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'mission', id, action: 'approve' },
    });
    expect(again.status).toBe(409);
  });
});
