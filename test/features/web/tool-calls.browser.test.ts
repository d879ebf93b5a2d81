/**
 * A run's tool calls on the review screen, in a real browser, against the scripted fake OpenAI
 * server: each call's tool, status, arguments (a script reads as written) and result or error, a long
 * result folded; a call showing live as it completes; no section for a run without tool calls; the
 * screen at 1280 and 360 px.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AssistantTurn,
  type ChatBody,
  type FakeOpenAI,
  openaiEnv,
  startFakeOpenAI,
} from '../../../fakes/openai-server.js';
import { access } from '../../../src/platform/auth/guard.js';
import { READ_ONLY } from '../../../src/platform/mcp/tool.js';
import { defineAgentTool } from '../../../src/platform/tools/registry.js';
import type { TestApp } from '../../helpers/app.js';
import {
  checkAccessibility,
  describeInBrowser,
  expectNoSidewaysScroll,
  screenshot,
  watchPageErrors,
} from '../../helpers/browser.js';
import { createSkill } from '../../helpers/resources.js';
import { type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';
import { deferred } from '../../helpers/wait.js';

/** The scripted model of the current test. */
let script: (body: ChatBody) => AssistantTurn | undefined = () => undefined;
/** When set, the `hold` tool waits for it; `held` hears that a call started. */
let gate: Promise<void> | null = null;
let held: (() => void) | null = null;

const hold = defineAgentTool({
  name: 'hold',
  title: 'Hold',
  group: 'test',
  description: 'A test tool: waits for the test, then answers its key.',
  args: z.strictObject({ key: z.string().min(1) }),
  result: z.object({ key: z.string() }),
  idempotency: 'safe',
  uses: ['run'],
  access: access.invoke,
  hints: READ_ONLY,
  async execute(args) {
    held?.();
    if (gate) await gate;
    return { key: args.key };
  },
});

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });
const answered = (body: ChatBody) => body.messages.some((m) => m.role === 'tool');

const SCRIPT = 'const xs = [1, 2, 3];\nxs.map((x) => x * 14).reduce((a, b) => a + b)';

describeInBrowser('tool calls on the review screen', (suite) => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let org: ReviewOrg;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test', assistant: (body) => script(body) });
    t = await suite.start(openaiEnv(fake));
    t.app.agentTools.add(hold);
    org = await setupReviewOrg(t, 'acme');
    await createSkill(t, org.owner.token, { slug: 'calc', tools: ['run_code'] }, 'Compute {{input.text}}');
    await createSkill(t, org.owner.token, { slug: 'holding', tools: ['hold'] }, 'Hold {{input.text}}');
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    script = () => undefined;
    gate = null;
    held = null;
  });

  const signedIn = (path: string, viewport?: { width: number; height: number }): Promise<Page> =>
    suite.signIn({ org: 'acme', userId: 'tool-tess', role: 'pm' }, path, viewport);
  const trigger = async (slug: string) => {
    const res = await t.request('POST', `/api/v1/skills/${slug}/runs`, {
      token: org.owner.token,
      body: { input: { text: 'x' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.runId as number;
  };
  const status = async (id: number) =>
    (await t.request('GET', `/api/v1/runs/${id}`, { token: org.owner.token })).body.status;
  const item = (page: Page, id: string) => page.locator(`.tool-call[data-call="${id}"]`);

  it("shows each call's tool, status, arguments and result or error; a long result starts folded", async () => {
    script = (body) =>
      answered(body)
        ? { content: 'The sum is 84.' }
        : {
            toolCalls: [
              call('sum', 'run_code', { language: 'javascript', code: SCRIPT }),
              call('squares', 'run_code', {
                language: 'javascript',
                code: 'Array.from({ length: 60 }, (_, i) => ({ i, square: i * i }))',
              }),
              call('fetch', 'fetch_url', { url: 'https://example.com/' }),
            ],
          };
    const id = await trigger('calc');
    await expect.poll(() => status(id), { timeout: 60_000 }).toBe('completed');

    const page = await signedIn(`/review/runs/${id}`);
    const errors = watchPageErrors(page);
    await page.getByRole('heading', { name: /^Tool calls/ }).waitFor();
    expect(await page.locator('.tool-call').count()).toBe(3);
    // No raw `toolCalls` block beside the section.
    expect(await page.getByRole('heading', { name: 'toolCalls', exact: true }).count()).toBe(0);

    const sum = item(page, 'sum');
    expect(await sum.locator('h3').textContent()).toBe('run_code ok');
    // The script as the model wrote it (lines, not an escaped JSON string), and its result.
    expect(await sum.locator('.call-part').first().locator('pre').textContent()).toBe(SCRIPT);
    const result = sum.locator('.call-part', { hasText: 'Result' });
    expect(await result.getAttribute('open')).not.toBeNull();
    expect(await result.locator('dd').first().textContent()).toBe('84');

    const squares = item(page, 'squares').locator('.call-part', { hasText: 'Result' });
    expect(await squares.getAttribute('open')).toBeNull();
    expect(await squares.locator('pre').isVisible()).toBe(false);
    await squares.locator('summary').click();
    expect(await squares.locator('pre').textContent()).toContain('"square": 3481');

    const refused = item(page, 'fetch');
    expect(await refused.locator('h3').textContent()).toBe('fetch_url error');
    expect(await refused.locator('.call-failure').textContent()).toContain('FORBIDDEN');
    expect(await refused.locator('.call-part', { hasText: 'Result' }).count()).toBe(0);

    await screenshot(page, 'review-tool-calls');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();

    const narrow = await signedIn(`/review/runs/${id}`, { width: 360, height: 740 });
    await narrow.getByRole('heading', { name: /^Tool calls/ }).waitFor();
    await item(narrow, 'squares').locator('summary', { hasText: 'Result' }).click();
    await screenshot(narrow, '360px-review-tool-calls');
    await expectNoSidewaysScroll(narrow, 'review with tool calls');
    expect(await checkAccessibility(narrow)).toEqual([]);
    await narrow.context().close();
  });

  it('shows a call running, then its result as soon as it completes, without a reload', async () => {
    const release = deferred();
    const began = deferred();
    gate = release.promise;
    held = () => began.resolve();
    script = (body) =>
      answered(body) ? { content: 'held and done' } : { toolCalls: [call('h1', 'hold', { key: 'k1' })] };
    const id = await trigger('holding');
    await began.promise;

    const page = await signedIn(`/review/runs/${id}`);
    const errors = watchPageErrors(page);
    await item(page, 'h1').locator('.call-running').waitFor();
    expect(await item(page, 'h1').locator('.call-part', { hasText: 'Result' }).count()).toBe(0);
    release.resolve();
    await item(page, 'h1').locator('.call-ok').waitFor();
    expect(
      await item(page, 'h1').locator('.call-part', { hasText: 'Result' }).locator('dd').textContent(),
    ).toBe('k1');
    await page.locator('.status-completed').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows no tool calls section for a run that made none', async () => {
    const id = await trigger('echoer');
    await expect.poll(() => status(id), { timeout: 60_000 }).toBe('completed');
    const page = await signedIn(`/review/runs/${id}`);
    await page.getByRole('heading', { name: 'Draft', exact: true }).waitFor();
    await page.locator('.status-completed').waitFor();
    expect(await page.locator('.tool-calls').count()).toBe(0);
    expect(await page.getByRole('heading', { name: /tool ?calls/i }).count()).toBe(0);
    await page.context().close();
  });
});
