/**
 * A source's connection through the API (docs/api.md#sources-and-connectors):
 * - `PUT /sources/:slug/credentials` stores the kind's credentials sealed; the answer shows only
 *   `credentialsSet` and `credentialsUpdatedAt` (never the credentials);
 * - `POST /sources/:slug/test` checks the connection now: 200 `{connectionState, connectionError}`;
 * - `POST /sources/:slug/sync` starts a sync (202 `{syncId, status, statusUrl, …}`; the running one
 *   when one runs); `GET /sources/:slug/syncs/:syncId` follows it.
 */

import { z } from 'zod';
import { recordAuditSql } from '../../../platform/audit/audit.js';
import { attributionOf } from '../../../platform/auth/attribution.js';
import { access } from '../../../platform/auth/guard.js';
import { canManageCredentials } from '../../../platform/auth/principal.js';
import { notFound, validationFailed } from '../../../platform/errors.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { slugParams } from '../../workspace/index.js';
import { credentialsForbidden } from '../connection-target.js';
import { credentialIssues } from '../connections.js';
import { isConnectorKind } from '../connector.js';
import type { ConnectorServices } from '../services.js';
import type { SourceConfig } from '../source-config.js';

const ID = /^[1-9]\d{0,15}$/;

/** The body of `POST /sources/:slug/sync`: `full` reads everything, not only what changed. */
const syncBody = z.strictObject({ full: z.boolean().default(false) }).default({ full: false });

export function connectionRoutes(s: ConnectorServices, clock: { now(): number }): RouteDef[] {
  const source = async (orgId: number, slug: string): Promise<SourceConfig> => {
    const found = await s.sources(orgId, slug);
    if (!found) throw notFound('source', slug);
    return found;
  };
  const connectorSource = async (orgId: number, slug: string): Promise<SourceConfig> => {
    const found = await source(orgId, slug);
    if (!isConnectorKind(found.kind)) {
      throw validationFailed([
        { field: 'params.slug', message: `sources of kind "${found.kind}" have no connector` },
      ]);
    }
    return found;
  };
  return [
    defineRoute({
      method: 'PUT',
      path: '/api/v1/sources/:slug/credentials',
      access: access.write,
      params: slugParams,
      body: z.record(z.string(), z.unknown()),
      summary:
        'Stores the source’s credentials sealed (crm `{accessToken}`, mail `{username, password}`, meetings `{accessToken}`), for its current connection target; the answer shows `credentialsSet` and `credentialsUpdatedAt` only. Needs the role owner or pm.',
      errors: [403],
      handler: async ({ principal, params, body, requestId }) => {
        const found = await connectorSource(principal.orgId, params.slug);
        if (!canManageCredentials(principal)) throw credentialsForbidden('Setting credentials');
        const issues = credentialIssues(found.kind, body);
        if (issues.length > 0) throw validationFailed(issues);
        const by = attributionOf(principal, requestId);
        const view = await s.connections.setCredentials(principal.orgId, found, body, async (sql) => {
          await recordAuditSql(sql, {
            orgId: principal.orgId,
            apiTokenId: by.apiTokenId,
            actor: by.actor,
            action: 'source.credentials',
            targetKind: 'source',
            targetId: params.slug,
            // Which fields were set, never their values.
            details: { fields: Object.keys(body).sort() },
            requestId,
            at: new Date(clock.now()),
          });
        });
        return ok({
          source: params.slug,
          credentialsSet: view.credentialsSet,
          credentialsUpdatedAt: view.credentialsUpdatedAt,
          connectionState: view.connectionState,
          connectionError: view.connectionError,
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/sources/:slug/test',
      access: access.write,
      params: slugParams,
      summary:
        'Checks the connection now (credentials, reachability): 200 `{connectionState, connectionError}`; the state is kept on the source.',
      handler: async ({ principal, params, signal }) => {
        const found = await connectorSource(principal.orgId, params.slug);
        const view = await s.connections.check(principal.orgId, found, signal);
        return ok({
          connectionState: view.connectionState,
          connectionError: view.connectionError,
          checkedAt: view.checkedAt,
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/sources/:slug/sync',
      access: access.write,
      params: slugParams,
      body: syncBody,
      summary:
        'Starts a sync of the source into its mapped object types (202 `{syncId, status, statusUrl}`; the running sync when one runs). `full: true` reads everything, not only what changed since the last sync.',
      handler: async ({ principal, params, body, requestId }) => {
        const { sync } = await s.syncs.request(principal.orgId, params.slug, {
          trigger: 'api',
          by: attributionOf(principal, requestId),
          full: body.full,
        });
        return json(202, sync, { Location: sync.statusUrl });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/sources/:slug/syncs/:syncId',
      access: access.read,
      params: slugParams.extend({ syncId: z.string() }),
      summary: 'One sync of the source: `{syncId, status, created, updated, skipped, error, …}`.',
      handler: async ({ principal, params }) => {
        const id = ID.test(params.syncId) ? Number(params.syncId) : 0;
        const sync = id ? await s.syncs.get(principal.orgId, params.slug, id) : null;
        if (!sync) throw notFound('sync', params.syncId);
        return ok(sync);
      },
    }),
  ];
}
