/**
 * The services of authored resources and object instances, built together because they share the
 * embedder and the reindex worker: the workspace write path, resource reads (wire views for REST, applied
 * manifests for the runtime), object instances, hybrid search and reindex passes.
 */

import { ObjectService } from './features/objects/object-service.js';
import { ReindexService } from './features/objects/reindex.js';
import { createConfiguredEmbedder } from './features/objects/search/configured-embedder.js';
import type { Embedder } from './features/objects/search/embedder.js';
import { SearchService } from './features/objects/search/search-service.js';
import { AppliedResources } from './features/workspace/applied.js';
import { ResourceViews } from './features/workspace/resource-views.js';
import { WorkspaceStore } from './features/workspace/store.js';
import type { Config } from './platform/config.js';
import type { Database } from './platform/db/database.js';
import type { JobQueue } from './platform/jobs/queue.js';
import type { Logger } from './platform/log.js';
import type { Clock } from './platform/util/clock.js';

export interface ResourceServices {
  /** The one write path of authored resources (workspace files → version → apply). */
  workspace: WorkspaceStore;
  /** Authored resources in their REST/MCP wire shapes. */
  resources: ResourceViews;
  /** Applied manifests with their workspaceSha, for the runtime. */
  applied: AppliedResources;
  /** Object instances: ingest, list, detail, update, links. */
  objects: ObjectService;
  /** Hybrid search over object instances. */
  search: SearchService;
  /** Background reindex passes. */
  reindex: ReindexService;
}

/** Builds the services; reindex passes run as jobs of `jobs` (kind `reindex`, registered here). */
export function createResourceServices(deps: {
  config: Config;
  log: Logger;
  clock: Clock;
  db: Database;
  jobs: JobQueue;
  embedder?: Embedder;
  /** Wakes the outbox relay after a commit that wrote events (object ingest). */
  onOutbox?: () => void;
}): ResourceServices {
  const { config, log, clock, db, jobs } = deps;
  const embedder = deps.embedder ?? createConfiguredEmbedder(config);
  const reindex = new ReindexService({ db, clock, log, embedder, config, jobs });
  return {
    workspace: new WorkspaceStore({ db, clock, reindex }),
    resources: new ResourceViews(db.orm.em),
    applied: new AppliedResources(db.sql),
    objects: new ObjectService({
      db,
      clock,
      log,
      config,
      embedder,
      ...(deps.onOutbox ? { onOutbox: deps.onOutbox } : {}),
    }),
    search: new SearchService({ db, clock, embedder, baseUrl: () => config.baseUrl }),
    reindex,
  };
}
