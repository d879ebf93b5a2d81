/**
 * The hot reads' connections: a few sessions of r3's own, beside MikroORM's pool, for the statements
 * every request makes — authentication's batches, with the route's first read fused into them
 * (src/platform/auth/authenticate.ts). Nothing else uses them: transactions, the ORM, jobs and the
 * rest of the plain SQL stay on the pool.
 *
 * Why beside the pool (docs/performance.md, "GET /runs/:id"): borrowing from MikroORM's pool goes
 * through the lanes, knex and tarn (two timed pending operations and a validation per acquire), which
 * a request whose one statement is its whole work pays in full; and with the job workers holding the
 * pool's connections, a request's authentication waited for one to come back — accepts queued behind
 * execution work. Here a borrow is an array pop, and the workers never hold these sessions.
 *
 * Their one write, the rate-limit step authentication takes (src/platform/ratelimit/gcra-sql.ts), is
 * committed without waiting for the WAL's flush (`synchronous_commit = off`): every batch of a
 * limited token's requests commits its step, and with the flush in the way a batch's answer waited
 * for the disk (docs/performance.md, "GET /runs/:id"). Other sessions see the step at once as before;
 * what a crash of PostgreSQL (not of r3) may lose is the last fraction of a second of steps, so a
 * bucket may come back a little fuller than it was. Nothing else is written on these sessions.
 *
 * Terminology:
 * - session: one pg client, opened on first need with the pool's settings (application name, generic
 *   plans, pipelining) and asynchronous commits, at most `size` at once; a borrower gets an idle one, a new one while fewer
 *   than `size` are open, else waits for one to be given back (first come, first served).
 * - broken: a session whose connection failed or ended (PostgreSQL restarted, the backend was
 *   terminated): it is closed when given back, not lent again, and the next borrow opens another.
 *   A statement's failure that is not PostgreSQL refusing the statement (severity ERROR) — a FATAL
 *   answer such as 57P01 when the backend was terminated, a socket's error — breaks the session at
 *   once: pg reports the connection's end only after the borrower has its answer, and a session given
 *   back in between would be lent to the next borrower dead.
 */
import pg from 'pg';
import type { ConnectionSource } from './sql.js';

/** The pool's session settings (database.ts opens its connections with the same). */
export interface SessionSettings {
  url: string;
  applicationName: string;
}

/** The options every session of r3 opens with: generic plans (sql.ts says why), pipelining. */
export function sessionOptions(settings: SessionSettings): pg.ClientConfig & { pipeline: boolean } {
  return {
    // All of the URL (TLS and other parameters too).
    connectionString: settings.url,
    application_name: settings.applicationName,
    options: '-c plan_cache_mode=force_generic_plan',
    // A statement is sent without waiting for the answers to those before it (sql.ts).
    pipeline: true,
  };
}

/** The hot reads' sessions' options: the pool's, with commits that do not wait for the WAL's flush. */
function hotSessionOptions(settings: SessionSettings): pg.ClientConfig & { pipeline: boolean } {
  const options = sessionOptions(settings);
  return { ...options, options: `${options.options} -c synchronous_commit=off` };
}

/** A connection source of at most `size` sessions of its own; `close` ends them. */
export function hotReadConnections(
  settings: SessionSettings,
  size: number,
): ConnectionSource & { close(): Promise<void> } {
  const idle: pg.Client[] = [];
  const waiting: Array<{ resolve(client: pg.Client): void; reject(error: unknown): void }> = [];
  const broken = new WeakSet<pg.Client>();
  const all = new Set<pg.Client>();
  let closed = false;

  /**
   * Whether `client` may be lent: not marked broken, and its socket still open — a statement that
   * failed on a dead connection (EPIPE) may be given back before pg reports the connection's end.
   */
  function usable(client: pg.Client): boolean {
    const c = client as unknown as {
      _queryable?: boolean;
      _ending?: boolean;
      connection?: { stream?: { destroyed?: boolean; writable?: boolean } };
    };
    const stream = c.connection?.stream;
    return (
      !broken.has(client) &&
      c._queryable !== false &&
      c._ending !== true &&
      stream?.destroyed !== true &&
      stream?.writable !== false
    );
  }

  /** Whether a statement's `failure` says its session's connection is gone (the file comment). */
  function breaks(failure: unknown): boolean {
    return failure !== undefined && (failure as { severity?: unknown } | null)?.severity !== 'ERROR';
  }

  /** Ends a session that is not lent again. */
  function discard(client: pg.Client): void {
    all.delete(client);
    client.end().catch(() => undefined);
  }

  async function open(): Promise<pg.Client> {
    const client = new pg.Client(hotSessionOptions(settings));
    all.add(client);
    const lose = () => broken.add(client);
    // A session's connection error is its borrower's statement's error; the session is not reused.
    client.on('error', lose);
    client.on('end', lose);
    try {
      await client.connect();
      return client;
    } catch (error) {
      all.delete(client);
      throw error;
    }
  }

  /** Opens a session for the first waiter (a session was closed, or failed to open). */
  function openForWaiter(): void {
    const waiter = waiting.shift();
    if (!waiter) return;
    open().then(waiter.resolve, (error) => {
      waiter.reject(error);
      openForWaiter();
    });
  }

  return {
    acquire() {
      if (closed) return Promise.reject(new Error('the hot reads’ connections are closed'));
      for (let client = idle.pop(); client; client = idle.pop()) {
        if (usable(client)) return Promise.resolve(client);
        discard(client);
      }
      if (all.size < size) return open();
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    release(client, failure) {
      if (breaks(failure)) broken.add(client);
      if (closed || !usable(client)) {
        discard(client);
        if (!closed) openForWaiter();
        return;
      }
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(client);
      else idle.push(client);
    },
    async close() {
      closed = true;
      for (const waiter of waiting.splice(0))
        waiter.reject(new Error('the hot reads’ connections are closed'));
      idle.length = 0;
      await Promise.all([...all].map((client) => client.end().catch(() => undefined)));
      all.clear();
    },
  };
}
