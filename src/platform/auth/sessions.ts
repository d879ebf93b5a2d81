/**
 * Browser sessions, as the platform sees them: a feature (the web UI) may register one
 * `SessionAuthenticator`, which the server asks about every request that carries no `Authorization`
 * header. It answers null when the request has no session cookie either (the request then fails as
 * any unauthenticated one), or the session's principal and its rate-limit bucket, or throws 401
 * (expired, revoked, unknown) or 403 (a state-changing request without the CSRF token or from
 * another origin). Bearer tokens take precedence: a request with both is a token request.
 */
import type { RateDecision, RatePolicy } from '../ratelimit/limiter.js';
import type { Authenticate, Authenticated, FusedRequest } from './authenticate.js';
import type { Principal } from './principal.js';

/** What an authenticator may read of the request besides the Authorization header. */
export interface IncomingRequest {
  method: string;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string>>;
}

/** A request authenticated by its session: the principal and the rate-limit bucket it draws on. */
export interface SessionCaller {
  principal: Principal;
  rateKey: string;
}

export interface SessionAuthenticator {
  authenticate(request: IncomingRequest): Promise<SessionCaller | null>;
  /**
   * Of `sessionIds`, the ones still open (not signed out or revoked): the streams of the others are
   * ended (auth/stream-revocation.ts).
   */
  stillOpen(sessionIds: readonly string[]): Promise<ReadonlySet<string>>;
}

/** The authenticator the server calls: Bearer first, else the session (when one is registered). */
export type RequestAuthenticate = (
  authorization: string | undefined,
  fused?: FusedRequest | null,
  request?: IncomingRequest,
) => Promise<Authenticated>;

/**
 * Bearer authentication, with sessions for requests without an Authorization header. A session's
 * request takes its step from its own bucket under the org's limits (or the deployment's).
 */
export function withSessions(
  bearer: Authenticate,
  sessions: () => SessionAuthenticator | null,
  take: (key: string, policy: RatePolicy) => Promise<RateDecision | null>,
  defaults: RatePolicy,
): RequestAuthenticate {
  async function bySession(
    registered: SessionAuthenticator,
    request: IncomingRequest,
    fused: FusedRequest | null | undefined,
  ): Promise<Authenticated> {
    const caller = await registered.authenticate(request);
    if (!caller) return bearer(undefined, fused);
    const { perMinute, burst } = caller.principal.rateLimit;
    const rate = await take(caller.rateKey, {
      perMinute: perMinute ?? defaults.perMinute,
      burst: burst ?? defaults.burst,
    });
    return { principal: caller.principal, rate };
  }
  // A Bearer request goes straight to `bearer`: no wrapping promise on the path of every API call.
  return (authorization, fused, request) => {
    const registered = sessions();
    if (!authorization && request && registered) return bySession(registered, request, fused);
    return bearer(authorization, fused);
  };
}
