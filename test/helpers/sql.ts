/** Test doubles over a real statement runner, and an authenticator built on one. */
import {
  type Authenticate,
  createAuthenticator,
  type FusedRead,
} from '../../src/platform/auth/authenticate.js';
import type { Sql } from '../../src/platform/db/sql.js';
import type { RatePolicy } from '../../src/platform/ratelimit/limiter.js';
import type { TestApp } from './app.js';

/** `sql` with every prepared statement it sends noted (name and values), in order. */
export function countingSql(sql: Sql): { sql: Sql; statements: Array<{ name: string; values: unknown[] }> } {
  const statements: Array<{ name: string; values: unknown[] }> = [];
  return {
    statements,
    sql: {
      ...sql,
      prepared: (name, text, values) => {
        statements.push({ name, values: [...(values ?? [])] });
        return sql.prepared(name, text, values);
      },
    },
  };
}

/**
 * An authenticator on `t`'s database (60/min and burst 5 unless `options.defaults` say otherwise,
 * `t`'s clock) whose statements are counted, with `fusedReads` registered.
 */
export function countingAuthenticator(
  t: TestApp,
  fusedReads?: Record<string, FusedRead>,
  options: { defaults?: RatePolicy; knownTokens?: number } = {},
): { authenticate: Authenticate; statements: Array<{ name: string; values: unknown[] }> } {
  const counting = countingSql(t.app.db.sql);
  const authenticate = createAuthenticator({
    sql: counting.sql,
    env: 'test',
    clock: t.clock,
    lastUsed: t.app.lastUsed,
    defaults: options.defaults ?? { perMinute: 60, burst: 5 },
    ...(fusedReads ? { fusedReads } : {}),
    ...(options.knownTokens ? { knownTokens: options.knownTokens } : {}),
  });
  return { authenticate, statements: counting.statements };
}
