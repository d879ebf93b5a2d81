/**
 * `r3 eval --org <slug> --skill <slug> --workspace <sha> [--last N] [--statuses approved,rejected]
 * [--timeout <seconds>] [--json]`: starts an evaluation (docs/api.md "Evaluations") as `cli`, waits
 * while r3's workers (a running `r3 serve` or `r3 worker`) replay the runs, and prints its summary —
 * or, with `--json`, the evaluation as `GET /evaluations/:id` answers it. Exit 0 once it completed,
 * 1 when it failed, was refused or did not finish in time (it goes on; its id is printed).
 */
import { parseArgs } from 'node:util';
import { type CliCommand, UsageError } from '../../platform/cli.js';
import { ApiError } from '../../platform/errors.js';
import type { EvaluationView } from './evaluation-service.js';
import type { EvaluationsApi } from './index.js';
import { evaluationBodySchema } from './routes.js';

/** How often the command reads the evaluation while it runs. */
const POLL_MS = 250;

/** The summary a person reads. */
function summaryLines(e: EvaluationView): string[] {
  const lines = [
    `Evaluation ${e.evaluationId} of skill "${e.skillSlug}" on ${e.workspace.slice(0, 12)}: ${e.status}`,
    `${e.summary.total} runs replayed: ${e.summary.changed} changed, ${e.summary.total - e.summary.changed - e.summary.failed} unchanged, ${e.summary.failed} failed`,
  ];
  for (const r of e.runs) {
    const outcome = r.shadowStatus !== 'completed' ? r.shadowStatus : r.changed ? 'changed' : 'same output';
    lines.push(`  run ${r.originalRunId} (${r.originalStatus}) -> shadow run ${r.shadowRunId}: ${outcome}`);
  }
  return lines;
}

export const evalCommand: CliCommand<EvaluationsApi> = {
  name: 'eval',
  usage:
    '  r3 eval --org <slug> --skill <slug> --workspace <sha> [--last <1-100>] [--statuses approved,rejected]\n' +
    '          [--timeout <seconds>] [--json]',
  async run(args, { out, err, open }) {
    let values: {
      org?: string;
      skill?: string;
      workspace?: string;
      last?: string;
      statuses?: string;
      timeout?: string;
      json?: boolean;
    };
    try {
      ({ values } = parseArgs({
        args,
        strict: true,
        options: {
          org: { type: 'string' },
          skill: { type: 'string' },
          workspace: { type: 'string' },
          last: { type: 'string' },
          statuses: { type: 'string' },
          timeout: { type: 'string' },
          json: { type: 'boolean' },
        },
      }));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (!values.org) throw new UsageError('--org is required');
    if (!values.skill) throw new UsageError('--skill is required');
    if (!values.workspace) throw new UsageError('--workspace is required');
    const parsed = evaluationBodySchema.safeParse({
      workspace: values.workspace,
      ...(values.last === undefined ? {} : { last: Number(values.last) }),
      ...(values.statuses === undefined ? {} : { statuses: values.statuses.split(',') }),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(`--${String(issue?.path[0] ?? 'workspace')}: ${issue?.message}`);
    }
    const timeoutMs = Number(values.timeout ?? 600) * 1000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new UsageError('--timeout is a number of seconds');
    const { evaluations, orgId } = await open();
    const org = await orgId(values.org);
    if (org === null) {
      err(`r3 eval: no org "${values.org}"`);
      return 1;
    }
    const principal = { orgId: org, actor: 'cli', tokenId: null };
    let started: { evaluationId: number };
    try {
      started = await evaluations.create(principal, values.skill, parsed.data, null);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      err(`r3 eval: ${error.message}`);
      return 1;
    }
    const deadline = Date.now() + timeoutMs;
    let view = await evaluations.get(org, started.evaluationId);
    while (view.status === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      view = await evaluations.get(org, started.evaluationId);
    }
    if (values.json) out(JSON.stringify(view));
    else for (const line of summaryLines(view)) out(line);
    if (view.status === 'running') {
      err(
        `r3 eval: evaluation ${view.evaluationId} is still running (are r3's workers up?); read it at /api/v1/evaluations/${view.evaluationId}`,
      );
    }
    return view.status === 'completed' ? 0 : 1;
  },
};
