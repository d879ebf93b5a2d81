/**
 * MCP resources (docs/mcp.md#resources): `resources/list`, `resources/templates/list` and
 * `resources/read` over what features register as resource sources. A source owns one collection of
 * `r3://<collection>/<key>` URIs (`r3://skills/<slug>`, `r3://artifacts/<id>`): it lists them
 * (optional: the runs are only a template, `r3://runs/{id}`) and reads one, always for the caller's
 * org — another org's resource, like an unknown one, is MCP's resource-not-found error.
 * Listing pages through the sources (paging.ts).
 */
import type {
  ReadResourceResult,
  Resource,
  ResourceLink,
  ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { type Access, authorize, permits } from '../auth/guard.js';
import type { Principal } from '../auth/principal.js';
import { ApiError } from '../errors.js';
import { pageThrough, type SourcePage } from './paging.js';
import { resourceNotFound } from './protocol-errors.js';

/** The scheme of r3's resource URIs. */
export const R3_SCHEME = 'r3://';

/** The URI of `key` in `collection`: `r3://<collection>/<key>`. */
export function resourceUri(collection: string, key: string | number): string {
  return `${R3_SCHEME}${collection}/${key}`;
}

/** The URI of an artifact (what tools that make one link to). */
export function artifactUri(id: number): string {
  return resourceUri('artifacts', id);
}

/** A `resource_link` content item to artifact `id` (tool results that make one carry it). */
export function artifactLink(id: number, name: string, mimeType?: string, size?: number): ResourceLink {
  return {
    type: 'resource_link',
    uri: artifactUri(id),
    name,
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(size === undefined ? {} : { size }),
  };
}

/** One page of a source's listing, and the key to continue after (null: the end). */
export type ResourcePage = SourcePage<Resource>;

/** What a read answers: one or more contents, each with its own URI. */
export type ResourceContents = ReadResourceResult['contents'];

/** A collection of resources a feature serves (`platform.mcp.addResources`). */
export interface ResourceSource {
  /** The first segment of its URIs (`skills` for `r3://skills/<slug>`). */
  collection: string;
  /** The REST access rule of the same read; a caller without it sees none of the collection. */
  access: Access;
  /** Its resources after `after` (a key of a previous page), in a stable order; absent: not listed. */
  list?(principal: Principal, page: { limit: number; after?: string | undefined }): Promise<ResourcePage>;
  /** Its URI template, for a collection that is not listed (`r3://runs/{id}`). */
  template?: Omit<ResourceTemplate, 'uriTemplate'>;
  /** The contents of `key` in the caller's org; null when there is none (unknown, or another org's). */
  read(principal: Principal, key: string): Promise<ResourceContents | null>;
}

/** The resources of one process, as the protocol methods answer them. */
export interface ResourceCatalog {
  /** Whether any source is registered (the `resources` capability is advertised only then). */
  readonly any: boolean;
  list(
    principal: Principal,
    cursor: string | undefined,
  ): Promise<{ resources: Resource[]; nextCursor?: string }>;
  templates(principal: Principal): { resourceTemplates: ResourceTemplate[] };
  read(principal: Principal, uri: string): Promise<ReadResourceResult>;
}

/** Resources per `resources/list` page. */
export const RESOURCE_PAGE = 100;

/** Builds the catalog of `sources`; throws when two serve one collection. */
export function createResourceCatalog(sources: readonly ResourceSource[]): ResourceCatalog {
  const byCollection = new Map<string, ResourceSource>();
  for (const source of sources) {
    if (byCollection.has(source.collection)) {
      throw new Error(`MCP resource collection ${source.collection} registered twice`);
    }
    byCollection.set(source.collection, source);
  }
  const readable = (principal: Principal, source: ResourceSource) => permits(principal, source.access);
  return {
    any: sources.length > 0,
    async list(principal, cursor) {
      const page = await pageThrough(sources, cursor, RESOURCE_PAGE, (source, at) =>
        source.list && readable(principal, source) ? source.list(principal, at) : null,
      );
      return page.nextCursor
        ? { resources: page.items, nextCursor: page.nextCursor }
        : { resources: page.items };
    },
    templates(principal) {
      return {
        resourceTemplates: sources.flatMap((source) =>
          source.template && readable(principal, source)
            ? [{ uriTemplate: `${R3_SCHEME}${source.collection}/{id}`, ...source.template }]
            : [],
        ),
      };
    },
    async read(principal, uri) {
      if (!uri.startsWith(R3_SCHEME)) throw resourceNotFound(uri);
      const rest = uri.slice(R3_SCHEME.length);
      const slash = rest.indexOf('/');
      const source = slash > 0 ? byCollection.get(rest.slice(0, slash)) : undefined;
      const key = rest.slice(slash + 1);
      if (!source || key === '') throw resourceNotFound(uri);
      authorize(principal, source.access);
      let contents: ResourceContents | null;
      try {
        contents = await source.read(principal, key);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'NOT_FOUND') throw resourceNotFound(uri);
        throw error;
      }
      if (!contents) throw resourceNotFound(uri);
      return { contents };
    },
  };
}

/** Whether content of `mediaType` is text (read as `text`) rather than bytes (read as base64 `blob`). */
export function isTextMediaType(mediaType: string): boolean {
  const type = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    type.endsWith('+json') ||
    type.endsWith('+xml') ||
    type.endsWith('+yaml') ||
    ['application/json', 'application/xml', 'application/yaml', 'application/x-yaml'].includes(type) ||
    type === 'application/javascript' ||
    type === 'application/x-ndjson'
  );
}
