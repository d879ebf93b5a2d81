/**
 * API tokens (/admin/tokens): owners see and revoke every token of the org; anyone else sees their
 * own. Issuing shows the plaintext once. Revoking asks first.
 */
import { useEffect, useState } from 'preact/hooks';
import { IssuedTokenPanel } from '../admin/issued-token.js';
import { TokenForm } from '../admin/token-form.js';
import { loadTokens, revokeToken } from '../admin/tokens-data.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { when } from '../format.js';
import { sessionStore } from '../stores/session-store.js';
import { type TokenRow, tokensStore } from '../stores/tokens-store.js';
import { useSelector } from '../stores/use-selector.js';

function stateOf(token: TokenRow): string {
  if (token.revokedAt) return 'revoked';
  if (token.expiresAt && Date.parse(token.expiresAt) <= Date.now()) return 'expired';
  return 'active';
}

export function AdminTokensPage() {
  const { tokens, loaded, error, issued } = useSelector(tokensStore, (c) => c);
  const session = useSelector(sessionStore, (c) => c.session);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  useEffect(() => {
    void loadTokens();
  }, []);
  if (!session) return null;
  const owner = session.role === 'owner';
  const mayRevoke = (token: TokenRow) => owner || token.id === session.tokenId;
  return (
    <main id="main">
      <h1>API tokens</h1>
      <p class="muted">{owner ? `Every token of ${session.org}.` : 'Your tokens.'}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {issued && (
        <IssuedTokenPanel issued={issued} onDone={() => tokensStore.trigger.issued({ issued: null })} />
      )}
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Token</th>
              <th scope="col">User</th>
              <th scope="col">Scope</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((token) => (
              <tr key={token.id} data-token={token.id}>
                <td>{token.name}</td>
                <td>
                  <code>{token.prefix}</code>
                </td>
                <td>
                  {token.userId} ({token.role})
                </td>
                <td>{token.scope}</td>
                <td>{when(token.createdAt)}</td>
                <td>{when(token.lastUsedAt)}</td>
                <td>{token.expiresAt ? when(token.expiresAt) : 'never'}</td>
                <td>{stateOf(token)}</td>
                <td>
                  {mayRevoke(token) && stateOf(token) === 'active' && (
                    <button type="button" class="danger" onClick={() => setRevoking(token)}>
                      Revoke<span class="visually-hidden"> {token.name}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {loaded && tokens.length === 0 && <p class="muted">No tokens yet.</p>}
      {session.via !== 'bearer' && <TokenForm session={session} />}
      {revoking && (
        <ConfirmDialog
          title="Revoke token"
          message={`Revoke "${revoking.name}" (${revoking.prefix})? Anything using it stops working at once.`}
          confirm="Revoke"
          onClose={() => setRevoking(null)}
          onConfirm={() => {
            const id = revoking.id;
            setRevoking(null);
            void revokeToken(id);
          }}
        />
      )}
    </main>
  );
}
