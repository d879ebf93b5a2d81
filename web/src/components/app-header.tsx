/** The bar on every signed-in page: where to go, who is signed in, and sign-out. */
import { api } from '../api.js';
import { navigate } from '../stores/location-store.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';

export function AppHeader() {
  const session = useSelector(sessionStore, (c) => c.session);
  const signOut = async () => {
    await api('DELETE', '/session').catch(() => undefined);
    sessionStore.trigger.signedOut();
    navigate('/login', { replace: true });
  };
  return (
    <header class="app-header">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <nav aria-label="Main">
        <a href="/review">Queue</a>
        {session?.role === 'owner' || session?.scopes.includes('read:all') ? (
          <>
            <a href="/admin/tokens">Tokens</a>
            <a href="/admin/webhooks">Webhooks</a>
          </>
        ) : null}
      </nav>
      {session && (
        <div class="who">
          <span>
            {session.userId} · {session.org} · {session.role}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      )}
    </header>
  );
}
