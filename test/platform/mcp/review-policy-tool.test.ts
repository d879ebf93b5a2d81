/**
 * Review policies over MCP (issue 41 "Authoring completes", decisions.md §16/§18), through the real
 * `/api/mcp` endpoint with the SDK client: `workspace_write_review_policy` validated exactly as
 * `POST /review-policies` (unknown role or user, required outside 1–5, remindBefore longer than dueIn,
 * escalate without escalateTo: VALIDATION_FAILED naming the argument, nothing written), the scope and
 * the approve capability it needs, another org's policy unseen; review policies in `workspace_list`,
 * `workspace_get`, `workspace_delete` (CONFLICT while a resource names one) and as resources
 * `r3://review-policies/<slug>`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { serializeManifest } from '../../../src/features/workspace/files.js';
import { RESOURCE_NOT_FOUND } from '../../../src/platform/mcp/protocol-errors.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok, refusal } from '../../helpers/mcp.js';
import { createSkill, workspaceFileCount } from '../../helpers/resources.js';

let t: TestApp;
let owner: CreatedToken;
let mcp: Client;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestApp({ R3_MCP_HTTP_AUTHORING: 'true', R3_WORKER_CONCURRENCY: '0' });
  owner = await t.token({ org: 'acme', user: 'olga', role: 'owner', scopes: ALL_SCOPES });
  // Users a policy may name.
  await t.token({ org: 'acme', user: 'fin-1', role: 'pm', scopes: ALL_SCOPES });
  mcp = await connect(owner.token);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

async function connect(token: string): Promise<Client> {
  const client = await connectHttp(t.url, token);
  clients.push(client);
  return client;
}

const FINANCE = {
  slug: 'finance',
  name: 'Finance',
  approvers: { roles: ['pm'], users: ['fin-1'] },
  required: 2,
  selfApproval: false,
  dueIn: '4h',
  remindBefore: '30m',
  escalateTo: { users: ['olga'] },
  onTimeout: 'escalate',
};

const policyFiles = () => workspaceFileCount(t, 'review-policies/');

describe('workspace_write_review_policy', () => {
  it('is listed with its title, annotations and output schema', async () => {
    const tool = (await mcp.listTools()).tools.find((x) => x.name === 'workspace_write_review_policy');
    expect(tool).toMatchObject({
      title: 'Create or update a review policy',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      inputSchema: { required: ['manifest'], additionalProperties: false },
      outputSchema: { properties: { written: {}, commit: {}, apply: {} } },
    });
  });

  it('creates a policy through the write path: {written, commit, apply}, a version by token:<id>; REST and workspace_get show it', async () => {
    const created = await ok(mcp, 'workspace_write_review_policy', { manifest: FINANCE });
    expect(created).toEqual({
      written: ['review-policies/finance.yaml'],
      commit: {
        sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        workspaceSha: expect.stringMatching(/^[0-9a-f]{12}$/),
        parentSha: null,
        counts: { created: 1, updated: 0, unchanged: 0, deleted: 0 },
      },
      apply: { created: 1, updated: 0, unchanged: 0, deleted: 0 },
    });
    const version = await t.app.db.sql.one<{ applied_by: string }>(
      'select applied_by from workspace_versions order by seq desc limit 1',
    );
    expect(version.applied_by).toBe(`token:${owner.id}`);
    const rest = await t.request('GET', '/api/v1/review-policies/finance', { token: owner.token });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ ...FINANCE, description: '', isDefault: false, usedBy: [] });

    expect(await ok(mcp, 'workspace_get', { kind: 'review_policy', slug: 'finance' })).toEqual({
      kind: 'review_policy',
      ...FINANCE,
      description: '',
      isDefault: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const list = await ok(mcp, 'workspace_list');
    expect(list.reviewPolicies).toEqual([{ slug: 'finance', name: 'Finance', description: '' }]);
  });

  it('replaces a policy whole (omitted fields take their defaults); the same manifest again writes nothing', async () => {
    await ok(mcp, 'workspace_write_review_policy', { manifest: { slug: 'default', name: 'Default' } });
    const replaced = await ok(mcp, 'workspace_write_review_policy', {
      manifest: { slug: 'default', name: 'Default', required: 2, dueIn: '1h' },
      message: 'Two approvals by default',
    });
    expect(replaced).toMatchObject({ written: ['review-policies/default.yaml'], apply: { updated: 1 } });
    expect(await ok(mcp, 'workspace_get', { kind: 'review_policy', slug: 'default' })).toMatchObject({
      required: 2,
      dueIn: '1h',
      selfApproval: true,
      onTimeout: 'none',
      isDefault: true,
    });
    const message = await t.app.db.sql.one<{ message: string }>(
      'select message from workspace_versions order by seq desc limit 1',
    );
    expect(message.message).toBe('Two approvals by default');
    const again = await ok(mcp, 'workspace_write_review_policy', {
      manifest: { slug: 'default', name: 'Default', required: 2, dueIn: '1h' },
    });
    expect(again).toEqual({
      written: [],
      commit: null,
      apply: { created: 0, updated: 0, unchanged: 2, deleted: 0 },
    });
  });

  it('refuses what POST /review-policies refuses, naming the argument, writing nothing', async () => {
    const before = await policyFiles();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ approvers: { roles: ['finance'] } }, 'arguments.manifest.approvers.roles.0'],
      [{ approvers: { users: ['nobody'] } }, 'arguments.manifest.approvers.users.0'],
      [
        { dueIn: '1h', onTimeout: 'escalate', escalateTo: { users: ['ghost'] } },
        'arguments.manifest.escalateTo.users.0',
      ],
      [{ required: 0 }, 'arguments.manifest.required'],
      [{ required: 6 }, 'arguments.manifest.required'],
      [{ dueIn: '1h', remindBefore: '2h' }, 'arguments.manifest.remindBefore'],
      [{ dueIn: '1h', onTimeout: 'escalate' }, 'arguments.manifest.escalateTo'],
      [{ onTimeout: 'reject' }, 'arguments.manifest.onTimeout'],
      [{ dueIn: 'soon' }, 'arguments.manifest.dueIn'],
      [{ quorum: 2 }, 'arguments.manifest'],
    ];
    for (const [extra, field] of cases) {
      const error = await fails(
        mcp,
        'workspace_write_review_policy',
        { manifest: { slug: 'bad', name: 'Bad', ...extra } },
        'VALIDATION_FAILED',
      );
      const named = error.details.issues.map((issue: { field: string }) => issue.field);
      expect(named, JSON.stringify(extra)).toContain(field);
      // The same body over REST is refused for the same field.
      const rest = await t.request('POST', '/api/v1/review-policies', {
        token: owner.token,
        body: { slug: 'bad', name: 'Bad', ...extra },
      });
      expect(rest.status, JSON.stringify(extra)).toBe(400);
      expect(
        rest.body.error.details.issues.map((issue: { field: string }) => issue.field),
        JSON.stringify(extra),
      ).toContain(field.replace(/^arguments\.manifest/, 'body'));
    }
    await fails(mcp, 'workspace_write_review_policy', { manifest: FINANCE, extra: 1 }, 'VALIDATION_FAILED');
    expect(await policyFiles()).toBe(before);
    await fails(mcp, 'workspace_get', { kind: 'review_policy', slug: 'bad' }, 'NOT_FOUND');
  });

  it('needs write:resources, and the approve capability as REST does (FORBIDDEN)', async () => {
    const reader = await connect((await t.token({ org: 'acme', scopes: ['read:all', 'run:invoke'] })).token);
    const scope = await fails(
      reader,
      'workspace_write_review_policy',
      { manifest: { slug: 'lax', name: 'Lax' } },
      'FORBIDDEN',
    );
    expect(scope.details).toEqual({ requiredScope: ['write:resources'] });
    await fails(reader, 'workspace_delete', { kind: 'review_policy', slug: 'finance' }, 'FORBIDDEN');
    // write:resources without the approve capability may not decide who approves.
    const writer = await connect(
      (await t.token({ org: 'acme', user: 'pm-writer', role: 'pm', scopes: ['read:all', 'write:resources'] }))
        .token,
    );
    const capability = await fails(
      writer,
      'workspace_write_review_policy',
      { manifest: { slug: 'lax', name: 'Lax' } },
      'FORBIDDEN',
    );
    expect(capability.details).toMatchObject({
      resources: ['review_policy:lax'],
      requiredScope: ['run:approve'],
    });
    await fails(
      writer,
      'workspace_write_review_policy',
      { manifest: { ...FINANCE, required: 1 } },
      'FORBIDDEN',
    );
    await fails(writer, 'workspace_delete', { kind: 'review_policy', slug: 'default' }, 'FORBIDDEN');
    expect((await ok(mcp, 'workspace_get', { kind: 'review_policy', slug: 'finance' })).required).toBe(2);
  });

  it('another org sees none of them and writes its own', async () => {
    const stranger = await connect(
      (await t.token({ org: 'other', user: 'oscar', role: 'owner', scopes: ALL_SCOPES })).token,
    );
    await fails(stranger, 'workspace_get', { kind: 'review_policy', slug: 'finance' }, 'NOT_FOUND');
    await fails(stranger, 'workspace_delete', { kind: 'review_policy', slug: 'finance' }, 'NOT_FOUND');
    expect((await ok(stranger, 'workspace_list')).reviewPolicies).toEqual([]);
    expect((await refusal(stranger.readResource({ uri: 'r3://review-policies/finance' }))).code).toBe(
      RESOURCE_NOT_FOUND,
    );
    // Users of acme do not exist in other.
    const foreignUser = await fails(
      stranger,
      'workspace_write_review_policy',
      { manifest: { slug: 'finance', name: 'Theirs', approvers: { users: ['fin-1'] } } },
      'VALIDATION_FAILED',
    );
    expect(foreignUser.details.issues.map((i: { field: string }) => i.field)).toEqual([
      'arguments.manifest.approvers.users.0',
    ]);
    await ok(stranger, 'workspace_write_review_policy', {
      manifest: { slug: 'finance', name: 'Theirs', approvers: { users: ['oscar'] } },
    });
    expect((await ok(mcp, 'workspace_get', { kind: 'review_policy', slug: 'finance' })).name).toBe('Finance');
  });
});

describe('review policies as resources and in workspace_delete', () => {
  it('are listed and read as r3://review-policies/<slug> (the manifest as YAML)', async () => {
    const { resources } = await mcp.listResources();
    const policies = resources.filter((r) => r.uri.startsWith('r3://review-policies/'));
    expect(policies).toEqual([
      {
        uri: 'r3://review-policies/default',
        name: 'default',
        title: 'Default',
        description: 'The review policy default (its manifest).',
        mimeType: 'application/yaml',
      },
      expect.objectContaining({ uri: 'r3://review-policies/finance', title: 'Finance' }),
    ]);
    const { contents } = await mcp.readResource({ uri: 'r3://review-policies/finance' });
    const applied = await t.app.db.sql.one<{ manifest: never }>(
      `select manifest from review_policies where slug = 'finance' and org_id = (select id from orgs where slug = 'acme')`,
    );
    expect(contents).toEqual([
      {
        uri: 'r3://review-policies/finance',
        mimeType: 'application/yaml',
        text: serializeManifest('review_policy', applied.manifest),
      },
    ]);
    expect((contents[0] as { text: string }).text).toContain('required: 2\n');
    expect((await refusal(mcp.readResource({ uri: 'r3://review-policies/ghost' }))).code).toBe(
      RESOURCE_NOT_FOUND,
    );
  });

  it('workspace_delete refuses a policy a resource names (CONFLICT, as REST DELETE: 409) and deletes it once free', async () => {
    await createSkill(t, owner.token, { slug: 'invoice', name: 'Invoice', reviewPolicy: 'finance' });
    const named = await fails(
      mcp,
      'workspace_delete',
      { kind: 'review_policy', slug: 'finance' },
      'CONFLICT',
    );
    expect(named.details).toEqual({
      kind: 'review_policy',
      slug: 'finance',
      referencedBy: [{ kind: 'skill', slug: 'invoice', field: 'reviewPolicy' }],
    });
    const rest = await t.request('DELETE', '/api/v1/review-policies/finance', { token: owner.token });
    expect(rest.status).toBe(409);
    expect(rest.body.error.details.referencedBy).toEqual(named.details.referencedBy);

    await ok(mcp, 'workspace_delete', { kind: 'skill', slug: 'invoice' });
    const deleted = await ok(mcp, 'workspace_delete', { kind: 'review_policy', slug: 'finance' });
    expect(deleted).toMatchObject({ written: ['review-policies/finance.yaml'], apply: { deleted: 1 } });
    await fails(mcp, 'workspace_get', { kind: 'review_policy', slug: 'finance' }, 'NOT_FOUND');
    await fails(mcp, 'workspace_delete', { kind: 'review_policy', slug: 'finance' }, 'NOT_FOUND');
    expect((await t.request('GET', '/api/v1/review-policies/finance', { token: owner.token })).status).toBe(
      404,
    );
  });
});
