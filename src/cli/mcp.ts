/**
 * `r3 mcp --org <slug>`: the single-tenant stdio MCP transport (decisions §2). stdout carries the
 * protocol and nothing else; logs go to stderr.
 *
 * The process is a worker node as well: it executes the jobs it claims (skill steps, reindex passes)
 * and fires due timers, so `runtime_run_skill` completes with no `r3 serve` running. It relays its
 * outbox to the bus only when the bus is shared (NATS_URL): with the in-process bus, events published
 * here would reach no `r3 serve` process, so it leaves them to a server's relay (and waits for runs by
 * polling).
 */
import { parseArgs } from 'node:util';
import { createRunRuntime } from '../features/runs/runtime.js';
import { openConfiguredDatabase } from '../main.js';
import { connectBus } from '../platform/bus/connect.js';
import { createLogger } from '../platform/log.js';
import { serveStdio, stdioPrincipal } from '../platform/mcp/stdio.js';
import { createToolset } from '../platform/mcp/toolset.js';
import { systemClock } from '../platform/util/clock.js';
import { createResourceServices } from '../resource-services.js';
import type { CliContext } from './main.js';
import { UsageError } from './usage.js';

export async function mcpCommand(args: string[], ctx: CliContext): Promise<number> {
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
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) {
      await step().catch((error: unknown) => log.warn({ err: error }, 'shutdown step failed'));
    }
    cleanups.length = 0;
  };
  try {
    const db = await openConfiguredDatabase(config, log);
    cleanups.push(() => db.close());
    await db.migrate();
    const org = await db.sql.maybeOne<{ id: number; slug: string }>(
      'select id, slug from orgs where slug = $1',
      [slug],
    );
    if (!org) {
      ctx.err(
        `r3 mcp: no org "${slug}" (an org is created with its first token: r3 token create --org ${slug} …)`,
      );
      return 1;
    }
    const bus = await connectBus({ natsUrl: config.natsUrl, prefix: config.busPrefix, logger: log });
    cleanups.push(() => bus.close());
    const runtime = createRunRuntime({ config, db, bus, clock: systemClock, log });
    const resources = createResourceServices({ config, log, clock: systemClock, db, jobs: runtime.jobs });
    const toolset = createToolset(
      { log, bus, runs: runtime.runs, ...resources },
      { httpAuthoring: config.mcp.httpAuthoring },
    );

    await runtime.jobs.start();
    cleanups.push(() => runtime.jobs.stop(config.shutdownTimeoutMs));
    runtime.timers.start();
    cleanups.push(() => runtime.timers.stop());
    if (config.natsUrl) {
      runtime.outbox.start();
      cleanups.push(async () => {
        await runtime.outbox.stop();
        await runtime.outbox.flush();
      });
    }

    const session = await serveStdio(toolset, stdioPrincipal(org));
    cleanups.push(() => session.close());
    log.info({ org: org.slug, bus: config.natsUrl ? 'nats' : 'in-process' }, 'r3 mcp serving on stdio');
    const signalled = new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    const why = await Promise.race([session.closed.then(() => 'stdin closed'), signalled]);
    log.info({ reason: why }, 'r3 mcp stopping');
    await cleanup();
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    // Everything is closed; a paused stdin must not hold the process open.
    process.exit(0);
  } finally {
    await cleanup();
  }
}
