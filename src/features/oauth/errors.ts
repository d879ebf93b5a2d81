/**
 * OAuth's own errors (RFC 6749 §5.2, RFC 7591 §3.2.2): the token and registration endpoints answer
 * `{error, error_description}` with the protocol's codes, which clients act on (the MCP SDK's client
 * re-registers on `invalid_client`, starts over on `invalid_grant`), not r3's `{error: {code}}`.
 */
import { type JsonReply, json } from '../../platform/http/reply.js';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'access_denied'
  | 'unsupported_response_type';

/** A refusal in OAuth's terms. */
export class OAuthFailure extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthFailure';
  }
}

/**
 * Headers of the registration and token endpoints' answers: never cached (RFC 6749 §5.1), and
 * readable by a client running in a browser page of any origin (the MCP Inspector): no cookie is
 * involved, so no origin gains anything another could not.
 */
export const OAUTH_HEADERS = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'Access-Control-Allow-Origin': '*',
};

/** The JSON answer of `failure`: 401 for `invalid_client`, else 400. */
export function failureReply(failure: OAuthFailure): JsonReply {
  return json(
    failure.code === 'invalid_client' ? 401 : 400,
    { error: failure.code, error_description: failure.description },
    OAUTH_HEADERS,
  );
}
