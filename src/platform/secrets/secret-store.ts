/**
 * Signing secrets of webhooks at rest: sealed with the key derived from the master secret, bound to
 * the webhook's org (a sealed value copied into another tenant's row does not open there).
 */

import { setBounded } from '../util/bounded-map.js';
import { deriveKey, openSecret, sealSecret } from './secret-box.js';

/** Seals and opens webhook signing secrets. */
export interface SecretStore {
  seal(orgId: number, secret: string): string;
  open(orgId: number, sealed: string): string;
}

/** Opened secrets kept in memory (every attempt signs; decrypting each time is wasted work). */
const OPEN_CACHE_SIZE = 1_000;

/** A store keyed by `masterSecret` (see master-key.ts). */
export function createSecretStore(masterSecret: string): SecretStore {
  const key = deriveKey(masterSecret, 'webhook-secrets');
  const context = (orgId: number) => `webhook:${orgId}`;
  const opened = new Map<string, string>();
  return {
    seal: (orgId, secret) => sealSecret(secret, key, context(orgId)),
    open(orgId, sealed) {
      // The sealed text has a random IV: equal text means the same secret of the same webhook.
      const cacheKey = `${orgId}:${sealed}`;
      const hit = opened.get(cacheKey);
      if (hit !== undefined) return hit;
      const plain = openSecret(sealed, key, context(orgId));
      setBounded(opened, cacheKey, plain, OPEN_CACHE_SIZE);
      return plain;
    },
  };
}
