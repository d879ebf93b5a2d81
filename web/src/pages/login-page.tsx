/**
 * Sign-in: a one-time link (`r3 login-link`) lands here with its code in the fragment and is spent
 * at once; otherwise a person pastes an API token. Either way the server sets the session cookie and
 * the browser goes on to the page it was asked for: the link's own `next`, else the page that sent
 * the browser here — remembered for 10 minutes (a link's life), because a person sent here from a
 * deep link often opens a new sign-in link in another tab.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { navigate } from '../stores/location-store.js';
import { type Session, sessionStore } from '../stores/session-store.js';

const REMEMBERED = 'r3.next';
const REMEMBER_MS = 10 * 60_000;

/** `path` when it is a page of this site (never another origin), else null. */
function sitePath(path: string | null | undefined): string | null {
  return path && /^\/(?![/\\])/.test(path) ? path : null;
}

/** The page this sign-in page was sent from (`?next=`), remembered for a sign-in in another tab. */
function rememberNext(): void {
  const next = sitePath(new URLSearchParams(window.location.search).get('next'));
  if (!next) return;
  try {
    window.localStorage.setItem(REMEMBERED, JSON.stringify({ next, at: Date.now() }));
  } catch {
    // No storage: this tab's own `next` still works.
  }
}

/** Takes the remembered page (once), if it is recent. */
function takeRemembered(): string | null {
  try {
    const stored = window.localStorage.getItem(REMEMBERED);
    window.localStorage.removeItem(REMEMBERED);
    const { next, at } = JSON.parse(stored ?? 'null') ?? {};
    return typeof at === 'number' && Date.now() - at < REMEMBER_MS ? sitePath(next) : null;
  } catch {
    return null;
  }
}

/** Where to go after signing in: this page's `next`, else the remembered page, else the queue. */
function nextPath(): string {
  const remembered = takeRemembered();
  return sitePath(new URLSearchParams(window.location.search).get('next')) ?? remembered ?? '/review';
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
    if (!link) {
      rememberNext();
      return;
    }
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
