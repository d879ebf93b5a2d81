/** The wire shapes of object instances and how rows become them. */
import type { ObjectStatus } from './object-schemas.js';

/** What an ingest answers (and what the `object.created` event carries as `{objectId, slug, title, createdAt}`). */
export interface IngestedObject {
  id: number;
  /** The object type's slug. */
  slug: string;
  title: string;
  createdAt: string;
}

/** An instance in lists. */
export interface ObjectView {
  id: number;
  type: string;
  title: string;
  status: ObjectStatus;
  source: string | null;
  /** The upstream id of an instance a connector synced (unique per source and type); null when ingested. */
  externalId: string | null;
  metadata: Record<string, unknown>;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** A linked document of an instance. */
export interface LinkedDocument {
  id: number;
  type: string;
  title: string;
  status: ObjectStatus;
  relation: string;
  /** `outgoing`: this instance links to it; `incoming`: it links to this instance. */
  direction: 'outgoing' | 'incoming';
  url: string;
}

/** An instance with its content and linked documents. */
export interface ObjectDetail extends ObjectView {
  content: string;
  url: string;
  documents: LinkedDocument[];
  /** The runs that used it (docs/api.md "Runs": `objects`), newest first; shadow runs left out. */
  runs: LinkingRun[];
}

/** A run that used an instance: named it in its body (`input`) or got it from a tool (`tool`). */
export interface LinkingRun {
  runId: number;
  kind: 'skill' | 'workflow';
  slug: string;
  status: string;
  via: 'input' | 'tool';
}

/** A page of instances, newest first; `nextAfter` is the id to continue below. */
export interface ObjectPage {
  items: ObjectView[];
  nextAfter: number | null;
}

/** Most linked documents an instance detail shows. */
export const MAX_DOCUMENTS = 200;

/** The columns {@link view} reads. */
export const VIEW_COLUMNS = `id, type_slug, title, status, source_slug, external_id, metadata, created_by, created_at, updated_at`;

/** A row with {@link VIEW_COLUMNS}. */
export interface ViewRow {
  id: number;
  type_slug: string;
  title: string;
  status: ObjectStatus;
  source_slug: string | null;
  external_id: string | null;
  metadata: Record<string, unknown>;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

/** The list view of a row. */
export function view(row: ViewRow): ObjectView {
  return {
    id: row.id,
    type: row.type_slug,
    title: row.title,
    status: row.status,
    source: row.source_slug,
    externalId: row.external_id,
    metadata: row.metadata,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
