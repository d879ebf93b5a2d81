/**
 * Who is calling. A token belongs to one user of one org; its principal is that user's role plus
 * the token's scopes (docs/api.md "Scopes"). MCP over stdio acts as the org's `mcp` principal.
 *
 * Terminology: a *scope* is what a token may touch; a *role* is what its user may do; a
 * *capability* combines both (the approve capability = an approving role AND `run:approve`).
 */
export const SCOPES = ['read:all', 'read:skills', 'write:resources', 'run:invoke', 'run:approve'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['owner', 'pm', 'client_reviewer', 'specialist'] as const;
export type Role = (typeof ROLES)[number];

export const DEFAULT_SCOPES: readonly Scope[] = ['read:all', 'run:invoke'];

/** Roles whose users may decide reviews (given `run:approve` on the token). */
const APPROVING_ROLES: ReadonlySet<Role> = new Set(['owner', 'pm', 'client_reviewer']);

export interface Principal {
  orgId: number;
  orgSlug: string;
  /** The user id string (`--user`), or `mcp` for the stdio transport. */
  userId: string;
  role: Role;
  scopes: ReadonlySet<Scope>;
  /** The `<tokenId>` of the token used; null for stdio MCP. */
  tokenId: string | null;
  /** How the principal's actions are attributed: `token:<id>` or `mcp`. */
  actor: string;
  /** Per-org rate limit override: null = deployment default, 0 = disabled. */
  rateLimit: { perMinute: number | null; burst: number | null };
  /** The browser session the request came with (auth/sessions.ts); absent for Bearer and stdio callers. */
  sessionId?: string;
}

/**
 * Roles whose users may manage a source's credentials — set them, and move the connection target
 * they are sent to (given `write:resources` on the token).
 */
export const CREDENTIAL_ROLES: readonly Role[] = ['owner', 'pm'];

/** May set a source's credentials and change where they go (docs/api.md "Sources and connectors"). */
export function canManageCredentials(principal: Principal): boolean {
  return CREDENTIAL_ROLES.includes(principal.role) && principal.scopes.has('write:resources');
}

/** The approve capability of docs/api.md "Scopes". */
export function canApprove(principal: Principal): boolean {
  return APPROVING_ROLES.has(principal.role) && principal.scopes.has('run:approve');
}

/** Parses a comma-separated scope list; returns the unknown entries separately. */
export function parseScopes(text: string): { scopes: Scope[]; unknown: string[] } {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    if ((SCOPES as readonly string[]).includes(entry)) {
      if (!scopes.includes(entry as Scope)) scopes.push(entry as Scope);
    } else unknown.push(entry);
  }
  return { scopes, unknown };
}
