/**
 * Sign in with OAuth (docs/api.md#sign-in-with-oauth, decisions §18): the MCP endpoint as an OAuth 2.1
 * protected resource, and r3 as its own authorization server — the discovery documents (RFC 9728,
 * RFC 8414), client registration (RFC 7591, and Client ID Metadata Documents), the authorization-code
 * grant with PKCE and a consent page of the web UI, and a token endpoint whose access tokens are
 * ordinary r3 API tokens of the person who consented.
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { metadataRoutes } from './metadata.js';

export const oauthFeature = defineFeature({
  name: 'oauth',
  register(platform: Platform): Record<never, never> {
    platform.routes.add(...metadataRoutes(() => platform.baseUrl()));
    return {};
  },
});
