/**
 * The command line's contract with features: a feature declares its `r3` commands (`Feature.commands`),
 * and the CLI (src/cli/main.ts) parses nothing for them but the command name. A command reads its
 * own arguments and, once they are valid, opens the feature's API (`ctx.open()`: the database
 * migrated, every feature registered, nothing running), which the CLI closes when the command ends.
 */
import type { Config } from './config.js';

/** A mistake in how a command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** What a command runs with. */
export interface CliContext<Api = unknown> {
  config: Config;
  /** A line on stdout (the command's answer; `--json` output stays machine-readable). */
  out(line: string): void;
  /** A line on stderr. */
  err(line: string): void;
  /** The feature's API, on a platform opened for this command (role `cli`), closed when it ends. */
  open(): Promise<Api>;
}

/** One `r3 <name> …` command. */
export interface CliCommand<Api = unknown> {
  name: string;
  /** Its lines in `r3 help`, as printed (two-space indent). */
  usage: string;
  /** Resolves to the exit code; throw `UsageError` for a bad invocation. */
  run(args: string[], ctx: CliContext<Api>): Promise<number>;
}
