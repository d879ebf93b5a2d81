/**
 * Tokens: issuing (CLI), listing and revoking API tokens, the operator's org rate-limit override, and
 * the org's people (its users, and who a `token:<id>` attribution is: people.ts). Authenticating a request with a token is the platform's (src/platform/auth/authenticate.ts).
 */
import { AUTH_CHANGED_SIGNAL } from '../../platform/auth/stream-revocation.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { tokenCommand } from './cli.js';
import { Migration0029TokenSource } from './migrations/0029-token-source.js';
import { orgCommand } from './org-cli.js';
import { PeopleService } from './people.js';
import { peopleRoutes } from './people-routes.js';
import { tokenRoutes } from './routes.js';
import { TokenService } from './service.js';

export type { CreatedToken, CreateTokenInput, TokenView } from './service.js';
export { TokenService } from './service.js';

/** What the tokens feature offers. */
export interface TokensApi {
  tokens: TokenService;
}

export const tokensFeature = defineFeature({
  name: 'tokens',
  migrations: [{ name: '0029-token-source', class: Migration0029TokenSource }],
  register(platform: Platform): TokensApi {
    // After a revocation commits, every process re-reads the tokens of its open streams at once.
    const tokens = new TokenService(platform.db, platform.config.env, platform.clock, () =>
      platform.bus.signal(AUTH_CHANGED_SIGNAL),
    );
    platform.routes.add(...tokenRoutes(tokens), ...peopleRoutes(new PeopleService(platform.db.sql)));
    return { tokens };
  },
  commands: [tokenCommand, orgCommand],
});
