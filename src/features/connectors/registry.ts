/**
 * Builds the connector of a source from its kind, its manifest's `connection` settings and its
 * opened credentials. Settings are validated here, at use, so a manifest written before a setting
 * existed still loads; a bad setting is a `REJECTED` error naming the field.
 */
import type { z } from 'zod';
import { type Connector, type ConnectorKind, isConnectorKind } from './connector.js';
import { CREDENTIAL_SCHEMAS } from './credentials.js';
import { createCrmConnector, crmConnectionSchema } from './crm/crm-connector.js';
import { ConnectorError } from './errors.js';
import type { RetryPolicy } from './http-client.js';
import { createMailConnector, mailConnectionSchema } from './mail/mail-connector.js';
import { createMeetingsConnector, meetingsConnectionSchema } from './meetings/meetings-connector.js';

/** What every connector of a process shares. */
export interface ConnectorEnvironment {
  /** The clock (epoch ms). */
  now: () => number;
  /** Refuses HTTP targets the SSRF guard refuses (throws). */
  guardUrl?: (url: URL) => Promise<void>;
  /** Refuses IMAP/SMTP hosts the SSRF guard refuses (throws). */
  guardHost?: (host: string, port: number) => Promise<void>;
  retry?: RetryPolicy;
  /** One upstream request's bound (default 15 s). */
  timeoutMs?: number;
}

/** The `connection` settings of each kind with a connector. */
export const CONNECTION_SCHEMAS = {
  crm: crmConnectionSchema,
  mail: mailConnectionSchema,
  meetings: meetingsConnectionSchema,
} as const satisfies Record<ConnectorKind, z.ZodType>;

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = [what, ...(issue?.path ?? []).map(String)].join('.');
  throw new ConnectorError('REJECTED', `${field}: ${issue?.message ?? 'invalid'}`);
}

/**
 * The connector of a source of `kind`. Throws `ConnectorError` `NOT_CONFIGURED` without
 * credentials, `REJECTED` for a kind without connector or a bad setting.
 */
export function buildConnector(
  kind: string,
  connection: unknown,
  credentials: Record<string, unknown> | null,
  env: ConnectorEnvironment,
): Connector {
  if (!isConnectorKind(kind))
    throw new ConnectorError('REJECTED', `sources of kind "${kind}" have no connector`);
  if (credentials === null) {
    throw new ConnectorError(
      'NOT_CONFIGURED',
      'no credentials are set: PUT /sources/:slug/credentials first',
    );
  }
  const http = {
    ...(env.retry ? { retry: env.retry } : {}),
    ...(env.timeoutMs ? { timeoutMs: env.timeoutMs } : {}),
    ...(env.guardUrl ? { guard: env.guardUrl } : {}),
  };
  switch (kind) {
    case 'crm':
      return createCrmConnector(
        parse(CONNECTION_SCHEMAS.crm, connection, 'connection'),
        parse(CREDENTIAL_SCHEMAS.crm, credentials, 'credentials'),
        http,
      );
    case 'meetings':
      return createMeetingsConnector(
        parse(CONNECTION_SCHEMAS.meetings, connection, 'connection'),
        parse(CREDENTIAL_SCHEMAS.meetings, credentials, 'credentials'),
        { ...http, now: env.now },
      );
    case 'mail':
      return createMailConnector(
        parse(CONNECTION_SCHEMAS.mail, connection, 'connection'),
        parse(CREDENTIAL_SCHEMAS.mail, credentials, 'credentials'),
        {
          now: env.now,
          ...(env.retry ? { retry: env.retry } : {}),
          ...(env.timeoutMs ? { timeoutMs: env.timeoutMs } : {}),
          ...(env.guardHost ? { guardHost: env.guardHost } : {}),
        },
      );
  }
}
