/**
 * Sign in with OAuth end to end (docs/api.md#sign-in-with-oauth): the official MCP SDK client's OAuth
 * support (`auth()` with an `OAuthClientProvider`, and the streamable HTTP transport's own 401
 * handling) against r3 through the real socket, with the consent page driven in Chromium — sign-in
 * first (the browser is not signed in), the client's name and scopes shown, Allow — then tools/call
 * with the access token; a refresh by `auth()`; Deny sends the client `error=access_denied` with its
 * state.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, watchPageErrors } from '../../helpers/browser.js';
import { ok } from '../../helpers/mcp.js';

/** An MCP client's OAuth state, kept in memory; the authorization URL is handed to the test's browser. */
class TestProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'sdk-state-1';
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The client's redirect target: records each callback's query. */
function callbackServer(): Promise<{ url: string; calls: URLSearchParams[]; close(): void }> {
  const calls: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    // Chromium asks for /favicon.ico too.
    if (url.pathname === '/callback') calls.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('Signed in; you can close this window.');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
        calls,
        close: () => server.close(),
      }),
    ),
  );
}

describeInBrowser('sign in with OAuth', (suite) => {
  let t: TestApp;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    t = await suite.start();
    page = await (await suite.b.context()).newPage();
    errors = watchPageErrors(page);
  });

  it('the SDK client signs a person in through the consent page, calls tools, refreshes; Deny is access_denied', async () => {
    const callback = await callbackServer();
    try {
      const provider = new TestProvider(callback.url);
      const mcpUrl = new URL(`${t.url}/api/mcp`);

      // Without a token the transport meets the 401, discovers r3 from its challenge, registers the
      // client and hands over the authorization URL.
      const first = new Client({ name: 'oauth-test', version: '1.0.0' });
      await expect(
        first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })),
      ).rejects.toThrow(UnauthorizedError);
      const authorizationUrl = provider.authorizationUrl as URL;
      expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${t.url}/oauth/authorize`);
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(`${t.url}/api/mcp`);
      expect(provider.info?.client_id).toMatch(/^r3c_/);

      // The browser is not signed in: the consent page sends it to sign-in, which comes back.
      await page.goto(authorizationUrl.href);
      await page.waitForURL(/\/login\?next=/);
      // The sign-in page remembers where it was sent from once it has rendered (a slow machine may
      // not have run its script when the URL already matches).
      await page.getByRole('heading', { name: 'Sign in to r3' }).waitFor();
      await expect.poll(() => page.evaluate("localStorage.getItem('r3.next')")).not.toBeNull();
      const link = await t.app.sessions.createLoginLink({ org: 'acme', userId: 'ola', role: 'owner' });
      await page.goto(link.url);
      await page.waitForURL(/\/oauth\/consent\?request=/);
      await expect.poll(() => page.getByTestId('client-name').textContent()).toBe('SDK test client');
      const scopes = await page
        .locator('[data-scope]')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-scope')));
      expect(scopes).toEqual(['read:all', 'read:skills', 'write:resources', 'run:invoke', 'run:approve']);
      expect(await checkAccessibility(page)).toEqual([]);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${callback.url}?**`);
      const back = callback.calls.at(-1) as URLSearchParams;
      expect(back.get('state')).toBe('sdk-state-1');
      const code = back.get('code') as string;
      expect(code).toEqual(expect.any(String));

      expect(await auth(provider, { serverUrl: mcpUrl, authorizationCode: code })).toBe('AUTHORIZED');
      const tokens = provider.saved as OAuthTokens;
      expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      expect(tokens.scope).toBe('read:all read:skills write:resources run:invoke run:approve');

      const client = new Client({ name: 'oauth-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
      const listed = await ok(client, 'workspace_list');
      expect(listed).toBeDefined();
      await client.close();

      // The access token is an API token of the person, named for the client.
      const me = await fetch(`${t.url}/api/v1/session`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      const session = ((await me.json()) as { session: { userId: string; tokenId: string } }).session;
      expect(session.userId).toBe('ola');
      const listedTokens = await t.app.tokens.list('acme');
      expect(listedTokens?.find((token) => token.id === session.tokenId)?.name).toBe(
        'oauth: SDK test client',
      );

      // auth() again with a refresh token rotates it.
      expect(await auth(provider, { serverUrl: mcpUrl })).toBe('AUTHORIZED');
      expect(provider.saved?.refresh_token).not.toBe(tokens.refresh_token);
      expect(provider.saved?.access_token).not.toBe(tokens.access_token);

      // Signed in now, the browser goes straight to the consent page; Deny tells the client so.
      provider.saved = undefined;
      expect(await auth(provider, { serverUrl: mcpUrl })).toBe('REDIRECT');
      await page.goto((provider.authorizationUrl as URL).href);
      await page.waitForURL(/\/oauth\/consent\?request=/);
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.waitForURL(`${callback.url}?**`);
      const denied = callback.calls.at(-1) as URLSearchParams;
      expect(denied.get('error')).toBe('access_denied');
      expect(denied.get('state')).toBe('sdk-state-1');
      expect(denied.get('code')).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      callback.close();
    }
  });
});
