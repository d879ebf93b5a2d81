/**
 * Connectors: the modules that speak a source's upstream protocol, one per source kind, all behind
 * the one {@link Connector} interface the sync job, the domain tools and proposals use.
 *
 * Terminology (src/features/connectors/):
 * - **record kind**: what a connector syncs — `deal`, `contact`, `company` (crm), `thread` (mail),
 *   `meeting` (meetings). A source's manifest maps record kinds to object types
 *   (`sync.objectTypes`); a record kind left out of the map is not synced.
 * - **record**: one upstream item as r3 stores it in an object instance: `externalId` (the upstream
 *   id, unique per source and object type), `title`, `content` (what full-text search reads) and
 *   `metadata` (the upstream properties, what the domain tools filter and facet on).
 * - **page**: one step of a sync of one record kind: the records read, the upstream items that were
 *   malformed (skipped and counted, never fatal), and the opaque cursor of the next page (`null` when
 *   the record kind is done). Cursors are persisted between pages, so a sync resumes after a crash.
 * - **action**: a write in the upstream system that a human approved (a proposal): `crm.update_deal`,
 *   `crm.create_note`, `mail.send`. Each execution carries the proposal's idempotency key, and the
 *   connector makes a retried execution after a crash find the first one's effect instead of
 *   repeating it.
 */
import type { JsonObject } from '../../../machines/index.js';
import type { ConnectorAction } from './actions.js';

/** Kinds of source that have a connector. */
export const CONNECTOR_KINDS = ['crm', 'mail', 'meetings'] as const;
/** A source kind with a connector. */
export type ConnectorKind = (typeof CONNECTOR_KINDS)[number];

/** Whether a source kind has a connector. */
export function isConnectorKind(kind: string): kind is ConnectorKind {
  return (CONNECTOR_KINDS as readonly string[]).includes(kind);
}

/** One upstream item as it is stored in an object instance. */
export interface SourceRecord {
  /** The upstream id (HubSpot object id, thread root Message-ID, Zoom meeting UUID). */
  externalId: string;
  title: string;
  content: string;
  metadata: Record<string, unknown>;
  /** When the upstream item last changed (ISO), when the upstream says. */
  updatedAt: string | null;
}

/** An upstream item a page could not turn into a record. */
export interface SkippedRecord {
  /** Its upstream id, when it had a readable one. */
  externalId: string | null;
  reason: string;
}

/** One page of a sync of one record kind. */
export interface SyncPage {
  records: SourceRecord[];
  skipped: SkippedRecord[];
  /** Cursor of the next page; null when the record kind is done. */
  next: string | null;
}

/** What a page is asked for. */
export interface SyncPageRequest {
  record: string;
  /** Null for the first page. */
  cursor: string | null;
  /**
   * Only items changed at or after this time (ISO) are needed: the start of the last completed
   * sync. Null syncs everything. A connector may return more than asked (upserts are idempotent).
   */
  since: string | null;
  signal?: AbortSignal;
}

/** What a successful connection check found. */
export interface CheckResult {
  /** The upstream account the credentials open (portal id, mailbox, Zoom user), for display. */
  account: string;
}

/** One approved action to carry out. */
export interface ExecuteRequest {
  action: ConnectorAction;
  /** Stable per proposal: a retried execution passes the same key. */
  idempotencyKey: string;
  /**
   * Executions of this action started before this one (0 on the first). When more than 0, an
   * earlier one may have taken effect before its outcome was recorded (a crash): the connector
   * looks for that effect first.
   */
  previousAttempts: number;
  /** When the first execution started (ISO): the same on every retry (used as the note's time). */
  firstAttemptAt: string;
  signal?: AbortSignal;
}

/** What an executed action recorded (shown on the proposal). */
export type ActionResult = JsonObject;

/** A connector of one source, built from its connection settings and credentials. */
export interface Connector {
  readonly kind: ConnectorKind;
  /** The record kinds it can sync, in sync order. */
  readonly recordKinds: readonly string[];
  /** Checks that the upstream answers and accepts the credentials; throws `ConnectorError` if not. */
  check(signal?: AbortSignal): Promise<CheckResult>;
  /** Reads one page of `record` (see {@link SyncPage}). */
  syncPage(request: SyncPageRequest): Promise<SyncPage>;
  /** Reads one record live; null when the upstream has no such item. */
  fetchRecord(record: string, externalId: string, signal?: AbortSignal): Promise<SourceRecord | null>;
  /** Carries out an approved action exactly once per idempotency key; throws `ConnectorError`. */
  execute(request: ExecuteRequest): Promise<ActionResult>;
  /** Releases connections (IMAP sessions); a no-op for HTTP connectors. */
  close(): Promise<void>;
}
