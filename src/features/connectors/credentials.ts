/**
 * Source credentials at rest: validated per connector kind, sealed with AES-256-GCM under a key
 * derived from the deployment's master secret (the same box as webhook signing secrets, another
 * derived key), and bound to their org and source: a sealed value copied to another source's row
 * does not open there. Credentials never go into workspace files, answers or logs.
 */
import { z } from 'zod';
import { deriveKey, openSecret, sealSecret } from '../../platform/secrets/secret-box.js';
import type { ConnectorKind } from './connector.js';
import { crmCredentialsSchema } from './crm/crm-connector.js';
import { mailCredentialsSchema } from './mail/mail-connector.js';
import { meetingsCredentialsSchema } from './meetings/meetings-connector.js';

/** The body of `PUT /sources/:slug/credentials` per connector kind. */
export const CREDENTIAL_SCHEMAS = {
  crm: crmCredentialsSchema,
  mail: mailCredentialsSchema,
  meetings: meetingsCredentialsSchema,
} as const satisfies Record<ConnectorKind, z.ZodType>;

/** Seals and opens the credentials of sources. */
export interface CredentialBox {
  seal(orgId: number, sourceSlug: string, credentials: Record<string, unknown>): string;
  /** The credentials, or throws when the sealed value was altered or belongs elsewhere. */
  open(orgId: number, sourceSlug: string, sealed: string): Record<string, unknown>;
}

/** A box keyed by `masterSecret` (see the platform's master key). */
export function createCredentialBox(masterSecret: string): CredentialBox {
  const key = deriveKey(masterSecret, 'source-credentials');
  const context = (orgId: number, slug: string) => `source:${orgId}:${slug}`;
  return {
    seal: (orgId, slug, credentials) => sealSecret(JSON.stringify(credentials), key, context(orgId, slug)),
    open: (orgId, slug, sealed) =>
      z.record(z.string(), z.unknown()).parse(JSON.parse(openSecret(sealed, key, context(orgId, slug)))),
  };
}
