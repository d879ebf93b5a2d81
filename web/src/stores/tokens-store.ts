/** The tokens page: the tokens listed, and the plaintext of one just issued (shown once). */
import { createStore } from '@xstate/store';

/** A token as `GET /api/v1/tokens` lists it (never its secret). */
export interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  userId: string;
  role: string;
  scope: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** What `POST /api/v1/tokens` answers. */
export interface IssuedToken {
  id: string;
  token: string;
  userId: string;
  scope: string;
  expiresAt: string | null;
}

export const tokensStore = createStore({
  context: {
    tokens: [] as TokenRow[],
    loaded: false,
    error: null as string | null,
    issued: null as IssuedToken | null,
  },
  on: {
    loaded: (context, event: { tokens: TokenRow[] }) => ({ ...context, tokens: event.tokens, loaded: true }),
    failed: (context, event: { error: string | null }) => ({ ...context, error: event.error }),
    issued: (context, event: { issued: IssuedToken | null }) => ({ ...context, issued: event.issued }),
  },
});
