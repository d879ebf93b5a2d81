/**
 * Who a transition is attributed to: `token:<id>` for API calls (with the token id, which lands in
 * `api_token_id` of the transition log and audit rows), `mcp` for stdio MCP, or one of r3's own
 * roles for work it does by itself (a worker reporting a step, a timer firing).
 */
import type { Principal } from '../auth/principal.js';

/** The attribution of one transition. */
export interface ActingAs {
  /** `token:<id>`, `mcp`, `worker`, `timer`, `system`. */
  actor: string;
  apiTokenId: string | null;
}

/** The attribution of a call made with `principal`. */
export function actingAs(principal: Pick<Principal, 'actor' | 'tokenId'>): ActingAs {
  return { actor: principal.actor, apiTokenId: principal.tokenId };
}

/** A job worker (reporting a step's outcome). */
export const WORKER: ActingAs = { actor: 'worker', apiTokenId: null };
/** The durable-timer scheduler. */
export const TIMER: ActingAs = { actor: 'timer', apiTokenId: null };
/** Anything else r3 does on its own. */
export const SYSTEM: ActingAs = { actor: 'system', apiTokenId: null };
