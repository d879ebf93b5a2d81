/**
 * The OAuth consent page (/oauth/consent?request=<id>): an app (an MCP client) asks to act for the
 * signed-in person. It shows the app's name and where it came from, the scopes it asks for (and which
 * of them the person holds, the only ones granted), and Allow / Deny; either answer sends the browser
 * back to the app (with a code, or `error=access_denied`). Signing in first, when needed, is the app's
 * usual way: a 401 sends the browser to /login, which comes back here.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { locationStore } from '../stores/location-store.js';
import { useSelector } from '../stores/use-selector.js';
import type { ConsentDecision, ConsentRequest } from '../wire.js';

/** What each scope lets the app do, in a person's words. */
const SCOPE_TEXT: Record<string, string> = {
  'read:all': 'Read everything in your organization: skills, agents, runs, reviews, records.',
  'read:skills': 'Read your skills and agents.',
  'write:resources': 'Create and change skills, agents, workflows and sources.',
  'run:invoke': 'Run skills, workflows and missions.',
  'run:approve': 'Approve or reject work waiting for review.',
};

function hostOf(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

export function OAuthConsentPage() {
  const search = useSelector(locationStore, (c) => c.search);
  const id = new URLSearchParams(search).get('request') ?? '';
  const [request, setRequest] = useState<ConsentRequest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!id) {
      setError('This page needs an authorization request; start signing in from the app again.');
      return;
    }
    api<{ request: ConsentRequest }>('GET', `/oauth/requests/${encodeURIComponent(id)}`)
      .then(({ request }) => setRequest(request))
      .catch((e: unknown) => setError(e instanceof ApiError ? e.message : 'Could not load the request.'));
  }, [id]);

  const decide = (allow: boolean) => {
    setBusy(true);
    setError(null);
    api<ConsentDecision>('POST', `/oauth/requests/${encodeURIComponent(id)}/decision`, { allow })
      .then(({ redirectTo }) => window.location.assign(redirectTo))
      .catch((e: unknown) => {
        setBusy(false);
        setError(e instanceof ApiError ? e.message : 'Could not send your answer.');
      });
  };

  return (
    <main id="main" class="consent stack">
      <h1>Authorize an app</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {request && (
        <>
          <p>
            <strong data-testid="client-name">{request.client.name}</strong> wants to use r3 as you.
          </p>
          <p class="muted">
            {request.client.kind === 'document' ? 'Its identity is published at ' : 'It was registered for '}
            <code>
              {hostOf(request.client.kind === 'document' ? request.client.id : request.redirectUri)}
            </code>
            ; once you answer, your browser goes back to <code>{hostOf(request.redirectUri)}</code>.
          </p>
          <h2>It asks to</h2>
          <ul class="scopes" aria-label="Scopes asked for">
            {request.scopes.map((scope) => (
              <li key={scope} data-scope={scope}>
                <code>{scope}</code>: {SCOPE_TEXT[scope] ?? scope}
                {!request.granted.includes(scope) && (
                  <span class="muted"> (you do not have it: not granted)</span>
                )}
              </li>
            ))}
          </ul>
          {request.status === 'pending' ? (
            <div class="row">
              <button type="button" class="primary" disabled={busy} onClick={() => decide(true)}>
                Allow
              </button>
              <button type="button" disabled={busy} onClick={() => decide(false)}>
                Deny
              </button>
            </div>
          ) : (
            <p class="muted" role="status">
              {request.status === 'expired'
                ? 'This request has expired; start signing in from the app again.'
                : `This request was ${request.status === 'allowed' ? 'allowed' : 'denied'} already.`}
            </p>
          )}
        </>
      )}
    </main>
  );
}
