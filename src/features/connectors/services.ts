/** The services of the connectors feature (what its routes, tools and schedulers use). */
import type { ReindexService } from '../objects/index.js';
import type { ResourceViews, WorkspaceStore } from '../workspace/index.js';
import type { ConnectionStore } from './connections.js';
import type { SourceLookup } from './source-config.js';
import type { SyncService } from './sync/sync-service.js';

export interface ConnectorServices {
  /** Credentials, connection state and connectors of sources. */
  connections: ConnectionStore;
  /** Syncs of sources into object instances. */
  syncs: SyncService;
  /** Sources as the connectors read them (applied manifests). */
  sources: SourceLookup;
  /** The workspace's wire views of sources. */
  resources: ResourceViews;
  /** The workspace's write path (sources are authored resources). */
  workspace: WorkspaceStore;
  /** The objects feature's reindex passes (`POST /sources/:slug/reindex`). */
  reindex: ReindexService;
}
