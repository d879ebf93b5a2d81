/**
 * Revocation reaches open streams: an event stream (run events, the review queue, MCP) was
 * authenticated once, when it opened; without this a revoked or expired token went on receiving
 * events, outputs included. Every `STREAM_REVALIDATE_MS`, and at once when any process signals
 * `AUTH_CHANGED_SIGNAL` on the bus (a revocation, sign-out or `r3 session revoke`, through the API or
 * the CLI), the tokens and browser sessions behind this process's open streams are read again; the
 * streams of a token that is revoked, expired or gone, or of a session that ended, are ended. On every
 * node: the signal crosses the bus, and the timer bounds what a lost signal costs.
 */
import type { Bus, Subscription } from '../bus/bus.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Clock } from '../util/clock.js';
import { coalescedRunner } from '../util/coalesce.js';
import type { Principal } from './principal.js';
import type { SessionAuthenticator } from './sessions.js';

/** Signalled after a commit that revokes a token, ends a session, or otherwise ends what a caller may do. */
export const AUTH_CHANGED_SIGNAL = 'sig.auth.changed';

/** The longest a revoked token's stream stays open when no signal arrives. */
export const STREAM_REVALIDATE_MS = 1_000;

const STILL_VALID = `
  select id from api_tokens
   where id = any($1::text[]) and revoked_at is null and (expires_at is null or expires_at > $2)`;

export interface StreamRevocation {
  /** Reads the streams' tokens again now; answers how many streams were ended. */
  revalidate(): Promise<number>;
  stop(): void;
}

export async function guardStreams(deps: {
  /** The open authenticated streams (the HTTP server's; auth does not import it). */
  http: {
    streamOwners(): Principal[];
    endStreamsOf(ended: (principal: Principal) => boolean): number;
  };
  sql: Sql;
  /** The registered browser sessions (none: session streams are not checked). */
  sessions?: () => SessionAuthenticator | null;
  bus: Bus;
  clock: Clock;
  log: Logger;
  everyMs?: number;
}): Promise<StreamRevocation> {
  const { http, sql, clock, log } = deps;
  async function revalidate(): Promise<number> {
    const owners = http.streamOwners();
    const tokenIds = [
      ...new Set(owners.flatMap((principal) => (principal.tokenId ? [principal.tokenId] : []))),
    ];
    const sessionIds = [
      ...new Set(owners.flatMap((principal) => (principal.sessionId ? [principal.sessionId] : []))),
    ];
    const sessions = sessionIds.length > 0 ? (deps.sessions?.() ?? null) : null;
    if (tokenIds.length === 0 && !sessions) return 0;
    const [rows, open] = await Promise.all([
      tokenIds.length > 0 ? sql.query<{ id: string }>(STILL_VALID, [tokenIds, new Date(clock.now())]) : [],
      sessions ? sessions.stillOpen(sessionIds) : null,
    ]);
    const valid = new Set(rows.map((row) => row.id));
    const ended = http.endStreamsOf(
      (principal) =>
        (principal.tokenId !== null && !valid.has(principal.tokenId)) ||
        (open !== null && principal.sessionId !== undefined && !open.has(principal.sessionId)),
    );
    if (ended > 0)
      log.info({ ended }, 'ended the event streams of revoked or expired tokens and ended sessions');
    return ended;
  }
  let active = true;
  const runner = coalescedRunner({
    run: async () => {
      await revalidate();
    },
    active: () => active,
    onError: (error) => log.warn({ err: error }, 'revalidating the tokens of open streams failed'),
  });
  const run = () => runner.trigger();
  const timer = setInterval(run, deps.everyMs ?? STREAM_REVALIDATE_MS);
  timer.unref();
  let subscription: Subscription | null = null;
  try {
    subscription = await deps.bus.subscribe(AUTH_CHANGED_SIGNAL, run);
  } catch (error) {
    log.warn({ err: error }, 'revocation signals unavailable; open streams are checked every second');
  }
  return {
    revalidate,
    stop() {
      active = false;
      clearInterval(timer);
      subscription?.unsubscribe();
    },
  };
}
