/**
 * The OAuth discovery documents (docs/api.md#sign-in-with-oauth): the MCP endpoint's protected-resource
 * metadata (RFC 9728) at `/.well-known/oauth-protected-resource` and at the path-aware
 * `/.well-known/oauth-protected-resource/api/mcp`, and r3's own authorization-server metadata (RFC 8414)
 * at `/.well-known/oauth-authorization-server`. Both are built from BASE_URL and checked against the
 * MCP SDK's schemas of those documents, the ones its client reads them with.
 */
import {
  type OAuthMetadata,
  OAuthMetadataSchema,
  type OAuthProtectedResourceMetadata,
  OAuthProtectedResourceMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { access } from '../../platform/auth/guard.js';
import { SCOPES } from '../../platform/auth/principal.js';
import { raw } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { MCP_PATH, MCP_RESOURCE_METADATA_PATH } from '../../platform/mcp/http-routes.js';

/** The paths of r3's authorization-server endpoints. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
} as const;

/** The discovery documents' paths: the protected-resource metadata (twice), the server's. */
export const DISCOVERY_PATHS = {
  resource: '/.well-known/oauth-protected-resource',
  mcpResource: MCP_RESOURCE_METADATA_PATH,
  server: '/.well-known/oauth-authorization-server',
} as const;

/** The MCP endpoint's URL: the only `resource` r3 issues tokens for. */
export function mcpResource(baseUrl: string): string {
  return `${baseUrl}${MCP_PATH}`;
}

/** The protected-resource metadata of the MCP endpoint. */
export function protectedResourceMetadata(baseUrl: string): OAuthProtectedResourceMetadata {
  return OAuthProtectedResourceMetadataSchema.parse({
    resource: mcpResource(baseUrl),
    authorization_servers: [baseUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'r3',
    resource_documentation: `${baseUrl}/docs`,
  });
}

/** r3's authorization-server metadata. */
export function authorizationServerMetadata(baseUrl: string): OAuthMetadata {
  return OAuthMetadataSchema.parse({
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${baseUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${baseUrl}${OAUTH_PATHS.register}`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    client_id_metadata_document_supported: true,
    // Every redirect back carries `iss` (RFC 9207), against mix-up attacks.
    authorization_response_iss_parameter_supported: true,
  });
}

/** Cached for an hour by clients and proxies: they change only with BASE_URL. */
const DOCUMENT_HEADERS = { 'Cache-Control': 'public, max-age=3600', 'Access-Control-Allow-Origin': '*' };

/** The metadata routes; `baseUrl()` is BASE_URL, read at call time. */
export function metadataRoutes(baseUrl: () => string): RouteDef[] {
  const resource = () =>
    raw(200, JSON.stringify(protectedResourceMetadata(baseUrl())), 'application/json', DOCUMENT_HEADERS);
  const describe = {
    summary:
      "The MCP endpoint's OAuth protected-resource metadata (RFC 9728): its resource URL, r3 as its authorization server, the scopes.",
    responses: {
      200: { description: 'The metadata document.', schema: OAuthProtectedResourceMetadataSchema },
    },
  };
  return [
    defineRoute({
      method: 'GET',
      path: DISCOVERY_PATHS.resource,
      access: access.public,
      ...describe,
      handler: resource,
    }),
    defineRoute({
      method: 'GET',
      path: DISCOVERY_PATHS.mcpResource,
      access: access.public,
      ...describe,
      handler: resource,
    }),
    defineRoute({
      method: 'GET',
      path: DISCOVERY_PATHS.server,
      access: access.public,
      summary:
        "r3's OAuth authorization-server metadata (RFC 8414): its endpoints, the authorization-code grant with PKCE S256, refresh tokens, public clients, Client ID Metadata Documents.",
      responses: { 200: { description: 'The metadata document.', schema: OAuthMetadataSchema } },
      handler: () =>
        raw(
          200,
          JSON.stringify(authorizationServerMetadata(baseUrl())),
          'application/json',
          DOCUMENT_HEADERS,
        ),
    }),
  ];
}
