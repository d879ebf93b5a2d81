/**
 * The one authorization guard. Every route declares its `Access`; the server calls `authorize`
 * before the handler (and before any body is dispatched), so no handler checks scopes itself.
 */
import { forbidden } from '../errors.js';
import { canApprove, type Principal, type Scope } from './principal.js';

export type Access =
  /** No token needed (health probes). */
  | { kind: 'public' }
  /** Any valid token; object-level rules (e.g. revoking one's own token) live in the service. */
  | { kind: 'authenticated' }
  /** A token holding at least one of `anyOf`. */
  | { kind: 'scope'; anyOf: readonly Scope[] }
  /** The approve capability (approving role + `run:approve`). */
  | { kind: 'approve' };

export const access = {
  public: { kind: 'public' } as Access,
  authenticated: { kind: 'authenticated' } as Access,
  /** GET on anything in the tenant. */
  read: { kind: 'scope', anyOf: ['read:all'] } as Access,
  /** GET on `/agents*` and `/skills*`, which `read:skills` also opens. */
  readSkills: { kind: 'scope', anyOf: ['read:all', 'read:skills'] } as Access,
  write: { kind: 'scope', anyOf: ['write:resources'] } as Access,
  invoke: { kind: 'scope', anyOf: ['run:invoke'] } as Access,
  approve: { kind: 'approve' } as Access,
} as const;

/** Throws 403 FORBIDDEN when `principal` may not use a route declared with `rule`. */
export function authorize(principal: Principal, rule: Access): void {
  switch (rule.kind) {
    case 'public':
    case 'authenticated':
      return;
    case 'scope':
      if (rule.anyOf.some((s) => principal.scopes.has(s))) return;
      throw forbidden(`This token lacks the scope this call needs (${rule.anyOf.join(' or ')}).`, {
        requiredScope: rule.anyOf,
      });
    case 'approve':
      if (canApprove(principal)) return;
      throw forbidden(
        'This call needs the approve capability: a user whose role is owner, pm or client_reviewer and a token with the run:approve scope.',
        { requiredScope: ['run:approve'], role: principal.role },
      );
  }
}

/** Whether `principal` may use what is declared with `rule` (`authorize` without the error). */
export function permits(principal: Principal, rule: Access): boolean {
  try {
    authorize(principal, rule);
    return true;
  } catch {
    return false;
  }
}
