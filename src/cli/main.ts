/**
 * The `r3` command line (README "Command line"): `serve`, `migrate`, `token create|list|revoke`, and the
 * commands later features add. It reads the same environment as the server. Logs go to stderr so
 * `--json` output on stdout stays machine-readable.
 */

import { FEATURE_COMMANDS } from '../features.js';
import { type OpenedApp, openApp } from '../main.js';
import { type CliCommand, type CliContext, UsageError } from '../platform/cli.js';
import { type Config, ConfigError, loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/log.js';
import { systemClock } from '../platform/util/clock.js';
import { mcpCommand } from './mcp.js';
import { secretsCommand } from './secrets.js';
import { migrateCommand, serveCommand } from './serve.js';
import { workCommand } from './work.js';

/** The process commands, then the features' (each opening its feature's API). */
const COMMANDS: ReadonlyArray<{
  command: CliCommand<never>;
  feature?: (typeof FEATURE_COMMANDS)[number]['feature'];
}> = [
  { command: serveCommand },
  { command: workCommand },
  { command: migrateCommand },
  ...FEATURE_COMMANDS,
  { command: mcpCommand },
  { command: secretsCommand },
];

const HELP = `r3 — Run, Review and Resource automation

Usage:
${COMMANDS.map(({ command }) => command.usage).join('\n')}

Roles: owner, pm, client_reviewer, specialist. Scopes: read:all, read:skills, write:resources,
run:invoke, run:approve (default read:all,run:invoke).
Configuration comes from the environment; see README.md.`;

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    out(HELP);
    return name ? 0 : 1;
  }
  const entry = COMMANDS.find(({ command }) => command.name === name);
  if (!entry) {
    err(`r3: unknown command "${name}"\n\n${HELP}`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      err(`r3: ${error.message}`);
      return 2;
    }
    throw error;
  }
  let app = null as OpenedApp | null;
  const ctx: CliContext<unknown> = {
    config,
    out,
    err,
    async open() {
      const feature = entry.feature;
      if (!feature) throw new Error(`r3 ${name} opens no feature`);
      const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
      app ??= await openApp(config, { role: 'cli', clock: systemClock, log });
      return app.features[feature];
    },
  };
  try {
    return await (entry.command as CliCommand<unknown>).run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`r3 ${name}: ${error.message}`);
      return 2;
    }
    createLogger('error', 2).error({ err: error }, 'command failed');
    err(`r3 ${name}: ${(error as Error).message}`);
    return 1;
  } finally {
    await app?.platform.stop();
  }
}
