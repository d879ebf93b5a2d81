/**
 * Who a transition is attributed to: `token:<id>` for API calls (with the token id, which lands in
 * `api_token_id` of the transition log and audit rows), `mcp` for stdio MCP, or one of r3's own
 * roles for work it does by itself (a worker reporting a step, a timer firing).
 */
import type { Attribution } from '../auth/attribution.js';
import type { Principal } from '../auth/principal.js';

/** The attribution of a call made with `principal`. */
export function actingAs(principal: Pick<Principal, 'actor' | 'tokenId'>): Attribution {
  return { actor: principal.actor, apiTokenId: principal.tokenId };
}

/** A job worker (reporting a step's outcome). */
export const WORKER: Attribution = { actor: 'worker', apiTokenId: null };
/** The durable-timer scheduler. */
export const TIMER: Attribution = { actor: 'timer', apiTokenId: null };
/** Anything else r3 does on its own. */
export const SYSTEM: Attribution = { actor: 'system', apiTokenId: null };
