/** `r3 serve` and `r3 migrate`. */

import { startApp } from '../main.js';
import { migrations } from '../migrations.js';
import type { CliCommand, CliContext } from '../platform/cli.js';
import { openConfiguredDatabase } from '../platform/db/database.js';
import { createLogger } from '../platform/log.js';
import { startWorkerProcesses } from './workers.js';

export const serveCommand: CliCommand = {
  name: 'serve',
  usage: '  r3 serve                      migrate the database, then serve HTTP (what npm start runs)',
  run: serve,
};

export const migrateCommand: CliCommand = {
  name: 'migrate',
  usage: '  r3 migrate                    apply pending migrations and exit',
  run: migrate,
};

async function serve(_args: string[], { config, out }: CliContext): Promise<number> {
  // Listened for from the start: a signal during start-up stops the process once it has started.
  const signalled = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const log = createLogger(config.logLevel);
  const app = await startApp(config, { log });
  const { engine } = app.http;
  const http = engine.kind === 'native' ? engine.detail : 'node:http, performance reduced';
  // After the migrations and once this process listens: the children find the schema in place.
  if (config.workerProcesses > 0) {
    const workers = startWorkerProcesses({ count: config.workerProcesses, log });
    // Stopped among the first of the closers: after this process's requests drained and its loops
    // stopped, so their relays' last pass publishes what it committed last, and before the database
    // closes (an embedded cluster this process started stops then; they still need it).
    app.onClose(() => workers.stop(config.shutdownTimeoutMs + 5_000));
  }
  out(`r3 listening on ${app.url} (BASE_URL ${config.baseUrl}; HTTP: ${http}; Node ${process.version})`);
  const signal = await signalled;
  log.info({ signal }, 'shutting down');
  await app.close();
  // Requests are drained and pools closed; idle keep-alive sockets must not hold the process open.
  await new Promise<void>((resolve) => log.flush(() => resolve()));
  process.exit(0);
}

async function migrate(_args: string[], { config, out }: CliContext): Promise<number> {
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
  const db = await openConfiguredDatabase(config, log, migrations);
  try {
    const applied = await db.migrate();
    out(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    return 0;
  } finally {
    await db.close();
  }
}
