/**
 * Sign in with OAuth (docs/api.md#sign-in-with-oauth, decisions §18): the MCP endpoint as an OAuth 2.1
 * protected resource, and r3 as its own authorization server — the discovery documents (RFC 9728,
 * RFC 8414), client registration (RFC 7591, and Client ID Metadata Documents), the authorization-code
 * grant with PKCE and a consent page of the web UI, and a token endpoint whose access tokens are
 * ordinary r3 API tokens of the person who consented.
 */
import { AUTH_CHANGED_SIGNAL } from '../../platform/auth/stream-revocation.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { TokensApi } from '../tokens/index.js';
import { LINK_SCOPES } from '../web/index.js';
import { OAuthClients } from './clients.js';
import { OAuthGrants } from './grants.js';
import { metadataRoutes } from './metadata.js';
import { Migration0033OauthClients } from './migrations/0033-oauth-clients.js';
import { Migration0034OauthGrants } from './migrations/0034-oauth-grants.js';
import { Migration0053OauthTokenSource } from './migrations/0053-oauth-token-source.js';
import { oauthRoutes } from './routes.js';

/** How often ended requests, codes and refresh-token families are deleted. */
const SWEEP_EVERY_MS = 10 * 60_000;

/** What the oauth feature offers. */
export interface OAuthApi {
  oauthClients: OAuthClients;
  oauthGrants: OAuthGrants;
}

export const oauthFeature = defineFeature({
  name: 'oauth',
  migrations: [
    { name: '0033-oauth-clients', class: Migration0033OauthClients },
    { name: '0034-oauth-grants', class: Migration0034OauthGrants },
    { name: '0053-oauth-token-source', class: Migration0053OauthTokenSource },
  ],
  register(platform: Platform, { tokens }: { tokens: TokensApi }): OAuthApi {
    const baseUrl = () => platform.baseUrl();
    const clients = new OAuthClients({
      sql: platform.db.sql,
      clock: platform.clock,
      allowPrivate: platform.config.oauth.allowPrivate,
    });
    const grants = new OAuthGrants({
      sql: platform.db.sql,
      clock: platform.clock,
      clients,
      tokens: tokens.tokens,
      baseUrl,
      roleScopes: LINK_SCOPES,
      // After a revoked family commits, every process re-reads the tokens of its open streams.
      onRevoked: () => platform.bus.signal(AUTH_CHANGED_SIGNAL),
    });
    platform.routes.add(...metadataRoutes(baseUrl), ...oauthRoutes(clients, grants));
    let sweeping: NodeJS.Timeout | null = null;
    platform.addService({
      name: 'oauth sweep',
      start() {
        sweeping = setInterval(() => {
          void grants.sweep().catch((error) => platform.log.warn({ err: error }, 'oauth sweep failed'));
        }, SWEEP_EVERY_MS);
        sweeping.unref();
      },
      stop() {
        if (sweeping) clearInterval(sweeping);
      },
    });
    return { oauthClients: clients, oauthGrants: grants };
  },
});
