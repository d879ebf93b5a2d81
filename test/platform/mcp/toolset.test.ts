/**
 * The toolset in-process, where the test drives the workers: how `runtime_run_skill` waits (until the
 * run settles, at most its limit, or until the caller goes away), the stdio principal's idempotency keys
 * (per org), unexpected faults as INTERNAL results, results checked against their output schema, and
 * the Origin allow-list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dataTools } from '../../../src/features/objects/mcp-tools.js';
import { runtimeTools } from '../../../src/features/runs/mcp-tools.js';
import type { RunService } from '../../../src/features/runs/service.js';
import type { RunView } from '../../../src/features/runs/view.js';
import { isSettled, waitForRun } from '../../../src/features/runs/wait-for-run.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { workspaceTools } from '../../../src/features/workspace/mcp-tools.js';
import { access } from '../../../src/platform/auth/guard.js';
import { runEventSubject } from '../../../src/platform/bus/subjects.js';
import { originAllowed } from '../../../src/platform/mcp/http-routes.js';
import { JsonText } from '../../../src/platform/mcp/results.js';
import { stdioPrincipal } from '../../../src/platform/mcp/stdio.js';
import { defineTool, READ_ONLY } from '../../../src/platform/mcp/tool.js';
import { createToolset, type Toolset } from '../../../src/platform/mcp/toolset.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';
import { orgIdOf } from '../../helpers/runs.js';

let t: TestApp;
let admin: CreatedToken;
let tools: Toolset;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  admin = await t.token({ org: 'acme', scopes: ALL_SCOPES });
  const other = await t.token({ org: 'other', scopes: ALL_SCOPES });
  for (const token of [admin, other]) await createSkill(t, token.token, { slug: 'sum' });
  await createSkill(t, admin.token, { slug: 'gated', requiresApproval: true });
  tools = waitingToolset(300);
});
afterAll(() => t.close());

/** The process's tools, with `runtime_run_skill` waiting at most `waitMs`. */
function waitingToolset(waitMs: number): Toolset {
  const tools = [...workspaceTools(t.app), ...runtimeTools(t.app, { waitMs }), ...dataTools(t.app)];
  return createToolset(tools, { httpAuthoring: false, log: t.app.log });
}

const acme = async () => stdioPrincipal({ id: await orgIdOf(t.app, 'acme'), slug: 'acme' });

async function run(args: Record<string, unknown>, options: { toolset?: Toolset; signal?: AbortSignal } = {}) {
  const result = await (options.toolset ?? tools).call('runtime_run_skill', args, {
    principal: await acme(),
    transport: 'stdio',
    requestId: 'test',
    signal: options.signal,
  });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  return result.structuredContent as { runId: number; status: string; output: unknown };
}

/** Runs the job queue as a worker would until `promise` settles. */
async function workUntil(promise: Promise<unknown>): Promise<void> {
  let settled = false;
  void promise.finally(() => {
    settled = true;
  });
  await expect
    .poll(
      async () => {
        await t.app.jobs.drain();
        return settled;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
}

describe('runtime_run_skill waiting', () => {
  it('answers the run as it is after the wait limit when no worker takes it', async () => {
    const started = performance.now();
    const body = await run({ slug: 'sum', input: { text: 'slow' } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(body).toMatchObject({ status: 'running', output: null });
    await t.app.jobs.drain();
  });

  it('ends as soon as the run completes, following its events', async () => {
    const patient = waitingToolset(20_000);
    const started = performance.now();
    const waiting = run({ slug: 'sum', input: { text: 'quick' } }, { toolset: patient });
    // Execute the step as a worker would, once the trigger has committed it.
    await workUntil(waiting);
    const body = await waiting;
    expect(body).toMatchObject({ status: 'completed', output: { text: 'Summarize: quick' } });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('waits for a gated skill’s draft, not only for `pending`', async () => {
    const patient = waitingToolset(20_000);
    const waiting = run({ slug: 'gated', input: { text: 'draft me' } }, { toolset: patient });
    await workUntil(waiting);
    expect(await waiting).toMatchObject({ status: 'pending', output: { text: 'Summarize: draft me' } });
  });

  it('stops waiting when the caller goes away', async () => {
    const patient = waitingToolset(20_000);
    const controller = new AbortController();
    const started = performance.now();
    const waiting = run(
      { slug: 'sum', input: { text: 'abandoned' } },
      { toolset: patient, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 100);
    expect(await waiting).toMatchObject({ status: 'running' });
    expect(performance.now() - started).toBeLessThan(5_000);
    await t.app.jobs.drain();
  });

  it('settles on every status but running, and on pending once the draft exists', () => {
    const view = (status: string, stepResults: Record<string, { output: unknown }> = {}) =>
      ({ kind: 'skill', slug: 's', status, stepResults }) as unknown as RunView;
    expect(isSettled(view('running'))).toBe(false);
    expect(isSettled(view('pending'))).toBe(false);
    expect(isSettled(view('pending', { s: { output: {} } }))).toBe(true);
    for (const status of ['completed', 'failed', 'approved', 'rejected', 'cancelled']) {
      expect(isSettled(view(status))).toBe(true);
    }
  });
});

describe('waitForRun', () => {
  it('wakes on the run’s events rather than its next poll', async () => {
    const principal = await acme();
    let reads = 0;
    let done = false;
    let publishedAt = 0;
    const runs = {
      get: async () => {
        reads++;
        if (reads === 5) {
          // The wait now sleeps its longest poll interval (1 s); the event must end it well before.
          setImmediate(() => {
            done = true;
            publishedAt = performance.now();
            void t.app.bus.publish(runEventSubject(String(principal.orgId), 77, 'completed'), { runId: 77 });
          });
        }
        return {
          kind: 'skill',
          slug: 's',
          status: done ? 'completed' : 'running',
          stepResults: {},
        } as unknown as RunView;
      },
    } as unknown as RunService;
    const run = await waitForRun({ runs, bus: t.app.bus, log: t.app.log }, principal, 77, {
      timeoutMs: 20_000,
    });
    expect(run.status).toBe('completed');
    expect(performance.now() - publishedAt).toBeLessThan(500);
  });
});

describe('the stdio principal', () => {
  it('keeps idempotency keys per org (no token to scope them)', async () => {
    const other = stdioPrincipal({ id: await orgIdOf(t.app, 'other'), slug: 'other' });
    const args = { slug: 'sum', input: { text: 'same' }, idempotencyKey: 'shared-key' };
    const first = await run(args);
    const again = await run(args);
    expect(again.runId).toBe(first.runId);
    const result = await tools.call('runtime_run_skill', args, {
      principal: other,
      transport: 'stdio',
      requestId: 'test',
      signal: undefined,
    });
    expect(result.isError).toBeFalsy();
    const theirs = result.structuredContent as { runId: number };
    expect(theirs.runId).not.toBe(first.runId);
    const row = await t.app.db.sql.one<{ org_id: number }>('select org_id from runs where id = $1', [
      theirs.runId,
    ]);
    expect(row.org_id).toBe(other.orgId);
    await t.app.jobs.drain();
  });

  it('is an owner with every scope, attributed mcp without a token', async () => {
    const principal = await acme();
    expect(principal).toMatchObject({ role: 'owner', actor: 'mcp', tokenId: null, userId: 'mcp' });
    expect([...principal.scopes].sort()).toEqual([
      'read:all',
      'read:skills',
      'run:approve',
      'run:invoke',
      'write:resources',
    ]);
    expect(tools.list('stdio').map((tool) => tool.name)).toContain('workspace_apply');
    expect(tools.list('http').map((tool) => tool.name)).not.toContain('workspace_apply');
  });
});

describe('faults', () => {
  it('answers an unexpected fault as INTERNAL, without detail', async () => {
    const broken = {
      ...t.app,
      resources: {
        ...t.app.resources,
        listAgents: () => Promise.reject(new Error('connection reset by the database')),
      },
    } as unknown as typeof t.app;
    const log: unknown[] = [];
    const quiet = { ...t.app.log, error: (entry: unknown) => log.push(entry) } as unknown as typeof t.app.log;
    const toolset = createToolset(workspaceTools(broken), { httpAuthoring: false, log: quiet });
    const result = await toolset.call(
      'workspace_list',
      {},
      { principal: await acme(), transport: 'stdio', requestId: 'test', signal: undefined },
    );
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: JSON.stringify({
            error: { code: 'INTERNAL', message: 'Internal server error.', details: {} },
          }),
        },
      ],
    });
    expect(JSON.stringify(result)).not.toContain('connection reset');
    expect(log).toHaveLength(1);
  });
});

describe('output schemas', () => {
  /** A tool that answers whatever the test gives it, declaring `{n: integer}`. */
  const answering = (answer: () => unknown) =>
    defineTool({
      name: 'count',
      title: 'Count',
      group: 'test',
      description: 'Answers a count.',
      input: z.strictObject({}),
      output: z.object({ n: z.number().int() }),
      access: access.read,
      hints: READ_ONLY,
      run: async () => answer() as { n: number },
    });
  const ctx = async () => ({
    principal: await acme(),
    transport: 'stdio' as const,
    requestId: 'out',
    signal: undefined,
  });

  it('lists every tool with its title, an object outputSchema and all four hints', () => {
    for (const tool of tools.list('stdio')) {
      expect(tool.title, tool.name).toEqual(expect.any(String));
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(Object.keys(tool.annotations ?? {}).sort(), tool.name).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
        'title',
      ]);
    }
    const listed = createToolset([answering(() => ({ n: 1 }))], { httpAuthoring: false, log: t.app.log });
    expect(listed.list('stdio')[0]?.outputSchema).toMatchObject({
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    });
  });

  it('answers a result outside the schema as INTERNAL and logs it, when validating (the default)', async () => {
    const log: unknown[] = [];
    const quiet = { ...t.app.log, error: (entry: unknown) => log.push(entry) } as unknown as typeof t.app.log;
    for (const wrong of [{ n: 'three' }, { m: 3 }, new JsonText('{"n":1.5}')]) {
      const toolset = createToolset([answering(() => wrong)], {
        httpAuthoring: false,
        validateOutput: true,
        log: quiet,
      });
      const result = await toolset.call('count', {}, await ctx());
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(JSON.parse((result.content[0] as { text: string }).text).error.code).toBe('INTERNAL');
    }
    expect(log).toHaveLength(3);
    expect(log[0]).toMatchObject({ tool: 'count', broken: expect.stringContaining('must be') });
    const right = createToolset([answering(() => new JsonText('{"n":2}'))], {
      httpAuthoring: false,
      validateOutput: true,
      log: quiet,
    });
    expect((await right.call('count', {}, await ctx())).structuredContent).toEqual(new JsonText('{"n":2}'));
    // A valid text is remembered as valid; a text outside the schema is refused every time.
    let text = '{"n":2}';
    const changing = createToolset([answering(() => new JsonText(text))], {
      httpAuthoring: false,
      validateOutput: true,
      log: quiet,
    });
    expect((await changing.call('count', {}, await ctx())).isError).toBeUndefined();
    text = '{"n":"two"}';
    for (let i = 0; i < 2; i++) expect((await changing.call('count', {}, await ctx())).isError).toBe(true);
    text = '{"n":2}';
    expect((await changing.call('count', {}, await ctx())).isError).toBeUndefined();
    expect(log).toHaveLength(5);
  });

  it('passes results unchecked with validation off', async () => {
    const toolset = createToolset([answering(() => ({ n: 'three' }))], {
      httpAuthoring: false,
      validateOutput: false,
      log: t.app.log,
    });
    const result = await toolset.call('count', {}, await ctx());
    expect(result).toMatchObject({ structuredContent: { n: 'three' } });
    expect(result.isError).toBeUndefined();
  });
});

describe('Origin allow-list', () => {
  const config = {
    baseUrl: 'https://r3.example.com/base',
    mcp: { httpAuthoring: false, allowedOrigins: ['http://localhost:6274'], validateOutput: true },
  };

  it('passes no Origin, BASE_URL’s origin and listed origins; refuses others, `null` and garbage', () => {
    expect(originAllowed(undefined, config)).toBe(true);
    expect(originAllowed('https://r3.example.com', config)).toBe(true);
    expect(originAllowed('HTTPS://R3.EXAMPLE.COM', config)).toBe(true);
    expect(originAllowed('http://localhost:6274', config)).toBe(true);
    expect(originAllowed('http://localhost:6275', config)).toBe(false);
    expect(originAllowed('https://r3.example.com.evil.net', config)).toBe(false);
    expect(originAllowed('null', config)).toBe(false);
    expect(originAllowed('not a url', config)).toBe(false);
  });
});
