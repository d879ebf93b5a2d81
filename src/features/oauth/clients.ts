/**
 * The OAuth clients r3 knows (docs/api.md#sign-in-with-oauth): those registered with `POST
 * /oauth/register` (RFC 7591) and those whose `client_id` is the https URL of a Client ID Metadata
 * Document (MCP authorization 2025-11-25), fetched through the SSRF-guarded web fetcher (no redirect,
 * at most 5 KiB, 5 s) and kept as long as its `Cache-Control` allows (at most a day; an hour when it
 * says nothing). Metadata is read with the MCP SDK's schema of it (`OAuthClientMetadataSchema`);
 * r3's own rules come on top: redirect URIs (https, http only on a loopback host, or an app's own
 * scheme; never a fragment), the grant and response types r3 serves, public clients only.
 *
 * Terminology: a *document client* is one whose id is its metadata document's URL; a *registered
 * client* got its id from r3.
 */
import { randomBytes } from 'node:crypto';
import {
  type OAuthClientInformationFull,
  OAuthClientInformationFullSchema,
  type OAuthClientMetadata,
  OAuthClientMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { parseScopes } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { checkTarget } from '../../platform/net/ssrf.js';
import type { Clock } from '../../platform/util/clock.js';
import { WebFetcher } from '../tools/index.js';
import { OAuthFailure } from './errors.js';

/** A client as the authorization endpoint needs it. */
export interface OAuthClient {
  clientId: string;
  kind: 'registered' | 'document';
  name: string;
  redirectUris: string[];
  /** The scopes it registered (space-separated), when it did. */
  scope: string | undefined;
  clientUri: string | undefined;
}

/** Most redirect URIs one client may register. */
const MAX_REDIRECT_URIS = 10;
/** Longest client name kept (the access tokens are named `oauth: <name>`). */
const MAX_NAME = 100;
/** A metadata document longer than this is refused (the draft's advice: 5 KB). */
const DOCUMENT_MAX_BYTES = 5 * 1024;
/** How long a document is kept when its `Cache-Control` says nothing, and at most. */
const DOCUMENT_DEFAULT_TTL_MS = 3_600_000;
const DOCUMENT_MAX_TTL_MS = 86_400_000;
const DOCUMENT_TIMEOUT_MS = 5_000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/**
 * Why `uri` cannot be a redirect URI, or null: an absolute URL without a fragment or credentials;
 * https, plain http only on a loopback host (a native app's listener, RFC 8252 §7.3), or an app's
 * own scheme (`cursor://…`, RFC 8252 §7.1) — never javascript:, data:, file: and the like.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return 'is longer than 2000 characters';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (uri.includes('#')) return 'must not have a fragment';
  if (REFUSED_SCHEMES.has(url.protocol)) return `may not use the ${url.protocol} scheme`;
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return 'must be https (plain http only for a loopback host: 127.0.0.1, [::1], localhost)';
  }
  return null;
}

/** Whether `clientId` names a metadata document (an http(s) URL) rather than a registered client. */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/**
 * `metadata` checked against r3's rules; throws `OAuthFailure` with RFC 7591's error codes
 * (`invalid_redirect_uri`, `invalid_client_metadata`).
 */
function checkMetadata(metadata: OAuthClientMetadata): void {
  const uris = metadata.redirect_uris;
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthFailure('invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs.`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new OAuthFailure('invalid_redirect_uri', `redirect_uri ${uri.slice(0, 200)} ${problem}.`);
  }
  const grants = metadata.grant_types ?? ['authorization_code'];
  const unknownGrant = grants.find((grant) => !GRANT_TYPES.has(grant));
  if (unknownGrant !== undefined) {
    throw new OAuthFailure(
      'invalid_client_metadata',
      `grant_types: r3 serves authorization_code and refresh_token, not ${unknownGrant}.`,
    );
  }
  if (metadata.response_types?.some((type) => type !== 'code')) {
    throw new OAuthFailure(
      'invalid_client_metadata',
      'response_types: r3 serves the code response type only.',
    );
  }
  if (metadata.scope !== undefined) {
    const { unknown } = parseScopes(metadata.scope.replaceAll(' ', ','));
    if (unknown.length > 0) {
      throw new OAuthFailure('invalid_client_metadata', `scope: unknown scopes ${unknown.join(' ')}.`);
    }
  }
}

/** The metadata in `body`, read with the SDK's schema; `invalid_client_metadata` naming the first issue. */
function parseMetadata(body: unknown): OAuthClientMetadata {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new OAuthFailure(
      'invalid_client_metadata',
      `${where}${issue?.message ?? 'invalid client metadata'}`,
    );
  }
  return parsed.data;
}

function nameOf(metadata: OAuthClientMetadata, fallback: string): string {
  const name = metadata.client_name?.trim();
  return (name ? name : fallback).slice(0, MAX_NAME);
}

/** How long a fetched document may be kept, from its `Cache-Control` (ms). */
export function documentTtl(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase();
  if (/\b(no-store|no-cache)\b/.test(directives)) return 0;
  const maxAge = /\bmax-age=(\d+)/.exec(directives)?.[1];
  if (maxAge === undefined) return DOCUMENT_DEFAULT_TTL_MS;
  return Math.min(Number(maxAge) * 1000, DOCUMENT_MAX_TTL_MS);
}

interface ClientRow {
  client_id: string;
  kind: 'registered' | 'document';
  client_name: string;
  redirect_uris: string[];
  metadata: OAuthClientMetadata;
  fresh_until: Date | null;
}

function clientOf(row: ClientRow): OAuthClient {
  return {
    clientId: row.client_id,
    kind: row.kind,
    name: row.client_name,
    redirectUris: row.redirect_uris,
    scope: row.metadata.scope,
    clientUri: row.metadata.client_uri,
  };
}

export class OAuthClients {
  private readonly fetcher: WebFetcher;

  constructor(
    private readonly deps: {
      sql: Db;
      clock: Clock;
      /** Metadata documents may be on loopback/private hosts and plain http (R3_OAUTH_ALLOW_PRIVATE; tests). */
      allowPrivate: boolean;
    },
  ) {
    this.fetcher = new WebFetcher({
      allowPrivate: deps.allowPrivate,
      timeoutMs: DOCUMENT_TIMEOUT_MS,
      maxRedirects: 0,
      // https only, unless private addresses are allowed (which lets plain http through too).
      guard: (url) => checkTarget(url, { allowPrivate: deps.allowPrivate }),
    });
  }

  /** Registers a client (RFC 7591); answers its information. Throws `OAuthFailure`. */
  async register(body: unknown): Promise<OAuthClientInformationFull> {
    const metadata = parseMetadata(body);
    checkMetadata(metadata);
    const now = new Date(this.deps.clock.now());
    const clientId = `r3c_${randomBytes(16).toString('base64url')}`;
    // r3's clients are public: whatever method was asked for, the answer says `none` (RFC 7591
    // §3.2.1 lets the server replace a requested value), and PKCE protects the code.
    const accepted: OAuthClientMetadata = {
      ...metadata,
      client_name: nameOf(metadata, 'OAuth client'),
      grant_types: metadata.grant_types ?? ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    await this.deps.sql.query(
      `insert into oauth_clients (client_id, kind, client_name, redirect_uris, metadata, created_at)
       values ($1, 'registered', $2, $3, $4, $5)`,
      [clientId, accepted.client_name, accepted.redirect_uris, JSON.stringify(accepted), now],
    );
    return OAuthClientInformationFullSchema.parse({
      ...accepted,
      client_id: clientId,
      client_id_issued_at: Math.floor(now.getTime() / 1000),
    });
  }

  /**
   * The client `clientId`: a registered one, or a document client (its document fetched when r3 has
   * none fresh). Throws `OAuthFailure` (`invalid_client`) when there is none or its document is
   * unusable.
   */
  async find(clientId: string): Promise<OAuthClient> {
    const row = await this.deps.sql.maybeOne<ClientRow>(
      'select client_id, kind, client_name, redirect_uris, metadata, fresh_until from oauth_clients where client_id = $1',
      [clientId],
    );
    if (row && (row.kind === 'registered' || (row.fresh_until?.getTime() ?? 0) > this.deps.clock.now())) {
      return clientOf(row);
    }
    if (!isDocumentClientId(clientId)) throw new OAuthFailure('invalid_client', 'Unknown client_id.');
    return this.fetchDocument(clientId);
  }

  /** Fetches, checks and stores the metadata document at `url` (its client id). */
  private async fetchDocument(url: string): Promise<OAuthClient> {
    const unusable = (why: string) =>
      new OAuthFailure('invalid_client', `The client metadata document at ${url.slice(0, 200)} ${why}.`);
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(url);
    } catch {
      throw unusable('is not a URL');
    }
    if (parsedUrl.pathname === '/' || parsedUrl.hash !== '' || url.includes('#')) {
      throw unusable('must have a path and no fragment');
    }
    let fetched: Awaited<ReturnType<WebFetcher['get']>>;
    try {
      fetched = await this.fetcher.get(url, {
        maxBytes: DOCUMENT_MAX_BYTES + 1,
        accept: 'application/json',
        field: 'client_id',
      });
    } catch (error) {
      throw unusable(`could not be fetched (${error instanceof Error ? error.message : String(error)})`);
    }
    if (fetched.status !== 200) throw unusable(`answered HTTP ${fetched.status}`);
    if (fetched.truncated || fetched.body.length > DOCUMENT_MAX_BYTES) {
      throw unusable(`is longer than ${DOCUMENT_MAX_BYTES} bytes`);
    }
    let body: unknown;
    try {
      body = JSON.parse(fetched.body.toString('utf8'));
    } catch {
      throw unusable('is not JSON');
    }
    if ((body as { client_id?: unknown } | null)?.client_id !== url) {
      throw unusable('does not name its own URL as its client_id');
    }
    let metadata: OAuthClientMetadata;
    try {
      metadata = parseMetadata(body);
      checkMetadata(metadata);
    } catch (error) {
      throw unusable(`is not acceptable: ${error instanceof Error ? error.message : String(error)}`);
    }
    const method = metadata.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none') {
      throw unusable(`asks for ${method}; r3's clients are public (token_endpoint_auth_method none)`);
    }
    const now = this.deps.clock.now();
    const row = await this.deps.sql.one<ClientRow>(
      `insert into oauth_clients (client_id, kind, client_name, redirect_uris, metadata, created_at, fetched_at, fresh_until)
       values ($1, 'document', $2, $3, $4, $5, $5, $6)
       on conflict (client_id) do update set client_name = excluded.client_name, redirect_uris = excluded.redirect_uris,
         metadata = excluded.metadata, fetched_at = excluded.fetched_at, fresh_until = excluded.fresh_until
       where oauth_clients.kind = 'document'
       returning client_id, kind, client_name, redirect_uris, metadata, fresh_until`,
      [
        url,
        nameOf(metadata, parsedUrl.host),
        metadata.redirect_uris,
        JSON.stringify(metadata),
        new Date(now),
        new Date(now + documentTtl(fetched.headers['cache-control'])),
      ],
    );
    return clientOf(row);
  }
}
