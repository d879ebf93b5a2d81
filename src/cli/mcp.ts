/**
 * `r3 mcp --org <slug>`: the single-tenant stdio MCP transport (README "Command line"). stdout carries the
 * protocol and nothing else; logs go to stderr.
 *
 * The process is a worker node as well: it executes the jobs it claims (skill steps, reindex passes)
 * and fires due timers, so `runtime_run_skill` completes with no `r3 serve` running. It relays its
 * outbox to the bus only when the bus is shared (NATS_URL): with the in-process bus, events published
 * here would reach no `r3 serve` process, so it leaves them to a server's relay (and waits for runs by
 * polling).
 */
import { parseArgs } from 'node:util';
import { openApp } from '../main.js';
import { type CliCommand, type CliContext, UsageError } from '../platform/cli.js';
import { createLogger } from '../platform/log.js';
import { serveStdio, stdioPrincipal } from '../platform/mcp/stdio.js';
import { createToolset } from '../platform/mcp/toolset.js';
import { systemClock } from '../platform/util/clock.js';

export const mcpCommand: CliCommand = {
  name: 'mcp',
  usage:
    "  r3 mcp --org <slug>           the org's MCP server on stdio (stdout is the protocol; logs on stderr)",
  run: mcp,
};

async function mcp(args: string[], ctx: CliContext): Promise<number> {
  let values: { org?: string };
  try {
    values = parseArgs({ args, strict: true, options: { org: { type: 'string' } } }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const slug = values.org;
  if (!slug) throw new UsageError('--org is required');

  const { config } = ctx;
  const log = createLogger(config.logLevel, 2);
  const { platform } = await openApp(config, { role: 'worker', clock: systemClock, log });
  try {
    const org = await platform.db.sql.maybeOne<{ id: number; slug: string }>(
      'select id, slug from orgs where slug = $1',
      [slug],
    );
    if (!org) {
      ctx.err(
        `r3 mcp: no org "${slug}" (an org is created with its first token: r3 token create --org ${slug} …)`,
      );
      return 1;
    }
    const toolset = createToolset(platform.mcp.all, {
      httpAuthoring: config.mcp.httpAuthoring,
      validateOutput: config.mcp.validateOutput,
      log,
      resources: platform.mcp.resources,
      prompts: platform.mcp.prompts,
      taskKinds: platform.mcp.taskKinds,
    });
    // Workers, timers and (with a shared bus) the outbox relay: see the role `worker` in platform.ts.
    await platform.start();
    const session = await serveStdio(toolset, stdioPrincipal(org));
    platform.onClose(() => session.close());
    log.info({ org: org.slug, bus: config.natsUrl ? 'nats' : 'in-process' }, 'r3 mcp serving on stdio');
    const signalled = new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    const why = await Promise.race([session.closed.then(() => 'stdin closed'), signalled]);
    log.info({ reason: why }, 'r3 mcp stopping');
    await platform.stop();
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    // Everything is closed; a paused stdin must not hold the process open.
    process.exit(0);
  } finally {
    await platform.stop();
  }
}
