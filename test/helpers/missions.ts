/** Mission fixtures for tests: a team of agents, a mission, and waiting for a mission run's status. */
import type { TestApp } from './app.js';

/** Creates a skill `draft` and active agents `slugs` (each with it wired) in the token's org. */
export async function createTeam(t: TestApp, token: string, slugs: readonly string[]): Promise<void> {
  const skill = await t.request('POST', '/api/v1/skills', {
    token,
    body: { manifest: { slug: 'draft', name: 'Draft' }, promptMd: 'Draft: {{input.instructions}}' },
  });
  if (skill.status !== 201 && skill.status !== 409) throw new Error(`skill: ${skill.status} ${skill.text}`);
  for (const slug of slugs) {
    const res = await t.request('POST', '/api/v1/agents', {
      token,
      body: { slug, name: `Agent ${slug}`, systemPrompt: `You are ${slug}.`, skillSlugs: ['draft'] },
    });
    if (res.status !== 201) throw new Error(`agent ${slug}: ${res.status} ${res.text}`);
  }
}

/** Creates mission `slug` over `team` (defaults: review result). */
export async function createMission(
  t: TestApp,
  token: string,
  slug: string,
  team: readonly string[],
  extra: Record<string, unknown> = {},
): Promise<void> {
  const res = await t.request('POST', '/api/v1/missions', {
    token,
    body: {
      slug,
      name: `Mission ${slug}`,
      goal: 'Launch note for {{input.product}}',
      team: team.map((agent) => ({ agent, role: `${agent} role` })),
      ...extra,
    },
  });
  if (res.status !== 201) throw new Error(`mission ${slug}: ${res.status} ${res.text}`);
}

/** Polls mission run `id` until its status is one of `statuses`; returns it. */
export async function waitForMissionRun(
  t: TestApp,
  token: string,
  id: number,
  statuses: readonly string[],
  timeoutMs = 20_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const res = await t.request('GET', `/api/v1/mission-runs/${id}`, { token });
    last = res.body;
    if (res.status === 200 && statuses.includes(last.status)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`mission run ${id} did not reach ${statuses.join('|')}: ${JSON.stringify(last)}`);
}
