/**
 * OAuth discovery (docs/api.md#sign-in-with-oauth): the MCP endpoint's protected-resource metadata
 * (RFC 9728) at both well-known paths, r3's authorization-server metadata (RFC 8414), each read
 * through the real socket and checked with the MCP SDK's schemas; a 401 from /api/mcp names the
 * metadata in its Bearer challenge, and the SDK client's discovery finds r3 from it.
 */
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/principal.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('OAuth discovery', () => {
  it('serves the protected-resource metadata at the root and the path-aware well-known path', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/mcp',
    ]) {
      const answer = await t.request('GET', path);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('application/json');
      const doc = OAuthProtectedResourceMetadataSchema.parse(answer.body);
      expect(doc.resource).toBe(`${t.url}/api/mcp`);
      expect(doc.authorization_servers).toEqual([t.url]);
      expect(doc.scopes_supported).toEqual([...SCOPES]);
      // The documentation it names opens without a token (the API's browsable docs).
      expect(doc.resource_documentation).toBe(`${t.url}/docs`);
      expect((await t.request('GET', '/docs')).status).toBe(200);
    }
  });

  it('serves the authorization-server metadata', async () => {
    const answer = await t.request('GET', '/.well-known/oauth-authorization-server');
    expect(answer.status).toBe(200);
    const doc = OAuthMetadataSchema.parse(answer.body);
    expect(doc).toMatchObject({
      issuer: t.url,
      authorization_endpoint: `${t.url}/oauth/authorize`,
      token_endpoint: `${t.url}/oauth/token`,
      registration_endpoint: `${t.url}/oauth/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      scopes_supported: [...SCOPES],
    });
  });

  it("answers a 401 from /api/mcp with a Bearer challenge naming the metadata, which the SDK's discovery follows", async () => {
    for (const token of [undefined, 'svc_test_aaaaaaaaaaaaaaaa_nope']) {
      const response = await fetch(`${t.url}/api/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer realm="r3", resource_metadata="${t.url}/.well-known/oauth-protected-resource/api/mcp"`,
      );
      const { resourceMetadataUrl } = extractWWWAuthenticateParams(response);
      expect(resourceMetadataUrl?.href).toBe(`${t.url}/.well-known/oauth-protected-resource/api/mcp`);
    }
    const resource = await discoverOAuthProtectedResourceMetadata(new URL(`${t.url}/api/mcp`));
    expect(resource.authorization_servers).toEqual([t.url]);
    const server = await discoverAuthorizationServerMetadata(t.url);
    expect(server?.token_endpoint).toBe(`${t.url}/oauth/token`);
  });

  it('keeps the default challenge on the other API routes', async () => {
    const answer = await t.request('GET', '/api/v1/tokens');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="r3"');
  });

  it('lets a browser-based client of any origin read the documents and call the public endpoints', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/mcp',
      '/.well-known/oauth-authorization-server',
      '/oauth/register',
      '/oauth/token',
    ]) {
      const preflight = await fetch(`${t.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:6274',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, mcp-protocol-version',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('MCP-Protocol-Version');
    }
    const document = await t.request('GET', '/.well-known/oauth-authorization-server');
    expect(document.headers.get('access-control-allow-origin')).toBe('*');
    const token = await t.request('POST', '/oauth/token', {
      rawBody: 'grant_type=authorization_code',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:6274' },
    });
    expect(token.status).toBe(400);
    expect(token.headers.get('access-control-allow-origin')).toBe('*');
  });
});
