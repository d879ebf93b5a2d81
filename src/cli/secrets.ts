/**
 * `r3 secrets rekey --previous-key-file <file> [--dry-run]`: rotates the master secret. Run it with
 * the new secret configured (R3_SECRET_KEY, or R3_DATA_DIR/secret.key) and the previous one in a
 * file; every sealed value (the features' `sealedColumns`) is resealed in one transaction. With
 * `--dry-run` it checks that every value opens and changes nothing. ops/README.md has the procedure.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openApp } from '../main.js';
import { type CliCommand, type CliContext, UsageError } from '../platform/cli.js';
import { createLogger } from '../platform/log.js';
import { SECRET_KEY_FILE } from '../platform/secrets/master-key.js';
import { RekeyError, rekeySealed } from '../platform/secrets/rekey.js';
import { systemClock } from '../platform/util/clock.js';

export const secretsCommand: CliCommand = {
  name: 'secrets',
  usage:
    '  r3 secrets rekey --previous-key-file <file> [--dry-run]\n' +
    '                                reseal stored secrets from the previous master secret to the current one',
  run: secrets,
};

/** Rolled back after a dry run (nothing of it is kept). */
class DryRun extends Error {}

async function secrets(args: string[], ctx: CliContext): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'rekey') throw new UsageError('the only subcommand is rekey');
  let values: { 'previous-key-file'?: string; 'dry-run'?: boolean };
  try {
    values = parseArgs({
      args: rest,
      strict: true,
      options: { 'previous-key-file': { type: 'string' }, 'dry-run': { type: 'boolean' } },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const file = values['previous-key-file'];
  if (!file)
    throw new UsageError('--previous-key-file is required (a file holding the previous master secret)');
  const previous = (await readFile(file, 'utf8')).trim();
  if (previous === '') throw new UsageError(`${file} is empty`);

  const { config } = ctx;
  const keyFile = path.join(config.dataDir, SECRET_KEY_FILE);
  if (!config.secretKey && !existsSync(keyFile)) {
    // Reading the master secret would generate a new random one into that file: refuse instead.
    ctx.err(
      `r3 secrets rekey: no current master secret: R3_SECRET_KEY is unset and ${keyFile} does not exist; ` +
        'set R3_SECRET_KEY to the new secret',
    );
    return 1;
  }
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
  const { platform } = await openApp(config, { role: 'cli', clock: systemClock, log });
  try {
    const current = await platform.masterSecret();
    if (current === previous) {
      ctx.err('r3 secrets rekey: the previous secret is the current one; nothing to do');
      return 1;
    }
    const columns = platform.sealedColumns.all;
    let counts: Awaited<ReturnType<typeof rekeySealed>> = [];
    try {
      await platform.db.sql.tx(async (sql) => {
        counts = await rekeySealed(sql, columns, { previous, current });
        if (values['dry-run']) throw new DryRun();
      });
    } catch (error) {
      if (error instanceof RekeyError) {
        ctx.err(`r3 secrets rekey: ${error.message}`);
        return 1;
      }
      if (!(error instanceof DryRun)) throw error;
    }
    for (const c of counts) {
      ctx.out(`${c.table}.${c.column}: ${c.rekeyed} resealed, ${c.current} already on the current secret`);
    }
    ctx.out(values['dry-run'] ? 'dry run: every value opens; nothing was changed' : 'done');
    return 0;
  } finally {
    await platform.stop();
  }
}
