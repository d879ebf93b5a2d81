/**
 * An org's own settings, over the deployment's:
 * - `r3 org limits --org <slug> (--per-min <n> --burst <n> | --unlimited | --default) [--json]`: the
 *   enterprise-tier override of the per-token rate limit (raise it, disable it, or go back to the
 *   deployment default);
 * - `r3 org schedules --org <slug> [--min-interval <duration>] [--max-open-reviews <n>] [--json]`: the
 *   floor and quota of its schedule triggers (docs/api.md "Workflow triggers"); a setting not given,
 *   or `default`, is the deployment's.
 */
import { parseArgs } from 'node:util';
import { type CliCommand, type CliContext, UsageError } from '../../platform/cli.js';
import { formatDuration, parseDuration } from '../../platform/util/duration.js';
import type { TokensApi } from './index.js';

/** `r3 org limits …` and `r3 org schedules …`. */
export const orgCommand: CliCommand<TokensApi> = {
  name: 'org',
  usage: [
    '  r3 org limits --org <slug> (--per-min <n> [--burst <n>] | --unlimited | --default) [--json]',
    '  r3 org schedules --org <slug> [--min-interval <duration>|default] [--max-open-reviews <n>|default] [--json]',
  ].join('\n'),
  run: (args, ctx) => (args[0] === 'schedules' ? schedules(args.slice(1), ctx) : limits(args, ctx)),
};

async function schedules(args: string[], ctx: CliContext<TokensApi>): Promise<number> {
  let values: { org?: string; 'min-interval'?: string; 'max-open-reviews'?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        org: { type: 'string' },
        'min-interval': { type: 'string' },
        'max-open-reviews': { type: 'string' },
        json: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!values.org) throw new UsageError('--org is required');
  const interval = values['min-interval'];
  const minIntervalMs = interval === undefined || interval === 'default' ? null : parseDuration(interval);
  if (minIntervalMs === undefined)
    throw new UsageError('--min-interval must be a duration like 30s or 5m, or default');
  const cap = values['max-open-reviews'];
  const maxOpenReviews = cap === undefined || cap === 'default' ? null : Number(cap);
  if (maxOpenReviews !== null && !(Number.isInteger(maxOpenReviews) && maxOpenReviews >= 0)) {
    throw new UsageError('--max-open-reviews must be a whole number (0: no cap), or default');
  }
  const { tokens } = await ctx.open();
  if (!(await tokens.setOrgSchedules(values.org, { minIntervalMs, maxOpenReviews }))) {
    ctx.err(`r3 org schedules: no org "${values.org}"`);
    return 1;
  }
  const answer = {
    org: values.org,
    scheduleMinIntervalMs: minIntervalMs,
    scheduleMaxOpenReviews: maxOpenReviews,
  };
  ctx.out(
    values.json
      ? JSON.stringify(answer)
      : `${values.org}: schedules at least ${minIntervalMs === null ? 'the deployment default' : formatDuration(minIntervalMs)} apart, ` +
          `${maxOpenReviews === null ? 'the deployment default' : maxOpenReviews === 0 ? 'no cap on' : maxOpenReviews} open review items per trigger`,
  );
  return 0;
}

async function limits(args: string[], ctx: CliContext<TokensApi>): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'limits') throw new UsageError('expected "limits" or "schedules"');
  let parsed: ReturnType<typeof parseLimits>;
  try {
    parsed = parseLimits(rest);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (!values.org) throw new UsageError('--org is required');
  const modes = [values.unlimited, values.default, values['per-min'] !== undefined].filter(Boolean).length;
  if (modes !== 1) throw new UsageError('give exactly one of --per-min/--burst, --unlimited or --default');
  let perMin: number | null = null;
  let burst: number | null = null;
  let tier: 'standard' | 'enterprise' = 'standard';
  if (values.unlimited) {
    perMin = 0;
    burst = 0;
    tier = 'enterprise';
  } else if (values['per-min'] !== undefined) {
    perMin = Number(values['per-min']);
    burst = Number(values.burst ?? values['per-min']);
    if (!Number.isInteger(perMin) || perMin < 1 || !Number.isInteger(burst) || burst < 1) {
      throw new UsageError('--per-min and --burst must be positive integers');
    }
    tier = 'enterprise';
  }
  const { tokens } = await ctx.open();
  if (!(await tokens.setOrgLimits(values.org, { perMin, burst, tier }))) {
    ctx.err(`r3 org limits: no org "${values.org}"`);
    return 1;
  }
  const answer = { org: values.org, tier, rateLimitPerMin: perMin, rateLimitBurst: burst };
  ctx.out(values.json ? JSON.stringify(answer) : `${values.org}: ${describe(perMin, burst)}`);
  return 0;
}

function parseLimits(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    options: {
      org: { type: 'string' },
      'per-min': { type: 'string' },
      burst: { type: 'string' },
      unlimited: { type: 'boolean' },
      default: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
}

function describe(perMin: number | null, burst: number | null): string {
  if (perMin === null) return 'deployment default rate limit';
  if (perMin === 0) return 'rate limiting disabled';
  return `${perMin} requests/minute, burst ${burst}`;
}
