/** Structured logging (pino). The CLI logs to stderr so stdout stays machine-readable. */
import pino, { type Logger } from 'pino';

export type { Logger };

/** Creates the process logger; `destination` 2 writes to stderr. */
export function createLogger(level: string, destination: 1 | 2 = 1): Logger {
  return pino(
    { level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ fd: destination, sync: false }),
  );
}
