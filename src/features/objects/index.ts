/**
 * Objects: instances of the authored object types (ingest, list, detail, update, links, and upserts
 * of records from connected sources), hybrid search over them, reindex passes (the `reindex` job),
 * plus the data MCP tools. Instances are indexed as they are written; the workspace queues reindex
 * passes through this feature's queue when an object type's language changes.
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { dataTools } from './mcp-tools.js';
import { Migration0015ExternalIds } from './migrations/0015-external-ids.js';
import { Migration0024RecordPages } from './migrations/0024-record-pages.js';
import { Migration0025RecordProjection } from './migrations/0025-record-projection.js';
import { Migration0026RecordTerms } from './migrations/0026-record-terms.js';
import { CreatedObjects, type ObjectsCreatedListener } from './object-events.js';
import { ObjectService } from './object-service.js';
import { RecordQueries } from './record-queries.js';
import { ReindexService } from './reindex.js';
import { objectRoutes } from './routes/objects.js';
import { searchRoutes } from './routes/search.js';
import { createConfiguredEmbedder } from './search/configured-embedder.js';
import { SearchService } from './search/search-service.js';
import type { ObjectServices } from './services.js';
import { createSourceRecordWriter, type SourceRecordWriter } from './source-records.js';

export type { ObjectsCreatedListener } from './object-events.js';
export type { ObjectService } from './object-service.js';
export {
  type FilterValue,
  MAX_FACET_VALUES,
  type RecordItem,
  type RecordPage,
  type RecordPageQuery,
  RecordQueries,
  type RecordScope,
  type StoredRecord,
} from './record-queries.js';
export type { ReindexService } from './reindex.js';
export type { SearchService } from './search/search-service.js';
export {
  type ExternalRecord,
  type RejectedRecord,
  type SourceRecordWriter,
  UnknownObjectTypeError,
  type WrittenRecords,
} from './source-records.js';
export { searchResultSchema } from './view-schemas.js';

/** What the objects feature offers. */
export type ObjectsApi = Pick<ObjectServices, 'objects' | 'search' | 'reindex'> & {
  /** Upserts of records from connected sources (by source, type and external id). */
  sourceRecords: SourceRecordWriter;
  /** Adds work to the transactions that create instances, through the API or a sync. */
  onObjectsCreated(listener: ObjectsCreatedListener): void;
  /** Reads of synced instances: filtered pages with totals and facets, lookups, changes. */
  records: RecordQueries;
};

export const objectsFeature = defineFeature({
  name: 'objects',
  migrations: [
    { name: '0015-external-ids', class: Migration0015ExternalIds },
    { name: '0024-record-pages', class: Migration0024RecordPages },
    { name: '0025-record-projection', class: Migration0025RecordProjection },
    { name: '0026-record-terms', class: Migration0026RecordTerms },
  ],
  register(platform: Platform, { workspace }: { workspace: WorkspaceApi }): ObjectsApi {
    const { config, log, clock, db, jobs } = platform;
    const embedder = createConfiguredEmbedder(config);
    const created = new CreatedObjects();
    const reindex = new ReindexService({ db, clock, log, embedder, config, jobs });
    workspace.workspace.useReindexQueue(reindex);
    const services: ObjectServices = {
      objects: new ObjectService({
        db,
        clock,
        log,
        config,
        embedder,
        onOutbox: () => platform.outbox.wake(),
        created,
      }),
      search: new SearchService({ db, clock, embedder, baseUrl: platform.baseUrl }),
      reindex,
      resources: workspace.resources,
      workspace: workspace.workspace,
    };
    platform.routes.add(...objectRoutes(services), ...searchRoutes(services));
    platform.mcp.add(...dataTools(services));
    const sourceRecords = createSourceRecordWriter({
      sql: db.sql,
      embedder,
      onEmbedError: (error) =>
        log.warn({ err: error }, 'embedding failed; instances are stored without a vector'),
      created,
    });
    return {
      objects: services.objects,
      search: services.search,
      reindex,
      sourceRecords,
      onObjectsCreated: (listener) => created.listen(listener),
      records: new RecordQueries(db.sql),
    };
  },
});
