/**
 * Who a write is attributed to: the actor string recorded on versions, instances and audit rows
 * (`token:<id>`, `mcp`, `user:<id>`, `cli`), the API token used (`api_token_id`, null when none) and the
 * request id that carried it. One type for every layer: services, the actor host's transition log
 * (`platform/actors/acting-as.ts` has r3's own roles) and the rows writes leave.
 */
import { canApprove, canManageCredentials, type Principal } from './principal.js';

export interface Attribution {
  /** `token:<id>`, `mcp`, `user:<id>` or `cli`. */
  actor: string;
  apiTokenId: string | null;
  /** The request that carried the call; absent or null for work r3 does by itself. */
  requestId?: string | null;
  /**
   * May change what needs review (the approve capability: workspace/review-policy.ts). Absent: no.
   */
  mayChangeReview?: boolean;
  /**
   * May manage sources' credentials, and so move a source's connection target (the connectors'
   * write guard). Absent: no.
   */
  mayManageCredentials?: boolean;
}

/** The attribution of a call made by `principal`. */
export function attributionOf(principal: Principal, requestId: string | null = null): Attribution {
  return {
    actor: principal.actor,
    apiTokenId: principal.tokenId,
    requestId,
    mayChangeReview: canApprove(principal),
    mayManageCredentials: canManageCredentials(principal),
  };
}

/** Operator actions from the command line. */
export const CLI_ATTRIBUTION: Attribution = {
  actor: 'cli',
  apiTokenId: null,
  requestId: null,
  mayChangeReview: true,
  mayManageCredentials: true,
};
