/**
 * `get_crm_deals`, `get_crm_contacts`, `get_crm_companies` (docs/mcp.md#domain-tools): the synced HubSpot
 * records of the crm sources the call may use (each source's `sync.objectTypes.<record>` type), filtered,
 * sorted and paged in PostgreSQL with the exact total over the filter and facet counts.
 */
import { z } from 'zod';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import type { RecordQueries, RecordScope } from '../objects/index.js';
import { type ActingAgents, DOMAIN_READ } from './acting-agent.js';

const PROPERTY = /^[A-Za-z0-9_.:-]{1,100}$/;
const propertyName = z
  .string()
  .regex(PROPERTY, 'must be a property name (letters, digits, _ . : -; at most 100 characters)');
const scalar = z.union([z.string().max(1_000), z.number(), z.boolean()]);

const crmArgs = z.strictObject({
  filter: z
    .record(propertyName, z.union([scalar, z.null(), z.array(scalar).min(1).max(100)]))
    .refine((f) => Object.keys(f).length <= 20, 'at most 20 properties')
    .optional()
    .describe(
      'Records whose properties equal these values ({"dealstage": "closedwon"}; numbers compare as their ' +
        'text), are missing (null), or are any of a list (["a", "b"]). All must hold.',
    ),
  sort: z
    .string()
    .regex(/^-?[A-Za-z0-9_.:-]{1,100}$/, 'must be a property name, prefixed with - for descending')
    .optional()
    .describe(
      'A property to sort by, ascending; "-amount" for descending. Numbers sort as numbers, then text, ' +
        'then records without the property. Default: the order records were first synced.',
    ),
  limit: z.number().int().min(1).max(100).default(20).describe('Records per page (default 20, max 100).'),
  cursor: z
    .string()
    .max(2_000)
    .optional()
    .describe('The nextCursor of the previous page (same filter and sort).'),
  facets: z
    .array(propertyName)
    .max(10)
    .optional()
    .describe('Properties to count values of over the whole filter: {<property>: {<value>: count}}.'),
});

const crmResult = z.object({
  items: z.array(
    z.object({ id: z.number().int(), externalId: z.string(), properties: z.record(z.string(), z.unknown()) }),
  ),
  total: z.number().int(),
  facets: z.record(z.string(), z.record(z.string(), z.number().int())),
  nextCursor: z.string().nullable(),
});

const RECORDS = [
  { name: 'get_crm_deals', record: 'deal', plural: 'deals' },
  { name: 'get_crm_contacts', record: 'contact', plural: 'contacts' },
  { name: 'get_crm_companies', record: 'company', plural: 'companies' },
] as const;

/** The three CRM tools. */
export function crmTools(deps: { acting: ActingAgents; records: RecordQueries }): AgentToolDef[] {
  return RECORDS.map(({ name, record, plural }) =>
    defineAgentTool({
      name,
      title: `CRM ${plural}`,
      group: 'domain',
      description:
        `The CRM's ${plural} (HubSpot properties as synced), filtered, sorted and paged. Answers ` +
        '{items: [{id, externalId, properties}], total (exact, over the filter), facets, nextCursor}; ' +
        'pass nextCursor back as cursor for the next page. Reads the crm sources of the agent.',
      args: crmArgs,
      result: crmResult,
      ...DOMAIN_READ,
      async execute(args, call) {
        const acting = await deps.acting.resolve(call, name);
        const scopes: RecordScope[] = deps.acting.ofKind(acting, 'crm', name).flatMap((source) => {
          const type = source.sync?.objectTypes[record];
          return type ? [{ source: source.slug, type }] : [];
        });
        const sort = args.sort
          ? { property: args.sort.replace(/^-/, ''), descending: args.sort.startsWith('-') }
          : null;
        return deps.records.page(acting.orgId, scopes, {
          filter: args.filter ?? {},
          sort,
          limit: args.limit,
          cursor: args.cursor ?? null,
          facets: args.facets ?? [],
        });
      },
    }),
  );
}
