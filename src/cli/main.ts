/**
 * The `r3` command line (decisions §2): `serve`, `migrate`, `token create|list|revoke`, and the
 * commands later features add. It reads the same environment as the server. Logs go to stderr so
 * `--json` output on stdout stays machine-readable.
 */

import { tokenCommand } from '../features/tokens/cli.js';
import { orgCommand } from '../features/tokens/org-cli.js';
import { workspaceCommand } from '../features/workspace/cli.js';
import { ConfigError, loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/log.js';
import { mcpCommand } from './mcp.js';
import { migrateCommand, serveCommand } from './serve.js';
import { UsageError } from './usage.js';

const HELP = `r3 — Run, Review and Resource automation

Usage:
  r3 serve                      migrate the database, then serve HTTP (what npm start runs)
  r3 migrate                    apply pending migrations and exit
  r3 token create --org <slug> --user <userId> --role <role> --name <label>
                  [--scope <scopes>] [--expires <ISO time>] [--json]
  r3 token list --org <slug> [--json]
  r3 token revoke <id> [--json]
  r3 org limits --org <slug> (--per-min <n> [--burst <n>] | --unlimited | --default) [--json]
  r3 workspace diff|apply --org <slug> [--json]
  r3 workspace export --org <slug> [--dir <path>] [--json]
  r3 mcp --org <slug>           the org's MCP server on stdio (stdout is the protocol; logs on stderr)

Roles: owner, pm, client_reviewer, specialist. Scopes: read:all, read:skills, write:resources,
run:invoke, run:approve (default read:all,run:invoke).
Configuration comes from the environment; see README.md.`;

type Command = (args: string[], ctx: CliContext) => Promise<number>;

export interface CliContext {
  config: ReturnType<typeof loadConfig>;
  out: (line: string) => void;
  err: (line: string) => void;
}

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  migrate: migrateCommand,
  token: tokenCommand,
  org: orgCommand,
  workspace: workspaceCommand,
  mcp: mcpCommand,
};

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    out(HELP);
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    err(`r3: unknown command "${name}"\n\n${HELP}`);
    return 2;
  }
  let config: CliContext['config'];
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      err(`r3: ${error.message}`);
      return 2;
    }
    throw error;
  }
  try {
    return await command(rest, { config, out, err });
  } catch (error) {
    if (error instanceof UsageError) {
      err(`r3 ${name}: ${error.message}`);
      return 2;
    }
    createLogger('error', 2).error({ err: error }, 'command failed');
    err(`r3 ${name}: ${(error as Error).message}`);
    return 1;
  }
}
