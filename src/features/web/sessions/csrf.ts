/**
 * Cross-site request forgery, refused twice over (docs/api.md#browser-sessions-the-web-ui): a state-changing
 * request from a session must carry the session's CSRF token in `X-CSRF-Token` and an `Origin` of this
 * deployment (BASE_URL's origin, or the origin the request itself was addressed to).
 */
import { timingSafeEqual } from 'node:crypto';
import { forbidden } from '../../../platform/errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `method` changes nothing (no CSRF check). */
export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

/** Throws 403 unless `Origin` names this deployment. */
export function checkOrigin(headers: Readonly<Record<string, string>>, baseUrl: string): void {
  const origin = headers.origin;
  if (!origin) {
    throw forbidden('A state-changing request from a browser session needs an Origin header.', {
      reason: 'csrf_origin',
    });
  }
  const own = new URL(baseUrl).origin;
  const host = headers.host;
  const addressed = host ? [`http://${host}`, `https://${host}`] : [];
  if (origin !== own && !addressed.includes(origin)) {
    throw forbidden('Cross-site request refused: the Origin is not this deployment.', {
      reason: 'csrf_origin',
      origin,
    });
  }
}

/** Throws 403 unless `X-CSRF-Token` is the session's token. */
export function checkCsrfToken(headers: Readonly<Record<string, string>>, expected: string): void {
  const given = Buffer.from(headers['x-csrf-token'] ?? '');
  const want = Buffer.from(expected);
  if (given.length !== want.length || !timingSafeEqual(given, want)) {
    throw forbidden('This request needs the session’s CSRF token in the X-CSRF-Token header.', {
      reason: 'csrf_token',
    });
  }
}
