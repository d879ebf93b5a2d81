/**
 * The slice of HubSpot's CRM v3 REST API the crm connector uses, as wire types and request builders:
 * objects search (`POST /crm/v3/objects/{type}/search`: filter groups, one sort, `limit` ≤ 200,
 * `after` paging, at most 10,000 results per query), read one object, update a deal, create a note
 * with an association, and the account details a connection check reads.
 */
import type { HttpClient } from '../http-client.js';

/** HubSpot's object type (path segment) of each record kind. */
export const OBJECT_TYPES = { deal: 'deals', contact: 'contacts', company: 'companies' } as const;
/** A CRM record kind. */
export type CrmRecord = keyof typeof OBJECT_TYPES;
/** CRM record kinds, in sync order. */
export const CRM_RECORDS = Object.keys(OBJECT_TYPES) as CrmRecord[];

/** The property holding an object's last modification time (contacts name it differently). */
export const MODIFIED_PROPERTY: Record<CrmRecord, string> = {
  deal: 'hs_lastmodifieddate',
  contact: 'lastmodifieddate',
  company: 'hs_lastmodifieddate',
};

/** Properties read when the source names none. */
export const DEFAULT_PROPERTIES: Record<CrmRecord, readonly string[]> = {
  deal: ['dealname', 'amount', 'dealstage', 'pipeline', 'closedate', 'hubspot_owner_id', 'createdate'],
  contact: ['firstname', 'lastname', 'email', 'phone', 'company', 'jobtitle', 'lifecyclestage', 'createdate'],
  company: [
    'name',
    'domain',
    'industry',
    'city',
    'country',
    'numberofemployees',
    'annualrevenue',
    'createdate',
  ],
};

/** HubSpot's cap on results one search query can page through. */
export const SEARCH_WINDOW = 10_000;

/** Association type ids (HubSpot-defined) from a note to each record kind. */
export const NOTE_ASSOCIATION: Record<CrmRecord, number> = { deal: 214, contact: 202, company: 190 };

/** One filter of a search. */
export interface SearchFilter {
  propertyName: string;
  operator: 'EQ' | 'NEQ' | 'GT' | 'GTE' | 'LT' | 'LTE' | 'IN' | 'HAS_PROPERTY' | 'CONTAINS_TOKEN';
  value?: string;
  values?: string[];
}

/** The body of a search request. */
export interface SearchRequest {
  filterGroups: Array<{ filters: SearchFilter[] }>;
  sorts: Array<{ propertyName: string; direction: 'ASCENDING' | 'DESCENDING' }>;
  properties: string[];
  limit: number;
  after?: string;
}

/** An object as HubSpot returns it (unchecked: malformed items are possible). */
export interface HubspotObject {
  id?: unknown;
  properties?: unknown;
  createdAt?: unknown;
  updatedAt?: unknown;
  archived?: unknown;
}

/** A search answer. */
export interface SearchResponse {
  total?: number;
  results?: HubspotObject[];
  paging?: { next?: { after?: string } };
}

/** HubSpot's error body: `{status: "error", message, category, correlationId}`. */
export function hubspotErrorMessage(_status: number, body: unknown): string | undefined {
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string') {
    const { message, category } = body as { message: string; category?: unknown };
    return typeof category === 'string' ? `${message} (${category})` : message;
  }
  return undefined;
}

/** Searches objects of a HubSpot object type (`deals`, `notes`, …). */
export function searchObjects(
  http: HttpClient,
  objectType: string,
  body: SearchRequest,
  signal?: AbortSignal,
): Promise<SearchResponse> {
  return http.json<SearchResponse>({
    method: 'POST',
    path: `crm/v3/objects/${objectType}/search`,
    body,
    ...(signal ? { signal } : {}),
  });
}

/** Reads one object; `ConnectorError` `NOT_FOUND` when HubSpot has none with that id. */
export function readObject(
  http: HttpClient,
  record: CrmRecord,
  id: string,
  properties: readonly string[],
  signal?: AbortSignal,
): Promise<HubspotObject> {
  return http.json<HubspotObject>({
    path: `crm/v3/objects/${OBJECT_TYPES[record]}/${encodeURIComponent(id)}`,
    query: { properties: properties.join(','), archived: 'false' },
    ...(signal ? { signal } : {}),
  });
}
