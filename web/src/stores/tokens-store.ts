/** The tokens page: the tokens listed, and the plaintext of one just issued (shown once). */
import { createStore } from '@xstate/store';
import type { IssuedToken, TokenRow } from '../wire.js';

export type { IssuedToken, TokenRow };

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
