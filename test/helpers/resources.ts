/** Authored resources for run tests, created through their REST endpoints (the workspace write path). */
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** Creates a skill: `manifest` fields over defaults, and its prompt. */
export async function createSkill(
  t: TestApp,
  token: string,
  manifest: Record<string, unknown> & { slug: string },
  promptMd = 'Summarize: {{input.text}}',
): Promise<void> {
  const res = await t.request('POST', '/api/v1/skills', {
    token,
    body: { manifest: { name: `Skill ${manifest.slug}`, ...manifest }, promptMd },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** Updates a skill's manifest fields and/or prompt. */
export async function patchSkill(
  t: TestApp,
  token: string,
  slug: string,
  body: { manifest?: Record<string, unknown>; promptMd?: string },
): Promise<void> {
  const res = await t.request('PATCH', `/api/v1/skills/${slug}`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Creates a workflow from its manifest fields. */
export async function createWorkflow(
  t: TestApp,
  token: string,
  workflow: Record<string, unknown> & { slug: string; steps: unknown[] },
): Promise<void> {
  const res = await t.request('POST', '/api/v1/workflows', {
    token,
    body: { name: `Workflow ${workflow.slug}`, ...workflow },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** Creates an agent from its manifest fields. */
export async function createAgent(
  t: TestApp,
  token: string,
  agent: Record<string, unknown> & { slug: string },
): Promise<void> {
  const res = await t.request('POST', '/api/v1/agents', {
    token,
    body: { name: `Agent ${agent.slug}`, ...agent },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** How many workspace files of any org lie under `folder` (`review-policies/`): what a refused write left. */
export async function workspaceFileCount(t: TestApp, folder: string): Promise<number> {
  const row = await t.app.db.sql.one<{ n: number }>(
    'select count(*)::int as n from workspace_files where path like $1',
    [`${folder}%`],
  );
  return row.n;
}

/**
 * Creates CRM source `hubspot` with a token, at a port nobody answers on: enough for an agent to
 * propose actions of it (`propose_action` checks, records and waits for review; nothing calls the
 * CRM until a proposal is approved). The app needs R3_CONNECTORS_ALLOW_PRIVATE=true.
 */
export async function createUnreachableCrm(t: TestApp, token: string): Promise<void> {
  const source = await t.request('POST', '/api/v1/sources', {
    token,
    body: { slug: 'hubspot', name: 'HubSpot', kind: 'crm', connection: { baseUrl: 'http://127.0.0.1:9' } },
  });
  expect(source.status, JSON.stringify(source.body)).toBe(201);
  const credentials = await t.request('PUT', '/api/v1/sources/hubspot/credentials', {
    token,
    body: { accessToken: 'pat-test' },
  });
  expect(credentials.status).toBe(200);
}
