/**
 * Talking to r3's API from the browser: same origin, the session cookie, and the CSRF token on every
 * state-changing request. A 401 means the session has ended: the app goes to sign-in (nothing else
 * is attempted), keeping the page to come back to.
 */
import { navigate } from './stores/location-store.js';
import { csrfToken, sessionStore } from './stores/session-store.js';

/** An error answer of the API (`{error: {code, message, details}}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Calls `/api/v1<path>`; resolves with the JSON body, rejects with `ApiError`. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') {
    const csrf = csrfToken();
    if (csrf) headers['x-csrf-token'] = csrf;
  }
  const response = await fetch(`/api/v1${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = parsed?.error ?? {};
    if (response.status === 401 && !path.startsWith('/sessions')) sessionEnded();
    throw new ApiError(
      response.status,
      error.code ?? 'INTERNAL',
      error.message ?? response.statusText,
      error.details ?? {},
    );
  }
  return parsed as T;
}

/** Sends the browser to sign-in, remembering where it was. */
export function sessionEnded(): void {
  sessionStore.trigger.signedOut();
  const here = window.location.pathname + window.location.search;
  if (window.location.pathname !== '/login')
    navigate(`/login?next=${encodeURIComponent(here)}`, { replace: true });
}
