/**
 * How a person reads on a page: an attribution (`token:<id>`, `user:<id>`, `mcp`, …) as its user and
 * token name, once `GET /api/v1/people` has said who it is. Pure: no DOM, no store.
 */
import type { Person } from '../wire.js';

export type { Person };

/** r3's own actors and the operator, in words. */
const SYSTEM: Readonly<Record<string, string>> = {
  mcp: 'an MCP client',
  cli: 'the operator (CLI)',
  worker: 'r3',
  timer: 'r3 (a timer)',
  system: 'r3',
};

/**
 * `ann (laptop)` for a token, `ann` for a session user, words for r3's own; the actor itself while
 * unresolved, and `an unknown token` for one the org does not know.
 */
export function personLabel(actor: string, person: Person | undefined): string {
  if (!person) return SYSTEM[actor] ?? actor;
  if (person.kind === 'system') return SYSTEM[actor] ?? actor;
  if (person.userId === null)
    return person.kind === 'token' ? 'an unknown token' : actor.slice('user:'.length);
  return person.kind === 'token' && person.tokenName
    ? `${person.userId} (${person.tokenName})`
    : person.userId;
}
