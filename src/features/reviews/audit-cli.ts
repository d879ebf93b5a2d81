/**
 * `r3 audit verify --org <slug> [--json]`: checks the org's decision ledger (ledger.ts) and answers
 * `{ok, entries, brokenAt}`, exit 1 when the chain is broken; `r3 audit export --org <slug>`: the
 * ledger as JSONL on stdout, one entry a line in chain order.
 */
import { parseArgs } from 'node:util';
import { type CliCommand, UsageError } from '../../platform/cli.js';
import type { ReviewsApi } from './index.js';

export const auditCommand: CliCommand<ReviewsApi> = {
  name: 'audit',
  usage: ['  r3 audit verify --org <slug> [--json]', '  r3 audit export --org <slug>'].join('\n'),
  async run(args, ctx) {
    const [sub, ...rest] = args;
    if (sub !== 'verify' && sub !== 'export') throw new UsageError('expected "verify" or "export"');
    let values: { org?: string; json?: boolean };
    try {
      ({ values } = parseArgs({
        args: rest,
        strict: true,
        options: { org: { type: 'string' }, json: { type: 'boolean' } },
      }));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (!values.org) throw new UsageError('--org is required');
    if (sub === 'export' && values.json) throw new UsageError('export writes JSONL; --json is for verify');
    const { ledger } = await ctx.open();
    if (sub === 'export') {
      if (await ledger.export(values.org, ctx.out)) return 0;
      ctx.err(`r3 audit export: no org "${values.org}"`);
      return 1;
    }
    const verdict = await ledger.verify(values.org);
    if (!verdict) {
      ctx.err(`r3 audit verify: no org "${values.org}"`);
      return 1;
    }
    ctx.out(
      values.json
        ? JSON.stringify(verdict)
        : verdict.ok
          ? `${values.org}: ${verdict.entries} ledger entries, chain intact`
          : `${values.org}: ledger chain broken at entry ${verdict.brokenAt}`,
    );
    return verdict.ok ? 0 : 1;
  },
};
