/**
 * kill -9 of the worker process of a tool loop between two tool calls, with real `r3 serve` processes
 * on one database and NATS: the first call (run_code answering `Math.random()`, so a second execution
 * would answer another number) is finished and recorded, the model is being asked for the second turn
 * when the process dies. The restarted process resumes the run from the record: the model gets the
 * recorded result, the call is not executed again (same result, same completion time), and the run
 * completes after the second call. And a call in flight when its process dies is executed again by
 * the restarted one, because run_code is idempotent (`safe`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AssistantTurn,
  type ChatBody,
  type FakeOpenAI,
  openaiEnv,
  startFakeOpenAI,
} from '../../../fakes/openai-server.js';
import { request } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { deleteTestStreams, probeNats, randomTestPrefix, requireNats } from '../../helpers/nats.js';
import { createCliToken, type ServeProcess, spawnServe } from '../../helpers/process.js';
import { waitFor } from '../../helpers/wait.js';

const nats = await probeNats();

/** The `tool` messages of a chat request, by call id (content as sent). */
function toolAnswers(body: ChatBody): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of body.messages) if (m.role === 'tool') out[m.tool_call_id as string] = m.content as string;
  return out;
}

describe.skipIf(nats.skip)('kill -9 of a worker between two tool calls', () => {
  let database: TestDatabase;
  let fake: FakeOpenAI;
  let env: Record<string, string>;
  const nodes: ServeProcess[] = [];
  let token: string;
  const prefix = randomTestPrefix('toolcrash');
  /** Whether the model may answer the second turn (false: it hangs, as a slow model would). */
  let answerSecondTurn = false;
  /** Whether the model may finish the workflow's second step. */
  let answerWorkflow = false;

  /** Whether the model may answer the `pipelined` run's second turn. */
  let answerPipelined = false;

  const script = (body: ChatBody): AssistantTurn => {
    const answers = toolAnswers(body);
    const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
    if (prompt.startsWith('Roll wf')) {
      // The workflow's two steps: each calls run_code once with the same id; the second step's
      // model hangs after its call until the test has killed the process.
      const [answer] = Object.values(answers);
      if (answer === undefined) {
        return {
          toolCalls: [
            { id: 'die', name: 'run_code', arguments: '{"language":"javascript","code":"Math.random()"}' },
          ],
        };
      }
      if (prompt === 'Roll wf-again' && !answerWorkflow) return { hang: true };
      return { content: `${prompt}: ${answer}` };
    }
    if (body.messages.some((m) => m.role === 'user' && m.content?.includes('pipelined'))) {
      // A call that answers a random number after 2 s: a second execution answers another. The 2 s
      // are the test's window to lock the run's row once the call is recorded running (at 0.3 s the
      // outcome committed first in a loaded run, three files at a time).
      if (!('spin' in answers)) {
        const code = 'const end = Date.now() + 2000; while (Date.now() < end) {} Math.random()';
        return {
          toolCalls: [
            { id: 'spin', name: 'run_code', arguments: JSON.stringify({ language: 'javascript', code }) },
          ],
        };
      }
      return answerPipelined ? { content: `spin ${answers.spin}` } : { hang: true };
    }
    if (body.messages.some((m) => m.role === 'user' && m.content?.includes('slow'))) {
      // A call that takes 1.5 s: the test kills its process while it executes.
      if ('busy' in answers) return { content: `busy ${answers.busy}` };
      const code = 'const end = Date.now() + 1500; while (Date.now() < end) {} "done"';
      return {
        toolCalls: [
          { id: 'busy', name: 'run_code', arguments: JSON.stringify({ language: 'javascript', code }) },
        ],
      };
    }
    if (!('first' in answers)) {
      return {
        toolCalls: [
          { id: 'first', name: 'run_code', arguments: '{"language":"javascript","code":"Math.random()"}' },
        ],
      };
    }
    if (!answerSecondTurn) return { hang: true };
    if (!('second' in answers)) {
      return {
        toolCalls: [{ id: 'second', name: 'run_code', arguments: '{"language":"javascript","code":"2+2"}' }],
      };
    }
    return { content: `first ${answers.first}, second ${answers.second}` };
  };

  beforeAll(async () => {
    requireNats(nats);
    database = await createTestDatabase();
    fake = await startFakeOpenAI({ assistant: script });
    env = openaiEnv(fake, {
      DATABASE_URL: database.url,
      NATS_URL: nats.url,
      R3_BUS_PREFIX: prefix,
      R3_RATE_LIMIT_PER_MIN: '0',
    });
    nodes.push(await spawnServe(env));
    token = (await createCliToken(database.url, 'toolcrash')).token;
    const skill = await request(nodes[0]?.url as string, 'POST', '/api/v1/skills', {
      token,
      body: { manifest: { slug: 'dice', name: 'Dice', tools: ['run_code'] }, promptMd: 'Roll {{input.n}}' },
    });
    expect(skill.status, skill.text).toBe(201);
    const workflow = await request(nodes[0]?.url as string, 'POST', '/api/v1/workflows', {
      token,
      body: {
        slug: 'dice-twice',
        name: 'Dice twice',
        steps: [
          { name: 'roll', type: 'skill', skill: 'dice', input: { n: 'wf' } },
          { name: 'again', type: 'skill', skill: 'dice', input: { n: 'wf-again' } },
        ],
      },
    });
    expect(workflow.status, workflow.text).toBe(201);
  });

  afterAll(async () => {
    for (const node of nodes) {
      if (node.child.exitCode === null && node.child.signalCode === null) await node.stop();
    }
    await fake?.close();
    await database?.drop();
    await deleteTestStreams(nats, [prefix]);
  });

  async function sql(text: string): Promise<Array<Record<string, unknown>>> {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  }

  /** kill -9 of `node`; then a new process, which resumes the run; the run once it completed there. */
  async function killAndResume(node: ServeProcess, runId: number, beforeRestart = () => {}) {
    const exited = new Promise((resolve) => node.child.once('exit', resolve));
    node.child.kill('SIGKILL');
    await exited;
    beforeRestart();
    const restarted = await spawnServe(env);
    nodes.push(restarted);
    const read = async () => (await request(restarted.url, 'GET', `/api/v1/runs/${runId}`, { token })).body;
    await waitFor(
      async () => (await read()).status === 'completed',
      'the restarted process to complete the run',
      30_000,
    );
    return read();
  }

  /** Starts a run of `dice` on `node` with input `n`; its id once its first call is recorded `running`. */
  async function startRecorded(node: ServeProcess, n: string): Promise<number> {
    const created = await request(node.url, 'POST', '/api/v1/skills/dice/runs', {
      token,
      body: { input: { n } },
    });
    expect(created.status, created.text).toBe(202);
    const runId = created.body.runId as number;
    await waitFor(
      async () =>
        (await sql(`select 1 from tool_calls where run_id = ${runId} and status = 'running'`)).length === 1,
      'the call to be recorded running',
      20_000,
    );
    return runId;
  }

  it('resumes from the record: the finished call is not executed again', async () => {
    const first = nodes[0] as ServeProcess;
    const created = await request(first.url, 'POST', '/api/v1/skills/dice/runs', {
      token,
      body: { input: { n: 1 } },
    });
    expect(created.status, created.text).toBe(202);
    const runId = created.body.runId as number;

    // The second model request carries the first call's answer: the call is done, and once its
    // outcome is committed (the request goes out meanwhile), recorded.
    await waitFor(() => fake.requests.length >= 2, 'the model to be asked for the second turn', 20_000);
    await waitFor(
      async () =>
        (await sql(`select 1 from tool_calls where run_id = ${runId} and status = 'ok'`)).length === 1,
      'the first call to be recorded',
      20_000,
    );
    const before = await sql(
      `select call_id, status, result::text as result, completed_at from tool_calls where run_id = ${runId}`,
    );
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ call_id: 'first', status: 'ok' });
    const sentBefore = toolAnswers(fake.requests[1]?.body as ChatBody).first;
    expect(JSON.parse(sentBefore as string)).toEqual(JSON.parse(before[0]?.result as string));

    let requestsAtKill = 0;
    const run = await killAndResume(first, runId, () => {
      answerSecondTurn = true;
      requestsAtKill = fake.requests.length;
    });
    const after = await sql(
      `select call_id, status, result::text as result, completed_at from tool_calls where run_id = ${runId}
        order by turn`,
    );
    // The first call keeps its one execution: the same random number, completed at the same time.
    expect(after.map((r) => r.call_id)).toEqual(['first', 'second']);
    expect(after[0]?.result).toBe(before[0]?.result);
    expect(after[0]?.completed_at).toEqual(before[0]?.completed_at);
    expect(run.toolCalls.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['first', 'ok'],
      ['second', 'ok'],
    ]);
    // The resumed conversation replays the recorded answer to the model, unchanged.
    const resumed = fake.requests.slice(requestsAtKill).map((r) => r.body as ChatBody);
    expect(resumed.length).toBe(2);
    expect(toolAnswers(resumed[0] as ChatBody).first).toBe(sentBefore);
    expect(run.output.text).toBe(`first ${sentBefore}, second {"result":4,"stdout":"","error":null}`);
  });

  it('executes again a call whose outcome was not committed when its process died, though the model was already asked', async () => {
    const node = nodes.at(-1) as ServeProcess;
    const asked = (n: number) =>
      fake.requests.filter((r) =>
        (r.body as ChatBody).messages.some((m) => m.role === 'user' && m.content?.includes('pipelined')),
      ).length >= n;
    const runId = await startRecorded(node, 'pipelined');
    // The run's row held by another transaction: the call's outcome cannot commit.
    const pg = await import('pg');
    const locker = new pg.default.Client({ connectionString: database.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query(`select 1 from runs where id = ${runId} for update`);
    const lockerPid = (await locker.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    // The model is asked for the next turn with the outcome while it is still being committed.
    await waitFor(() => asked(2), 'the model to be asked for the second turn', 20_000);
    const sent = fake.requests
      .map((r) => r.body as ChatBody)
      .filter((b) => b.messages.some((m) => m.role === 'user' && m.content?.includes('pipelined')))
      .map((b) => toolAnswers(b).spin)
      .find((answer) => answer !== undefined) as string;
    expect(JSON.parse(sent)).toMatchObject({ result: expect.any(Number), error: null });
    const running = await sql(`select status from tool_calls where run_id = ${runId}`);
    expect(running).toEqual([{ status: 'running' }]);

    const run = await killAndResume(node, runId, () => {
      answerPipelined = true;
      // The dead process's statement never commits: its backend is ended before the row is let go.
      void (async () => {
        await sql(
          `select pg_terminate_backend(pid) from pg_stat_activity where ${lockerPid} = any(pg_blocking_pids(pid))`,
        );
        await locker.query('rollback');
        await locker.end();
      })();
    });
    // Executed again (run_code is idempotent): one record, another number than the one first sent.
    const after = await sql(
      `select call_id, status, result::text as result from tool_calls where run_id = ${runId}`,
    );
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ call_id: 'spin', status: 'ok' });
    expect(JSON.parse(after[0]?.result as string)).not.toEqual(JSON.parse(sent));
    expect(run.output.text).toBe(`spin ${JSON.stringify(JSON.parse(after[0]?.result as string))}`);
  });

  it('executes again a call of an idempotent tool that was in flight when its process died', async () => {
    const node = nodes.at(-1) as ServeProcess;
    const runId = await startRecorded(node, 'slow');
    const [recorded] = await sql(`select started_at from tool_calls where run_id = ${runId}`);
    const run = await killAndResume(node, runId);
    expect(run.output.text).toBe('busy {"result":"done","stdout":"","error":null}');
    expect(run.toolCalls).toEqual([
      expect.objectContaining({
        id: 'busy',
        status: 'ok',
        result: { result: 'done', stdout: '', error: null },
      }),
    ]);
    const [after] = await sql(`select started_at, completed_at from tool_calls where run_id = ${runId}`);
    // One record: recorded before the first execution, completed by the second.
    expect(after?.started_at).toEqual(recorded?.started_at);
    expect(after?.completed_at).not.toBeNull();
  });

  it("resumes a workflow's skill step from its own record: no call of either step is executed again", async () => {
    const node = nodes.at(-1) as ServeProcess;
    const created = await request(node.url, 'POST', '/api/v1/workflows/dice-twice/runs', {
      token,
      body: { input: {} },
    });
    expect(created.status, created.text).toBe(202);
    const runId = created.body.runId as number;
    // The second step's model is asked after its call: both steps' calls are recorded.
    await waitFor(
      () =>
        fake.requests.some((r) => {
          const body = r.body as ChatBody;
          return body.messages[0]?.content === 'Roll wf-again' && Object.keys(toolAnswers(body)).length > 0;
        }),
      "the second step's model to be asked after its call",
      20_000,
    );
    const calls = () =>
      sql(
        `select call_id, step, turn, status, result::text as result, completed_at from tool_calls
          where run_id = ${runId} order by turn`,
      );
    // The request goes out while the call's outcome commits: wait for the record too.
    await waitFor(
      async () => (await calls()).filter((r) => r.status === 'ok').length === 2,
      "both steps' calls to be recorded",
      20_000,
    );
    const before = await calls();
    expect(before.map((r) => [r.step, r.turn, r.status])).toEqual([
      ['roll', 1, 'ok'],
      ['again', 2, 'ok'],
    ]);
    let requestsAtKill = 0;
    const run = await killAndResume(node, runId, () => {
      answerWorkflow = true;
      requestsAtKill = fake.requests.length;
    });
    // Both calls keep their one execution (the same random numbers, completed at the same times).
    expect(await calls()).toEqual(before);
    const again = before[1] as { call_id: string; result: string };
    expect(run.stepResults.roll.output.text).toBe(`Roll wf: ${before[0]?.result}`);
    expect(run.output.text).toBe(`Roll wf-again: ${again.result}`);
    // The resumed step asked its model once, replaying only its own call.
    const resumed = fake.requests.slice(requestsAtKill).map((r) => r.body as ChatBody);
    expect(resumed).toHaveLength(1);
    expect(Object.keys(toolAnswers(resumed[0] as ChatBody))).toEqual([again.call_id]);
  });
});
