/**
 * A HubSpot-shaped CRM v3 server for tests, speaking the real wire protocol over a real socket:
 * private-app Bearer auth (401 with HubSpot's error body), objects search (filter groups OR'ed,
 * filters AND'ed, one sort, `limit` ≤ 200, `after` paging, `total`, the 10,000-result window), read
 * one object, PATCH a deal, POST a note with associations, and account details. Faults on demand:
 * 429s with `Retry-After`, slow answers, 5xx, answers never sent after the request took effect, and
 * malformed objects served as they are stored.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeObject {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  associations?: Array<{ to: { id: string }; types: unknown[] }>;
}

type Fault =
  | { status: number; retryAfter?: string; body?: unknown }
  | { delayMs: number }
  /** The request takes effect, but its answer is never sent (a client that dies waiting for it). */
  | { applyThenHang: true };

interface Filter {
  propertyName: string;
  operator: string;
  value?: string;
  values?: string[];
}

export interface FakeHubspot {
  url: string;
  token: string;
  portalId: number;
  /** Objects by HubSpot object type (`deals`, `contacts`, `companies`, `notes`). */
  objects: Map<string, Map<string, FakeObject | Record<string, unknown>>>;
  /** Requests served, in order (method and path). */
  requests: Array<{ method: string; path: string; body: unknown }>;
  /** Adds an object; returns it. */
  add(
    type: string,
    properties: Record<string, string | null>,
    options?: { id?: string; updatedAt?: string },
  ): FakeObject;
  /** Stores a raw (possibly malformed) item that search returns as it is, sorted by `sortId`. */
  addRaw(type: string, sortId: string, raw: Record<string, unknown>): void;
  /** The next `count` requests get `fault` instead of an answer (or are delayed first). */
  fault(fault: Fault, count?: number): void;
  close(): Promise<void>;
}

const DEFAULT_PROPS: Record<string, string[]> = {
  deals: [
    'dealname',
    'amount',
    'closedate',
    'pipeline',
    'dealstage',
    'createdate',
    'hs_lastmodifieddate',
    'hs_object_id',
  ],
  contacts: ['firstname', 'lastname', 'email', 'createdate', 'lastmodifieddate', 'hs_object_id'],
  companies: ['name', 'domain', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  notes: ['hs_note_body', 'hs_timestamp', 'hs_object_id'],
};

function error(
  res: http.ServerResponse,
  status: number,
  message: string,
  category: string,
  headers = {},
): false {
  res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
  res.end(JSON.stringify({ status: 'error', message, correlationId: randomUUID(), category }));
  return false;
}

function compare(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function matches(object: FakeObject, filter: Filter): boolean {
  const actual =
    object.properties[filter.propertyName] ?? (filter.propertyName === 'hs_object_id' ? object.id : null);
  const value = filter.value ?? '';
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return actual !== null && actual !== '';
    case 'NOT_HAS_PROPERTY':
      return actual === null || actual === '';
    case 'IN':
      return actual !== null && (filter.values ?? []).includes(actual);
    case 'CONTAINS_TOKEN':
      return actual?.toLowerCase().split(/\W+/).includes(value.toLowerCase()) ?? false;
  }
  if (actual === null) return filter.operator === 'NEQ';
  const c = compare(actual, value);
  switch (filter.operator) {
    case 'EQ':
      return c === 0;
    case 'NEQ':
      return c !== 0;
    case 'GT':
      return c > 0;
    case 'GTE':
      return c >= 0;
    case 'LT':
      return c < 0;
    case 'LTE':
      return c <= 0;
  }
  throw new Error(`unsupported operator ${filter.operator}`);
}

function isObject(o: FakeObject | Record<string, unknown>): o is FakeObject {
  return (
    typeof (o as FakeObject).id === 'string' &&
    typeof (o as FakeObject).properties === 'object' &&
    !('raw' in o)
  );
}

/** Starts the fake on a free loopback port. */
export async function startFakeHubspot(
  options: { token?: string; portalId?: number } = {},
): Promise<FakeHubspot> {
  const token = options.token ?? `pat-na1-${randomUUID()}`;
  const portalId = options.portalId ?? 4_242_424;
  const objects = new Map<string, Map<string, FakeObject | Record<string, unknown>>>(
    ['deals', 'contacts', 'companies', 'notes'].map((t) => [t, new Map()]),
  );
  const raws = new Map<string, Array<{ sortId: string; raw: Record<string, unknown> }>>();
  const requests: FakeHubspot['requests'] = [];
  const faults: Fault[] = [];
  let nextId = 1000;
  // Each type's objects in id order, kept while nothing was added (or the store cleared): the
  // sync's own query (ids above a cursor, in id order) then finds its page by binary search, as a
  // real search service answers from an index, instead of filtering and sorting 50,000 objects per
  // page in the benchmark's process, which shares the two cores with the r3 it measures.
  let added = 0;
  type IdOrder = { added: number; size: number; list: FakeObject[]; idsAreKeys: boolean };
  const idOrder = new Map<string, IdOrder>();
  function inIdOrder(type: string): IdOrder {
    const store = objects.get(type) ?? new Map();
    const kept = idOrder.get(type);
    if (kept && kept.added === added && kept.size === store.size) return kept;
    const list = [...store.values()].filter(isObject).sort((a, b) => compare(a.id, b.id));
    const idsAreKeys = list.every((o) => (o.properties.hs_object_id ?? o.id) === o.id);
    const made = { added, size: store.size, list, idsAreKeys };
    idOrder.set(type, made);
    return made;
  }

  /**
   * The sync's query (one filter, `hs_object_id GT x`, id order, no malformed items) answered from the
   * id order: the list and the index of its first match, or null for any other query.
   */
  function idsAbove(
    type: string,
    groups: Array<{ filters: Filter[] }>,
    sort?: { propertyName: string; direction?: string },
  ): { list: FakeObject[]; from: number } | null {
    const only = groups.length === 1 && groups[0]?.filters.length === 1 ? groups[0].filters[0] : undefined;
    if (only?.propertyName !== 'hs_object_id' || only.operator !== 'GT' || only.value === undefined)
      return null;
    if (sort && (sort.propertyName !== 'hs_object_id' || sort.direction === 'DESCENDING')) return null;
    if ((raws.get(type) ?? []).length > 0) return null;
    const { list, idsAreKeys } = inIdOrder(type);
    if (!idsAreKeys) return null;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare((list[mid] as FakeObject).id, only.value) > 0) hi = mid;
      else lo = mid + 1;
    }
    return { list, from: lo };
  }

  function add(
    type: string,
    properties: Record<string, string | null>,
    opts: { id?: string; updatedAt?: string } = {},
  ) {
    const id = opts.id ?? String(nextId++);
    const now = opts.updatedAt ?? new Date().toISOString();
    const modified = type === 'contacts' ? 'lastmodifieddate' : 'hs_lastmodifieddate';
    const object: FakeObject = {
      id,
      properties: { ...properties, hs_object_id: id, [modified]: String(Date.parse(now)), createdate: now },
      createdAt: now,
      updatedAt: now,
      archived: false,
    };
    objects.get(type)?.set(id, object);
    added++;
    return object;
  }

  function view(object: FakeObject, props: string[] | undefined, type: string) {
    const names = props && props.length > 0 ? props : (DEFAULT_PROPS[type] ?? []);
    const properties: Record<string, string | null> = {};
    for (const name of names) properties[name] = object.properties[name] ?? null;
    return {
      id: object.id,
      properties,
      createdAt: object.createdAt,
      updatedAt: object.updatedAt,
      archived: false,
    };
  }

  function search(type: string, body: Record<string, unknown>, res: http.ServerResponse): false | undefined {
    const limit = body.limit === undefined ? 10 : Number(body.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      return error(
        res,
        400,
        `limit must be between 1 and 200, got ${String(body.limit)}`,
        'VALIDATION_ERROR',
      );
    }
    const after = body.after === undefined ? 0 : Number(body.after);
    if (!Number.isInteger(after) || after < 0)
      return error(res, 400, 'after is not a valid paging token', 'VALIDATION_ERROR');
    if (after + limit > 10_000) {
      return error(
        res,
        400,
        'Search results are limited to 10,000 total results per query.',
        'VALIDATION_ERROR',
      );
    }
    const groups = (body.filterGroups as Array<{ filters: Filter[] }> | undefined) ?? [];
    const sort = (body.sorts as Array<{ propertyName: string; direction?: string }> | undefined)?.[0];
    const indexed = idsAbove(type, groups, sort);
    if (indexed) {
      const { list, from } = indexed;
      const items = list.slice(from + after, from + after + limit).map((object) => ({ object }));
      return answer(res, items, list.length - from, after, limit, body, type);
    }
    const all = [...(objects.get(type)?.values() ?? [])].filter(isObject);
    let found = all.filter(
      (o) => groups.length === 0 || groups.some((g) => (g.filters ?? []).every((f) => matches(o, f))),
    );
    const key = (o: FakeObject) => o.properties[sort?.propertyName ?? 'hs_object_id'] ?? o.id;
    const sign = sort?.direction === 'DESCENDING' ? -1 : 1;
    found = found.sort((a, b) => sign * compare(key(a), key(b)) || compare(a.id, b.id));
    // Raw (malformed) items take the place their sort id gives them among the matches.
    const rawItems = (raws.get(type) ?? []).filter((r) => {
      const min = groups[0]?.filters.find(
        (f) => f.propertyName === 'hs_object_id' && f.operator === 'GT',
      )?.value;
      return min === undefined || compare(r.sortId, min) > 0;
    });
    // Only the page's objects are rendered (a search over 50,000 objects stays cheap per page).
    const merged: Array<{ sortId: string; object?: FakeObject; raw?: unknown }> =
      rawItems.length === 0 && (sort === undefined || (sort.propertyName === 'hs_object_id' && sign === 1))
        ? found.map((o) => ({ sortId: o.id, object: o }))
        : [
            ...found.map((o) => ({ sortId: o.id, object: o })),
            ...rawItems.map((r) => ({ sortId: r.sortId, raw: r.raw })),
          ].sort((a, b) => compare(a.sortId, b.sortId));
    return answer(res, merged.slice(after, after + limit), merged.length, after, limit, body, type);
  }

  /** A search's answer: the page at `after` of `merged` (objects in order, or malformed items as stored). */
  /** A search's answer: one page (objects, or malformed items as stored) of `total` matches. */
  function answer(
    res: http.ServerResponse,
    items: ReadonlyArray<{ object?: FakeObject; raw?: unknown }>,
    total: number,
    after: number,
    limit: number,
    body: Record<string, unknown>,
    type: string,
  ): undefined {
    const page = items.map((m) =>
      m.object ? view(m.object, body.properties as string[] | undefined, type) : m.raw,
    );
    const found: Record<string, unknown> = { total, results: page };
    if (after + limit < total) {
      found.paging = { next: { after: String(after + limit), link: `?after=${after + limit}` } };
    }
    res.writeHead(200, { 'content-type': 'application/json;charset=utf-8' });
    res.end(JSON.stringify(found));
    return undefined;
  }

  async function handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    text: string,
  ): Promise<false | undefined> {
    const url = new URL(req.url ?? '/', 'http://fake');
    let body: Record<string, unknown> = {};
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        return error(res, 400, 'Invalid input JSON on line 1', 'VALIDATION_ERROR');
      }
    }
    requests.push({ method: req.method ?? 'GET', path: url.pathname, body });
    const fault = faults.shift();
    if (fault && 'delayMs' in fault) await new Promise((r) => setTimeout(r, fault.delayMs));
    else if (fault && 'applyThenHang' in fault) {
      // Handled below as usual, but what it writes goes nowhere: the client waits until it gives up.
      res.writeHead = (() => res) as never;
      res.end = (() => res) as never;
    } else if (fault) {
      res.writeHead(fault.status, {
        'content-type': 'application/json;charset=utf-8',
        ...(fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {}),
      });
      res.end(
        JSON.stringify(
          fault.body ??
            (fault.status === 429
              ? {
                  status: 'error',
                  message: 'You have reached your secondly limit.',
                  errorType: 'RATE_LIMIT',
                  policyName: 'SECONDLY',
                }
              : { status: 'error', message: 'internal error', category: 'INTERNAL_ERROR' }),
        ),
      );
      return;
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      return error(
        res,
        401,
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
        'INVALID_AUTHENTICATION',
      );
    }
    if (req.method === 'GET' && url.pathname === '/account-info/v3/details') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ portalId, accountType: 'STANDARD', timeZone: 'UTC', companyCurrency: 'USD' }));
      return;
    }
    const m = /^\/crm\/v3\/objects\/([a-z_]+)(?:\/([^/]+))?$/.exec(url.pathname);
    const type = m?.[1];
    const store = type ? objects.get(type) : undefined;
    if (!m || !type || !store) return error(res, 404, `No route ${url.pathname}`, 'OBJECT_NOT_FOUND');
    const id = m[2];
    if (req.method === 'POST' && id === 'search') return search(type, body, res);
    if (req.method === 'GET' && id) {
      const object = store.get(decodeURIComponent(id));
      if (!object || !isObject(object))
        return error(res, 404, 'Object not found.  objectId are usually numeric.', 'OBJECT_NOT_FOUND');
      const props = url.searchParams.get('properties')?.split(',').filter(Boolean);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(view(object, props, type)));
      return;
    }
    if (req.method === 'PATCH' && id) {
      const object = store.get(id);
      if (!object || !isObject(object))
        return error(res, 404, 'Object not found.  objectId are usually numeric.', 'OBJECT_NOT_FOUND');
      const props = (body.properties ?? {}) as Record<string, string>;
      const now = new Date().toISOString();
      Object.assign(object.properties, props, { hs_lastmodifieddate: String(Date.parse(now)) });
      object.updatedAt = now;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(view(object, Object.keys(props), type)));
      return;
    }
    if (req.method === 'POST' && !id) {
      const created = add(type, (body.properties ?? {}) as Record<string, string>);
      created.associations = (body.associations as FakeObject['associations']) ?? [];
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify(view(created, Object.keys(created.properties), type)));
      return;
    }
    error(res, 405, 'Method not allowed', 'VALIDATION_ERROR');
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    portalId,
    objects,
    requests,
    add,
    addRaw(type, sortId, raw) {
      const list = raws.get(type) ?? [];
      list.push({ sortId, raw });
      raws.set(type, list);
    },
    fault(fault, count = 1) {
      for (let i = 0; i < count; i++) faults.push(fault);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
