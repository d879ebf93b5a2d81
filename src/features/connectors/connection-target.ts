/**
 * Where a source's credentials go: its connection target — the kind and the settings that name the
 * upstream host (`baseUrl` for crm and meetings; IMAP and SMTP host, port and TLS for mail). Stored
 * credentials belong to the target they were set for: moving the target needs a role that may manage
 * credentials (owner or pm, `assertConnectionTargetsKept`, checked on every workspace write), and
 * clears them (connections.ts), so an access token is never sent to a host its setter did not choose.
 */
import type { Attribution } from '../../platform/auth/attribution.js';
import { CREDENTIAL_ROLES } from '../../platform/auth/principal.js';
import { forbidden } from '../../platform/errors.js';
import type { WorkspaceResource } from '../workspace/index.js';
import { type ConnectorKind, isConnectorKind } from './connector.js';
import { CONNECTION_SCHEMAS } from './registry.js';

/** The settings of each kind that say where its credentials are sent. */
const TARGET_FIELDS: Readonly<Record<ConnectorKind, readonly string[]>> = {
  crm: ['baseUrl'],
  meetings: ['baseUrl'],
  mail: ['host', 'port', 'secure', 'smtpHost', 'smtpPort', 'smtpSecure'],
};

/**
 * The connection target of a source of `kind` as comparable text (defaults applied, URLs
 * normalized), or null for a kind without connector (it has no credentials).
 */
export function connectionTarget(kind: string, connection: unknown): string | null {
  if (!isConnectorKind(kind)) return null;
  const parsed = CONNECTION_SCHEMAS[kind].safeParse(connection ?? {});
  const settings = (parsed.success ? parsed.data : (connection ?? {})) as Record<string, unknown>;
  const value = (field: string): unknown => {
    const raw = settings[field] ?? (field === 'smtpHost' ? settings.host : undefined) ?? null;
    if (field !== 'baseUrl' || typeof raw !== 'string') return raw;
    try {
      return new URL(raw).href;
    } catch {
      return raw;
    }
  };
  return JSON.stringify([kind, ...TARGET_FIELDS[kind].map(value)]);
}

/** 403 for a caller whose role may not manage credentials. */
export function credentialsForbidden(what: string, details: Record<string, unknown> = {}) {
  return forbidden(
    `${what} needs a role that manages credentials (${CREDENTIAL_ROLES.join(' or ')}, with write:resources).`,
    { ...details, roles: [...CREDENTIAL_ROLES] },
  );
}

/**
 * The workspace write guard: throws 403 when a write moves an existing source's connection target
 * and `by` may not manage credentials; the details name each source. Creating a source, deleting one,
 * and changing its other settings need only `write:resources`.
 */
export function assertConnectionTargetsKept(
  before: readonly WorkspaceResource[],
  after: readonly WorkspaceResource[],
  by: Attribution,
): void {
  if (by.mayManageCredentials === true) return;
  const targets = new Map<string, string | null>();
  for (const resource of before) {
    if (resource.kind === 'source') {
      targets.set(
        resource.manifest.slug,
        connectionTarget(resource.manifest.kind, resource.manifest.connection),
      );
    }
  }
  const moved: string[] = [];
  for (const resource of after) {
    if (resource.kind !== 'source' || !targets.has(resource.manifest.slug)) continue;
    const was = targets.get(resource.manifest.slug);
    if (connectionTarget(resource.manifest.kind, resource.manifest.connection) !== was) {
      moved.push(resource.manifest.slug);
    }
  }
  if (moved.length > 0) {
    throw credentialsForbidden(`Moving the connection target of a source (${moved.join(', ')})`, {
      sources: moved,
    });
  }
}
