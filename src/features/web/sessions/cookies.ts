/** The session cookie: its name, parsing `Cookie` headers, and the `Set-Cookie` values r3 sends. */

/** The cookie that carries `<sessionId>.<secret>`. */
export const SESSION_COOKIE = 'r3_session';

/** The value of cookie `name` in a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * `Set-Cookie` for a session: HttpOnly, SameSite=Lax, Path=/, Secure when BASE_URL is https
 * (docs/api.md#browser-sessions-the-web-ui). No Max-Age: the server ends idle sessions; the browser drops it
 * when it closes.
 */
export function sessionCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** `Set-Cookie` that removes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}
