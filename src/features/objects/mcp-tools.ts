/**
 * Data tools: object instances (`objects_list`, `objects_get`), object types (`object_types_list`) and
 * hybrid search (`search_query`), through the services behind `GET /api/v1/objects*` and
 * `GET /api/v1/search`.
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { notFound } from '../../platform/errors.js';
import { defineTool, READ_ONLY, type ToolDef } from '../../platform/mcp/tool.js';
import { type ObjectTypeView, objectTypeViewSchema, slugSchema } from '../workspace/index.js';
import { MAX_SEARCH_LIMIT } from './search/search-service.js';
import type { ObjectServices } from './services.js';
import { objectDetailSchema, objectViewSchema, searchResultSchema } from './view-schemas.js';

/** The data tools over `s`. */
export function dataTools(s: Pick<ObjectServices, 'objects' | 'search' | 'resources'>): ToolDef[] {
  return [
    defineTool({
      name: 'objects_list',
      title: 'List object instances',
      group: 'data',
      description:
        'Object instances of the organization, newest first, optionally of one type (its slug). ' +
        'Answers {objects}; objects_get gives one with its content and linked documents.',
      input: z.strictObject({
        type: slugSchema.optional().describe('Only instances of this object type.'),
        limit: z.number().int().min(1).max(200).default(50).describe('At most this many (default 50).'),
      }),
      output: z.object({ objects: z.array(objectViewSchema) }),
      access: access.read,
      hints: READ_ONLY,
      async run({ type, limit }, { principal }) {
        const page = await s.objects.list(principal.orgId, { type }, { limit });
        return { objects: page.items };
      },
    }),
    defineTool({
      name: 'objects_get',
      title: 'Get an object instance',
      group: 'data',
      description: 'One object instance with its metadata, content, url and linked documents.',
      input: z.strictObject({ id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }),
      output: objectDetailSchema,
      access: access.read,
      hints: READ_ONLY,
      async run({ id }, { principal }) {
        const detail = await s.objects.get(principal.orgId, id);
        if (!detail) throw notFound('object', id);
        return detail;
      },
    }),
    defineTool({
      name: 'object_types_list',
      title: 'List object types',
      group: 'data',
      description:
        'Every object type of the organization with its metadata JSON Schema and search language. ' +
        'Answers {objectTypes}.',
      input: z.strictObject({}),
      output: z.object({ objectTypes: z.array(objectTypeViewSchema) }),
      access: access.read,
      hints: READ_ONLY,
      async run(_args, { principal }) {
        const objectTypes: ObjectTypeView[] = [];
        let after: string | undefined;
        do {
          const page = await s.resources.listObjectTypes(principal.orgId, { limit: 200, after });
          objectTypes.push(...page.items);
          after = page.nextAfter ?? undefined;
        } while (after !== undefined);
        return { objectTypes };
      },
    }),
    defineTool({
      name: 'search_query',
      title: 'Search',
      group: 'data',
      description:
        'Hybrid (full-text and vector) search over the organization’s object instances, optionally of ' +
        'some types. Answers {results: [{id, type, title, snippet, score, url}]}, best first; snippets ' +
        'mark matches with **.',
      input: z.strictObject({
        query: z.string().max(1_000).regex(/\S/, 'must not be blank'),
        types: z.array(slugSchema).max(50).optional().describe('Only instances of these object types.'),
        limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe('Default 10.'),
      }),
      output: z.object({ results: z.array(searchResultSchema) }),
      access: access.read,
      hints: READ_ONLY,
      run: ({ query, types, limit }, { principal }) =>
        s.search.search(principal.orgId, query, { types, limit }),
    }),
  ];
}
