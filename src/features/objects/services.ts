/** The services of the objects feature (what its routes and tools use). */
import type { ResourceViews, WorkspaceStore } from '../workspace/index.js';
import type { ObjectService } from './object-service.js';
import type { ReindexService } from './reindex.js';
import type { SearchService } from './search/search-service.js';

export interface ObjectServices {
  /** Object instances: ingest, list, detail, update, links. */
  objects: ObjectService;
  /** Hybrid search over object instances. */
  search: SearchService;
  /** Background reindex passes. */
  reindex: ReindexService;
  /** The workspace's wire views (object types, sources). */
  resources: ResourceViews;
  /** The workspace's write path (sources are authored resources). */
  workspace: WorkspaceStore;
}
