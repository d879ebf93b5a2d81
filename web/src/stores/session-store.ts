/** Who is signed in: loaded once at start from `GET /api/v1/session`, cleared at sign-out or expiry. */
import { createStore } from '@xstate/store';
import type { Session } from '../wire.js';

export type { Session };

export type SessionStatus = 'loading' | 'signed-in' | 'signed-out';

export const sessionStore = createStore({
  context: { status: 'loading' as SessionStatus, session: null as Session | null },
  on: {
    signedIn: (_, event: { session: Session }) => ({ status: 'signed-in' as const, session: event.session }),
    signedOut: () => ({ status: 'signed-out' as const, session: null }),
  },
});

/** The CSRF token state-changing requests send (null when signed out). */
export function csrfToken(): string | null {
  return sessionStore.getSnapshot().context.session?.csrfToken ?? null;
}
