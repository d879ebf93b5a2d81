/**
 * The webhooks' secret store, opened once the master secret is read (at start): registering the
 * feature reads no file, so one-shot commands never create a master key.
 */
import { createSecretStore, type SecretStore } from '../../platform/secrets/secret-store.js';

/** A secret store that works once `load` gave it the master secret. */
export interface LazySecretStore extends SecretStore {
  load(masterSecret: string): void;
}

export function createLazySecretStore(): LazySecretStore {
  let store: SecretStore | null = null;
  const ready = (): SecretStore => {
    if (!store) throw new Error('webhook secrets used before the master secret was read');
    return store;
  };
  return {
    load(masterSecret) {
      store ??= createSecretStore(masterSecret);
    },
    seal: (orgId, secret) => ready().seal(orgId, secret),
    open: (orgId, sealed) => ready().open(orgId, sealed),
  };
}
