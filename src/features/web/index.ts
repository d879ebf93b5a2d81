/**
 * The web UI (docs/api.md#browser-sessions-the-web-ui): browser sessions (sign-in by one-time link or pasted
 * token, the session cookie accepted by every API route, CSRF checks), `r3 login-link`, and the pages and
 * bundle of the app in web/ (Preact), served with a strict Content-Security-Policy.
 *
 * Terminology: the *shell* is the one HTML page every UI path answers; the *bundle* is the app's
 * hashed scripts and styles under /assets/.
 */
import { AUTH_CHANGED_SIGNAL } from '../../platform/auth/stream-revocation.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { webRoutes } from './assets/routes.js';
import { loadWebBundle, type WebBundle } from './assets/web-bundle.js';
import { loginLinkCommand, sessionCommand } from './cli.js';
import { Migration0017WebSessions } from './migrations/0017-web-sessions.js';
import { sessionRoutes } from './sessions/routes.js';
import { SessionService } from './sessions/session-service.js';

export { LINK_SCOPES, type SessionView } from './sessions/session-service.js';

/** What the web feature offers. */
export interface WebApi {
  sessions: SessionService;
}

export const webFeature = defineFeature({
  name: 'web',
  migrations: [{ name: '0017-web-sessions', class: Migration0017WebSessions }],
  register(platform: Platform): WebApi {
    const sessions = new SessionService({
      sql: platform.db.sql,
      clock: platform.clock,
      env: platform.config.env,
      baseUrl: () => platform.baseUrl(),
      // After a sign-out or `r3 session revoke` commits, every process ends that session's streams.
      onEnded: () => platform.bus.signal(AUTH_CHANGED_SIGNAL),
    });
    platform.auth.setSessions(sessions);
    let bundle: WebBundle | null = null;
    platform.addService({
      name: 'web bundle',
      async prepare() {
        bundle = await loadWebBundle();
      },
    });
    platform.routes.add(
      ...sessionRoutes(sessions, () => platform.baseUrl()),
      ...webRoutes(() => {
        if (!bundle) throw new Error('the web bundle is not loaded');
        return bundle;
      }),
    );
    return { sessions };
  },
  commands: [loginLinkCommand, sessionCommand],
});
