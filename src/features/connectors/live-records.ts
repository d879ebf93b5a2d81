/**
 * One record read live from its source and upserted into its object instance (the cache the domain
 * tools read first): `get_meeting_transcript` when the meeting is not cached yet, `get_mail_thread`
 * when the cached thread is older than asked. The write is the sync's upsert (same external id, same
 * instance; `synced_at` set even when nothing changed), attributed to the source.
 */
import type { Db } from '../../platform/db/sql.js';
import type { Clock } from '../../platform/util/clock.js';
import type { SourceRecordWriter } from '../objects/index.js';
import type { ConnectionStore } from './connections.js';
import type { SourceRecord } from './connector.js';
import { ConnectorError } from './errors.js';
import type { SourceConfig } from './source-config.js';

/** What a live read found: the record and what the upsert did (null: the instance was unchanged). */
export interface LiveRecord {
  record: SourceRecord;
  upserted: 'created' | 'updated' | null;
  /** The instance's id. */
  id: number;
}

export class LiveRecords {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      connections: ConnectionStore;
      records: SourceRecordWriter;
      /** Called after a commit that wrote outbox rows (`object.created`), to wake the relay. */
      onOutbox?: () => void;
    },
  ) {}

  /**
   * Reads `externalId` of record kind `record` from `source` and upserts it. Null when the upstream
   * has no such item. Throws `ConnectorError` (upstream failures; `REJECTED` when the source maps the
   * record kind to no object type, or the record does not fit its type).
   */
  async fetch(
    orgId: number,
    source: SourceConfig,
    record: string,
    externalId: string,
    signal?: AbortSignal,
  ): Promise<LiveRecord | null> {
    const type = source.sync?.objectTypes[record];
    if (!type) {
      throw new ConnectorError(
        'REJECTED',
        `source "${source.slug}" maps no object type to its ${record} records (sync.objectTypes.${record})`,
      );
    }
    const connector = await this.deps.connections.connector(orgId, source);
    let found: SourceRecord | null;
    try {
      found = await connector.fetchRecord(record, externalId, signal);
    } finally {
      await connector.close();
    }
    if (!found) return null;
    const prepared = await this.deps.records.prepare(orgId, source.slug, type, [found]);
    const rejected = prepared.rejected[0];
    if (rejected) throw new ConnectorError('BAD_RESPONSE', `${record} ${externalId} ${rejected.reason}`);
    const at = new Date(this.deps.clock.now());
    const written = await this.deps.db.tx((sql) =>
      this.deps.records.write(sql, prepared, at, { actor: `source:${source.slug}`, apiTokenId: null }),
    );
    if (written.created.length > 0) this.deps.onOutbox?.();
    const id = written.ids.get(found.externalId);
    if (id === undefined) throw new Error(`the upsert of ${record} ${found.externalId} wrote no instance`);
    return {
      record: found,
      upserted: written.created.length > 0 ? 'created' : written.updated > 0 ? 'updated' : null,
      id,
    };
  }
}
