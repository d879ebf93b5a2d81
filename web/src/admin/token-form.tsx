/** Issuing a token: a name, scopes (those the person holds), an optional expiry and — owners — a user. */
import { useState } from 'preact/hooks';
import type { Session } from '../stores/session-store.js';
import { issueToken } from './tokens-data.js';

const SCOPES: Session['scopes'] = ['read:all', 'read:skills', 'write:resources', 'run:invoke', 'run:approve'];

export function TokenForm({ session }: { session: Session }) {
  const held = SCOPES.filter(
    (s) => session.scopes.includes(s) || (s === 'read:skills' && session.scopes.includes('read:all')),
  );
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(held.filter((s) => s === 'read:all' || s === 'run:invoke'));
  const [expires, setExpires] = useState('');
  const [userId, setUserId] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    const ok = await issueToken({
      name: name.trim(),
      scope: scopes,
      expiresAt: expires ? new Date(expires).toISOString() : null,
      ...(userId.trim() ? { userId: userId.trim() } : {}),
    });
    if (ok) setName('');
  };
  return (
    <form class="stack" onSubmit={(e) => void submit(e)} aria-labelledby="issue-title">
      <h2 id="issue-title">Create token</h2>
      <label for="token-name">Name</label>
      <input
        id="token-name"
        required
        maxLength={100}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <fieldset>
        <legend>Scopes</legend>
        {held.map((scope) => (
          <label key={scope} class="check">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) =>
                setScopes(e.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))
              }
            />{' '}
            {scope}
          </label>
        ))}
      </fieldset>
      <label for="token-expires">Expires (optional)</label>
      <input
        id="token-expires"
        type="datetime-local"
        value={expires}
        onInput={(e) => setExpires(e.currentTarget.value)}
      />
      {session.role === 'owner' && (
        <>
          <label for="token-user">For user (empty: you)</label>
          <input id="token-user" value={userId} onInput={(e) => setUserId(e.currentTarget.value)} />
        </>
      )}
      <button type="submit" class="primary" disabled={scopes.length === 0}>
        Create token
      </button>
    </form>
  );
}
