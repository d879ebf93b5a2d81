/**
 * `r3 workspace diff|apply|export --org <slug> [--dir <path>] [--json]`: what apply would change,
 * apply (commits pending files first, attributed to `cli`), and the history as a git repository.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CLI_ATTRIBUTION } from '../../platform/auth/attribution.js';
import { type CliCommand, type CliContext, UsageError } from '../../platform/cli.js';
import type { WorkspaceDiff } from './diff.js';
import { exportRepository } from './export.js';
import type { WorkspaceApi } from './index.js';

const SUBCOMMANDS = ['diff', 'apply', 'export'] as const;
const MARK = { created: '+', updated: '~', deleted: '-', unchanged: ' ' } as const;

/** `r3 workspace diff|apply|export`. */
export const workspaceCommand: CliCommand<WorkspaceApi> = {
  name: 'workspace',
  usage: `  r3 workspace diff|apply --org <slug> [--json]
  r3 workspace export --org <slug> [--dir <path>] [--json]`,
  run: workspace,
};

async function workspace(args: string[], ctx: CliContext<WorkspaceApi>): Promise<number> {
  const [sub, ...rest] = args;
  if (!SUBCOMMANDS.includes(sub as (typeof SUBCOMMANDS)[number])) {
    throw new UsageError('expected "diff", "apply" or "export"');
  }
  let values: { org?: string; dir?: string; json?: boolean };
  try {
    values = parseArgs({
      args: rest,
      strict: true,
      options: { org: { type: 'string' }, dir: { type: 'string' }, json: { type: 'boolean' } },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const org = values.org;
  if (!org) throw new UsageError('--org is required');
  if (values.dir !== undefined && sub !== 'export') throw new UsageError('--dir applies to export only');

  // No workers here: a queued reindex is run by the servers, whose workers poll the queue.
  const { workspace: store } = await ctx.open();
  const row = await store.orgBySlug(org);
  if (!row) {
    ctx.err(`r3 workspace ${sub}: no org "${org}"`);
    return 1;
  }
  if (sub === 'diff') {
    const diff = await store.diff(row.id);
    ctx.out(values.json ? JSON.stringify(diff) : describeDiff(diff));
  } else if (sub === 'apply') {
    const result = await store.apply(row.id, CLI_ATTRIBUTION);
    if (values.json) ctx.out(JSON.stringify(result));
    else {
      const c = result.commit;
      ctx.out(c ? `committed ${c.workspaceSha} (${counts(c.counts)})` : 'no pending changes to commit');
      ctx.out(`applied: ${counts(result.apply)}`);
    }
  } else {
    const dir = path.resolve(values.dir ?? `${org}-workspace`);
    const exported = await exportRepository(dir, await store.exportVersions(row.id));
    if (values.json) ctx.out(JSON.stringify({ dir, ...exported }));
    else {
      ctx.out(
        `exported ${exported.commits.length} version(s) of ${org} to ${dir}` +
          (exported.headSha ? ` (head ${exported.headSha})` : ''),
      );
    }
  }
  return 0;
}

function counts(c: { created: number; updated: number; unchanged: number; deleted: number }): string {
  return `created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, deleted ${c.deleted}`;
}

function describeDiff(diff: WorkspaceDiff): string {
  const lines = diff.resources
    .filter((r) => r.change !== 'unchanged')
    .map((r) => `${MARK[r.change]} ${r.kind} ${r.slug}`);
  return [...lines, counts(diff)].join('\n');
}
