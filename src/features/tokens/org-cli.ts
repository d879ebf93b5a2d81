/**
 * `r3 org limits --org <slug> (--per-min <n> --burst <n> | --unlimited | --default) [--json]`: the
 * enterprise-tier override of the per-token rate limit (raise it, disable it, or go back to the
 * deployment default).
 */
import { parseArgs } from 'node:util';
import { type CliCommand, type CliContext, UsageError } from '../../platform/cli.js';
import type { TokensApi } from './index.js';

/** `r3 org limits …`. */
export const orgCommand: CliCommand<TokensApi> = {
  name: 'org',
  usage: '  r3 org limits --org <slug> (--per-min <n> [--burst <n>] | --unlimited | --default) [--json]',
  run: limits,
};

async function limits(args: string[], ctx: CliContext<TokensApi>): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'limits') throw new UsageError('expected "limits"');
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
