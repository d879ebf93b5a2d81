/**
 * The `crm` connector: HubSpot CRM v3 with a private-app access token.
 *
 * Sync reads each record kind with the objects search, sorted by `hs_object_id` ascending and paged
 * with `after`. One query can page through at most 10,000 results, so when a page would cross that
 * window the next query starts over with `hs_object_id > <the last id read>` — the cursor holds both
 * (`{after, minId}`), so a sync of any size resumes exactly where it stopped. An incremental sync adds
 * `<modified property> >= since`.
 */
import { z } from 'zod';
import type { JsonObject } from '../../../../machines/index.js';
import type { ConnectorAction } from '../actions.js';
import type {
  ActionResult,
  CheckResult,
  Connector,
  ExecuteRequest,
  SourceRecord,
  SyncPage,
  SyncPageRequest,
} from '../connector.js';
import { ConnectorError } from '../errors.js';
import { createHttpClient, type HttpClient, type RetryPolicy } from '../http-client.js';
import {
  CRM_RECORDS,
  type CrmRecord,
  DEFAULT_PROPERTIES,
  type HubspotObject,
  hubspotErrorMessage,
  MODIFIED_PROPERTY,
  NOTE_ASSOCIATION,
  OBJECT_TYPES,
  readObject,
  SEARCH_WINDOW,
  type SearchFilter,
  searchObjects,
} from './hubspot.js';

/** The `connection` settings of a crm source. */
export const crmConnectionSchema = z.looseObject({
  baseUrl: z.url({ protocol: /^https?$/ }).default('https://api.hubapi.com'),
  /** Objects per search page (HubSpot allows up to 200). */
  pageSize: z.number().int().min(1).max(200).default(100),
  /** Properties read per record kind (default: the usual ones, see hubspot.ts). */
  properties: z
    .strictObject({
      deal: z.array(z.string().min(1)).optional(),
      contact: z.array(z.string().min(1)).optional(),
      company: z.array(z.string().min(1)).optional(),
    })
    .default({}),
});
/** Parsed crm connection settings. */
export type CrmConnection = z.output<typeof crmConnectionSchema>;

/** The credentials of a crm source (`PUT /sources/:slug/credentials`). */
export const crmCredentialsSchema = z.strictObject({ accessToken: z.string().min(1).max(4096) });
/** Crm credentials. */
export type CrmCredentials = z.output<typeof crmCredentialsSchema>;

/** What the connector needs besides settings and credentials. */
export interface CrmConnectorOptions {
  retry?: RetryPolicy;
  timeoutMs?: number;
  fetch?: typeof fetch;
  guard?: (url: URL) => Promise<void>;
}

const cursorSchema = z.object({
  after: z.string().optional(),
  minId: z.string().regex(/^\d+$/).default('0'),
});
type Cursor = z.output<typeof cursorSchema>;

const ID = /^\d{1,20}$/;

function isCrmRecord(record: string): record is CrmRecord {
  return (CRM_RECORDS as string[]).includes(record);
}

function recordOf(record: string): CrmRecord {
  if (!isCrmRecord(record))
    throw new ConnectorError('REJECTED', `the crm connector has no record kind "${record}"`);
  return record;
}

function titleOf(record: CrmRecord, id: string, p: Record<string, string | null>): string {
  const name =
    record === 'deal'
      ? p.dealname
      : record === 'company'
        ? (p.name ?? p.domain)
        : [p.firstname, p.lastname].filter(Boolean).join(' ') || p.email;
  return name?.trim() || `${record[0]?.toUpperCase()}${record.slice(1)} ${id}`;
}

/**
 * An object as a record, or why it is malformed: an id that is not digits, properties that are not
 * an object of strings (or nulls).
 */
export function toRecord(
  record: CrmRecord,
  object: HubspotObject,
): { ok: true; record: SourceRecord } | { ok: false; externalId: string | null; reason: string } {
  const id = typeof object.id === 'string' || typeof object.id === 'number' ? String(object.id) : null;
  if (id === null || !ID.test(id)) return { ok: false, externalId: id, reason: 'the object has no valid id' };
  const raw = object.properties;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, externalId: id, reason: 'the object has no properties object' };
  }
  const properties: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value !== null && typeof value !== 'string') {
      return { ok: false, externalId: id, reason: `property "${key}" is not a string` };
    }
    properties[key] = value;
  }
  const title = titleOf(record, id, properties);
  const content = Object.entries(properties)
    .filter(([key, value]) => value !== null && value !== '' && !key.startsWith('hs_'))
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n');
  const updatedAt = typeof object.updatedAt === 'string' ? object.updatedAt : null;
  return { ok: true, record: { externalId: id, title, content, metadata: properties, updatedAt } };
}

/** Creates the connector of one crm source. */
export function createCrmConnector(
  connection: CrmConnection,
  credentials: CrmCredentials,
  options: CrmConnectorOptions = {},
): Connector {
  const http: HttpClient = createHttpClient({
    name: 'HubSpot',
    baseUrl: connection.baseUrl,
    authorization: `Bearer ${credentials.accessToken}`,
    errorMessage: hubspotErrorMessage,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.guard ? { guard: options.guard } : {}),
  });
  const propertiesOf = (record: CrmRecord) => {
    const named = connection.properties[record] ?? DEFAULT_PROPERTIES[record];
    return [...new Set([...named, MODIFIED_PROPERTY[record], 'hs_object_id'])];
  };

  async function syncPage(request: SyncPageRequest): Promise<SyncPage> {
    const record = recordOf(request.record);
    let cursor: Cursor;
    try {
      cursor = cursorSchema.parse(request.cursor === null ? {} : JSON.parse(request.cursor));
    } catch {
      throw new ConnectorError('REJECTED', 'the crm sync cursor is unreadable');
    }
    const filters: SearchFilter[] = [{ propertyName: 'hs_object_id', operator: 'GT', value: cursor.minId }];
    if (request.since) {
      filters.push({
        propertyName: MODIFIED_PROPERTY[record],
        operator: 'GTE',
        value: String(Date.parse(request.since)),
      });
    }
    const answer = await searchObjects(
      http,
      OBJECT_TYPES[record],
      {
        filterGroups: [{ filters }],
        sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
        properties: propertiesOf(record),
        limit: connection.pageSize,
        ...(cursor.after ? { after: cursor.after } : {}),
      },
      request.signal,
    );
    if (!answer || !Array.isArray(answer.results)) {
      throw new ConnectorError('BAD_RESPONSE', 'HubSpot answered a search without a results array');
    }
    const page: SyncPage = { records: [], skipped: [], next: null };
    let lastId = cursor.minId;
    for (const object of answer.results) {
      const result = toRecord(record, object);
      if (result.ok) page.records.push(result.record);
      else page.skipped.push({ externalId: result.externalId, reason: result.reason });
      const id = result.ok ? result.record.externalId : result.externalId;
      if (id && ID.test(id) && BigInt(id) > BigInt(lastId)) lastId = id;
    }
    const after = answer.paging?.next?.after;
    if (after) {
      // The next page stays in this query's window when it ends by the window's edge; otherwise the
      // next query starts after the last id read.
      const offset = Number(after);
      const inWindow = Number.isSafeInteger(offset) && offset + connection.pageSize <= SEARCH_WINDOW;
      page.next = JSON.stringify(inWindow ? { after, minId: cursor.minId } : { minId: lastId });
    }
    return page;
  }

  async function fetchRecord(record: string, externalId: string, signal?: AbortSignal) {
    const kind = recordOf(record);
    if (!ID.test(externalId)) return null;
    try {
      const object = await readObject(http, kind, externalId, propertiesOf(kind), signal);
      const result = toRecord(kind, object);
      if (!result.ok)
        throw new ConnectorError('BAD_RESPONSE', `HubSpot ${kind} ${externalId}: ${result.reason}`);
      return result.record;
    } catch (error) {
      if (error instanceof ConnectorError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  async function existingNote(body: string, timestamp: string, signal?: AbortSignal): Promise<string | null> {
    const answer = await searchObjects(
      http,
      'notes',
      {
        filterGroups: [{ filters: [{ propertyName: 'hs_timestamp', operator: 'EQ', value: timestamp }] }],
        sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
        properties: ['hs_note_body', 'hs_timestamp'],
        limit: 100,
      },
      signal,
    );
    for (const note of answer.results ?? []) {
      const props = note.properties as Record<string, unknown> | undefined;
      if (props?.hs_note_body === body && typeof note.id === 'string') return note.id;
    }
    return null;
  }

  async function execute(request: ExecuteRequest): Promise<ActionResult> {
    const action: ConnectorAction = request.action;
    const signal = request.signal ? { signal: request.signal } : {};
    if (action.action === 'crm.update_deal') {
      const properties = Object.fromEntries(
        Object.entries(action.params.properties).map(([k, v]) => [k, v === null ? '' : String(v)]),
      );
      const updated = await http.json<HubspotObject>({
        method: 'PATCH',
        path: `crm/v3/objects/deals/${action.params.dealId}`,
        body: { properties },
        ...signal,
      });
      return {
        dealId: action.params.dealId,
        updatedAt: typeof updated?.updatedAt === 'string' ? updated.updatedAt : null,
        properties: (updated?.properties as JsonObject | undefined) ?? properties,
      };
    }
    if (action.action === 'crm.create_note') {
      const { body, dealId, contactId, companyId } = action.params;
      // The note's time is the first attempt's, so a retry can recognise a note an earlier attempt
      // created (same time, same body) instead of creating a second one.
      const timestamp = String(Date.parse(request.firstAttemptAt));
      if (request.previousAttempts > 0) {
        const noteId = await existingNote(body, timestamp, request.signal);
        if (noteId) return { noteId, created: false };
      }
      const target: Array<[CrmRecord, string]> = [];
      if (dealId) target.push(['deal', dealId]);
      if (contactId) target.push(['contact', contactId]);
      if (companyId) target.push(['company', companyId]);
      const created = await http.json<HubspotObject>({
        method: 'POST',
        path: 'crm/v3/objects/notes',
        body: {
          properties: { hs_note_body: body, hs_timestamp: timestamp },
          associations: target.map(([kind, id]) => ({
            to: { id },
            types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: NOTE_ASSOCIATION[kind] }],
          })),
        },
        ...signal,
      });
      if (typeof created?.id !== 'string')
        throw new ConnectorError('BAD_RESPONSE', 'HubSpot created a note without an id');
      return { noteId: created.id, created: true };
    }
    throw new ConnectorError('REJECTED', `the crm connector cannot execute ${action.action}`);
  }

  return {
    kind: 'crm',
    recordKinds: CRM_RECORDS,
    async check(signal?: AbortSignal): Promise<CheckResult> {
      const details = await http.json<{ portalId?: unknown }>({
        path: 'account-info/v3/details',
        ...(signal ? { signal } : {}),
      });
      if (typeof details?.portalId !== 'number' && typeof details?.portalId !== 'string') {
        throw new ConnectorError('BAD_RESPONSE', 'HubSpot account details have no portalId');
      }
      return { account: `HubSpot portal ${details.portalId}` };
    },
    syncPage,
    fetchRecord,
    execute,
    close: async () => undefined,
  };
}
