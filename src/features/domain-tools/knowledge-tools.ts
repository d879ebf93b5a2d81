/**
 * The domain tools over what r3 holds of the agent's sources (docs/mcp.md#domain-tools):
 *
 * - `search_knowledge {query, limit?}`: hybrid search (objects' search service) over the instances of
 *   the agent's sources, each source's retrieval weights applied.
 * - `lookup_objects {type?, ids?, externalIds?, query?}`: instances by id or external id, or found by
 *   a query, optionally of one type; with none of them, the newest.
 * - `briefings {since?}`: what changed in the agent's sources since then (default: the last 24
 *   hours): created/updated counts per object type and the most recently changed instances.
 */
import { z } from 'zod';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import type { Clock } from '../../platform/util/clock.js';
import {
  type RecordQueries,
  type SearchService,
  type StoredRecord,
  searchResultSchema,
} from '../objects/index.js';
import { slugSchema } from '../workspace/index.js';
import { type ActingAgents, DOMAIN_READ } from './acting-agent.js';

/** What the knowledge tools use. */
export interface KnowledgeToolDeps {
  acting: ActingAgents;
  records: RecordQueries;
  search: SearchService;
  clock: Clock;
  baseUrl: () => string;
}

/** Instances `lookup_objects` answers at most. */
const LOOKUP_LIMIT = 50;
/** Characters of content `lookup_objects` shows per instance. */
const CONTENT_CHARS = 4_000;
/** Instances a briefing lists. */
const BRIEFING_TOP = 10;
const DAY_MS = 86_400_000;

const searchResult = z.object({ results: z.array(searchResultSchema) });

const objectSchema = z.object({
  id: z.number().int(),
  type: z.string(),
  source: z.string().nullable(),
  externalId: z.string().nullable(),
  title: z.string(),
  content: z.string(),
  truncated: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
  updatedAt: z.string(),
  url: z.string(),
});

/** The three knowledge tools. */
export function knowledgeTools(deps: KnowledgeToolDeps): AgentToolDef[] {
  const { acting, records, search } = deps;
  const url = (id: number) => `${deps.baseUrl()}/api/v1/objects/${id}`;
  const view = (r: StoredRecord) => ({
    id: r.id,
    type: r.type,
    source: r.source,
    externalId: r.externalId,
    title: r.title,
    content: r.content.slice(0, CONTENT_CHARS),
    truncated: r.content.length > CONTENT_CHARS,
    metadata: r.metadata,
    updatedAt: r.updatedAt,
    url: url(r.id),
  });
  return [
    defineAgentTool({
      name: 'search_knowledge',
      title: 'Search the agent’s knowledge',
      group: 'domain',
      description:
        'Hybrid (full-text and vector) search over what r3 holds of the agent’s sources (CRM records, ' +
        'mail threads, meeting transcripts, documents), weighted by each source’s retrieval settings. ' +
        'Answers {results: [{id, type, title, snippet, score, url}]}, best first.',
      args: z.strictObject({
        query: z.string().max(1_000).regex(/\S/, 'must not be blank'),
        limit: z.number().int().min(1).max(100).optional().describe('Default 10.'),
      }),
      result: searchResult,
      ...DOMAIN_READ,
      async execute({ query, limit }, call) {
        const scope = await acting.resolve(call, 'search_knowledge');
        const sources = acting.any(scope, 'search_knowledge');
        return search.search(scope.orgId, query, { limit, ...(sources ? { sources } : {}) });
      },
    }),
    defineAgentTool({
      name: 'lookup_objects',
      title: 'Look up objects',
      group: 'domain',
      description:
        'Object instances of the agent’s sources by `ids` and/or `externalIds` (upstream ids), or found ' +
        'by `query`, optionally only of object type `type`; with none of these, the newest. Answers ' +
        `{objects: [{id, type, source, externalId, title, content, truncated, metadata, updatedAt, url}]} ` +
        `(at most ${LOOKUP_LIMIT}; content cut at ${CONTENT_CHARS} characters).`,
      args: z.strictObject({
        type: slugSchema.optional().describe('Only instances of this object type.'),
        ids: z
          .array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER))
          .min(1)
          .max(LOOKUP_LIMIT)
          .optional(),
        externalIds: z.array(z.string().min(1).max(1_000)).min(1).max(LOOKUP_LIMIT).optional(),
        query: z.string().max(1_000).regex(/\S/, 'must not be blank').optional(),
      }),
      result: z.object({ objects: z.array(objectSchema) }),
      ...DOMAIN_READ,
      async execute(args, call) {
        const scope = await acting.resolve(call, 'lookup_objects');
        const sources = acting.any(scope, 'lookup_objects');
        if (args.query !== undefined) {
          const found = await search.search(scope.orgId, args.query, {
            limit: LOOKUP_LIMIT,
            ...(args.type ? { types: [args.type] } : {}),
            ...(sources ? { sources } : {}),
          });
          const ids = found.results.map((r) => r.id);
          const wanted = (r: StoredRecord) =>
            (args.ids === undefined && args.externalIds === undefined) ||
            args.ids?.includes(r.id) ||
            (r.externalId !== null && args.externalIds?.includes(r.externalId));
          const byId = new Map(
            (await records.lookup(scope.orgId, sources, { ids }, LOOKUP_LIMIT)).map((r) => [r.id, r]),
          );
          return {
            objects: ids.flatMap((id) => {
              const r = byId.get(id);
              return r && wanted(r) ? [view(r)] : [];
            }),
          };
        }
        const found = await records.lookup(
          scope.orgId,
          sources,
          {
            type: args.type,
            ...(args.ids ? { ids: args.ids } : {}),
            ...(args.externalIds ? { externalIds: args.externalIds } : {}),
          },
          LOOKUP_LIMIT,
        );
        return { objects: found.map(view) };
      },
    }),
    defineAgentTool({
      name: 'briefings',
      title: 'What changed',
      group: 'domain',
      description:
        'What changed in the agent’s sources since `since` (ISO time; default 24 hours ago): ' +
        '{since, until, counts: {<object type>: {created, updated}}, top: [the most recently changed ' +
        `instances, at most ${BRIEFING_TOP}, each with change "created"|"updated"]}.`,
      args: z.strictObject({
        since: z.iso.datetime({ offset: true }).optional().describe('ISO 8601 time (default: 24 hours ago).'),
      }),
      result: z.object({
        since: z.string(),
        until: z.string(),
        counts: z.record(z.string(), z.object({ created: z.number().int(), updated: z.number().int() })),
        top: z.array(
          z.object({
            id: z.number().int(),
            type: z.string(),
            source: z.string().nullable(),
            externalId: z.string().nullable(),
            title: z.string(),
            change: z.enum(['created', 'updated']),
            updatedAt: z.string(),
            url: z.string(),
          }),
        ),
      }),
      ...DOMAIN_READ,
      async execute(args, call) {
        const scope = await acting.resolve(call, 'briefings');
        const sources = acting.any(scope, 'briefings');
        const until = deps.clock.now();
        const since = args.since ? new Date(args.since) : new Date(until - DAY_MS);
        const changes = await records.changes(scope.orgId, sources, since, BRIEFING_TOP);
        return {
          since: since.toISOString(),
          until: new Date(until).toISOString(),
          counts: Object.fromEntries(
            changes.counts.map((c) => [c.type, { created: c.created, updated: c.updated }]),
          ),
          top: changes.items.map((r) => ({
            id: r.id,
            type: r.type,
            source: r.source,
            externalId: r.externalId,
            title: r.title,
            change: r.change,
            updatedAt: r.updatedAt,
            url: url(r.id),
          })),
        };
      },
    }),
  ];
}
