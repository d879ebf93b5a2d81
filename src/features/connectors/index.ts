/**
 * Connectors: sources that connect. Each source kind with a connector (`crm` HubSpot, `mail`
 * IMAP/SMTP, `meetings` Zoom) gets sealed credentials, a connection check, and syncs that upsert its
 * records into object instances of the mapped types (the `source-sync` job), on request or on
 * `sync.everyMinutes` (the `source-sync-schedule` job). This feature owns the sources routes; the
 * manifests stay in the workspace, the instances in objects.
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ObjectsApi } from '../objects/index.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { assertConnectionTargetsKept } from './connection-target.js';
import { ConnectionStore } from './connections.js';
import { type CredentialBox, createCredentialBox } from './credentials.js';
import { connectorEnvironment } from './environment.js';
import { LiveRecords } from './live-records.js';
import { Migration0014Connectors } from './migrations/0014-connectors.js';
import { Migration0028CredentialsTarget } from './migrations/0028-credentials-target.js';
import { connectionRoutes } from './routes/connections.js';
import { sourceRoutes } from './routes/sources.js';
import type { ConnectorServices } from './services.js';
import type { SourceLookup } from './source-config.js';
import { scheduledSyncs } from './sync/scheduled-syncs.js';
import { SyncService } from './sync/sync-service.js';

export {
  ACTION_NAMES,
  ACTIONS,
  type ActionName,
  actionKind,
  type ConnectorAction,
  describeAction,
  parseAction,
} from './actions.js';
export type { ConnectionStore, ConnectionView } from './connections.js';
export type { ActionResult, ConnectorKind, SourceRecord } from './connector.js';
export { ConnectorError, type ConnectorErrorCode } from './errors.js';
export type { LiveRecord, LiveRecords } from './live-records.js';
export { bareId, type MailMessage, threadMessages } from './mail/threads.js';
export { type TranscriptTurn, turnsFromLines } from './meetings/webvtt-turns.js';
export type { SourceConfig, SourceLookup } from './source-config.js';
export type { SyncService, SyncView } from './sync/sync-service.js';

/** What the connectors feature offers. */
export type ConnectorsApi = Pick<ConnectorServices, 'connections' | 'syncs' | 'sources'> & {
  /** Records read live from their source and upserted (the domain tools' cache misses). */
  live: LiveRecords;
  /** Starts the schedules of sources that became scheduled (the periodic sweep, run now); resolves with how many. */
  sweepSyncSchedules(): Promise<number>;
};

export const connectorsFeature = defineFeature({
  name: 'connectors',
  migrations: [
    { name: '0014-connectors', class: Migration0014Connectors },
    { name: '0028-credentials-target', class: Migration0028CredentialsTarget },
  ],
  register(
    platform: Platform,
    { workspace, objects }: { workspace: WorkspaceApi; objects: ObjectsApi },
  ): ConnectorsApi {
    const { db, clock, log, jobs, config } = platform;
    // As credentials.ts seals them (`r3 secrets rekey` reseals them under a new master secret).
    platform.sealedColumns.add({
      table: 'source_connections',
      column: 'credentials',
      purpose: 'source-credentials',
      context: `'source:' || org_id || ':' || source_slug`,
    });
    let box: Promise<CredentialBox> | null = null;
    const connections = new ConnectionStore({
      db: db.sql,
      clock,
      box: () => {
        box ??= platform.masterSecret().then(createCredentialBox);
        return box;
      },
      env: connectorEnvironment(config, clock),
    });
    const sources: SourceLookup = async (orgId, slug) => {
      const applied = await workspace.applied.getSource(orgId, slug);
      if (!applied) return null;
      const { manifest } = applied;
      return {
        slug: manifest.slug,
        kind: manifest.kind,
        connection: manifest.connection,
        sync: manifest.sync ?? null,
      };
    };
    const syncs = new SyncService({
      db: db.sql,
      clock,
      log,
      jobs,
      connections,
      sources,
      records: objects.sourceRecords,
      baseUrl: platform.baseUrl,
      onOutbox: () => platform.outbox.wake(),
    });
    const services: ConnectorServices = {
      connections,
      syncs,
      sources,
      resources: workspace.resources,
      workspace: workspace.workspace,
      reindex: objects.reindex,
    };
    const schedules = scheduledSyncs({
      db: db.sql,
      jobs,
      clock,
      log,
      syncs,
      sources,
      scheduled: async () =>
        (await workspace.applied.scheduledSources()).flatMap(({ orgId, manifest }) =>
          manifest.sync?.everyMinutes
            ? [{ orgId, slug: manifest.slug, everyMinutes: manifest.sync.everyMinutes }]
            : [],
        ),
    });
    platform.addService(schedules);
    // Credentials stay with the connection target they were set for: moving it needs a role that
    // manages credentials, and clears them in the apply that moves it.
    workspace.workspace.guardWrites(assertConnectionTargetsKept);
    workspace.workspace.onApply((sql, orgId) => connections.forgetMovedCredentials(sql, orgId));
    platform.routes.add(...sourceRoutes(services), ...connectionRoutes(services, clock));
    const live = new LiveRecords({
      db: db.sql,
      clock,
      connections,
      records: objects.sourceRecords,
      onOutbox: () => platform.outbox.wake(),
    });
    return { connections, syncs, sources, live, sweepSyncSchedules: () => schedules.sweep() };
  },
});
