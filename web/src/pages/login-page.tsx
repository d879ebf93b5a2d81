/**
 * Sign-in: a one-time link (`r3 login-link`) lands here with its code in the fragment and is spent
 * at once; otherwise a person pastes an API token. Either way the server sets the session cookie.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { navigate } from '../stores/location-store.js';
import { type Session, sessionStore } from '../stores/session-store.js';

/** Where to go after signing in: `next` when it is a path of this site, else the queue. */
function nextPath(): string {
  const next = new URLSearchParams(window.location.search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/review';
}

async function signIn(body: { link: string } | { token: string }): Promise<void> {
  const { session } = await api<{ session: Session }>('POST', '/sessions', body);
  sessionStore.trigger.signedIn({ session });
  navigate(nextPath(), { replace: true });
}

export function LoginPage() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [token, setToken] = useState('');

  useEffect(() => {
    const link = new URLSearchParams(window.location.hash.slice(1)).get('link');
    if (!link) return;
    // The code leaves the address bar at once (history, screenshots, a shared screen).
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    setBusy(true);
    signIn({ link })
      .catch((e: unknown) => setError(e instanceof ApiError ? e.message : 'Sign-in failed.'))
      .finally(() => setBusy(false));
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    signIn({ token })
      .catch((e: unknown) => setError(e instanceof ApiError ? e.message : 'Sign-in failed.'))
      .finally(() => setBusy(false));
  };

  return (
    <main class="login" id="main">
      <h1>Sign in to r3</h1>
      <p>
        Open the link <code>r3 login-link</code> printed for you, or paste an API token.
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form onSubmit={submit} class="stack">
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
