/** Listing, issuing and revoking tokens for the tokens page. */
import { api } from '../api.js';
import { type IssuedToken, type TokenRow, tokensStore } from '../stores/tokens-store.js';

export async function loadTokens(): Promise<void> {
  try {
    const { tokens } = await api<{ tokens: TokenRow[] }>('GET', '/tokens');
    tokensStore.trigger.loaded({ tokens });
  } catch (error) {
    tokensStore.trigger.failed({ error: (error as Error).message });
  }
}

export async function issueToken(body: {
  name: string;
  scope: string[];
  expiresAt: string | null;
  userId?: string;
}): Promise<boolean> {
  tokensStore.trigger.failed({ error: null });
  try {
    const issued = await api<IssuedToken>('POST', '/tokens', body);
    tokensStore.trigger.issued({ issued });
    await loadTokens();
    return true;
  } catch (error) {
    tokensStore.trigger.failed({ error: (error as Error).message });
    return false;
  }
}

export async function revokeToken(id: string): Promise<void> {
  tokensStore.trigger.failed({ error: null });
  try {
    await api('DELETE', `/tokens/${encodeURIComponent(id)}`);
  } catch (error) {
    tokensStore.trigger.failed({ error: (error as Error).message });
  }
  await loadTokens();
}
