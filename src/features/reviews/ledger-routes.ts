/** `GET /api/v1/audit/reviews` (read:all): the caller's org's decision ledger, in chain order. */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { encodeCursor, idCursorSchema, limitSchema } from '../../platform/http/pagination.js';
import { ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { LEDGER_EVENTS, type ReviewLedger } from './ledger.js';
import { REVIEW_KINDS } from './subjects.js';

/** Query of `GET /audit/reviews`: `kind` and `id` name one item's entries (either alone filters too). */
const ledgerQuerySchema = z.object({
  kind: z.enum(REVIEW_KINDS).optional(),
  id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  limit: limitSchema,
  cursor: idCursorSchema.optional(),
});

const ledgerEntrySchema = z
  .object({
    seq: z.number().int(),
    at: z.iso.datetime(),
    kind: z.enum(REVIEW_KINDS),
    id: z.number().int(),
    event: z.enum(LEDGER_EVENTS),
    by: z.string(),
    details: z.record(z.string(), z.unknown()),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ description: 'A decision ledger entry; hash = SHA-256 of its canonical JSON without hash.' });

export function ledgerRoutes(ledger: ReviewLedger): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/audit/reviews',
      access: access.read,
      query: ledgerQuerySchema,
      summary:
        'The decision ledger of the caller’s org, oldest first: every review event as a hash chain; kind=, id= filter; {entries, nextCursor}.',
      responses: {
        200: {
          description: 'A page of the ledger.',
          schema: z.object({ entries: z.array(ledgerEntrySchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, query }) => {
        const page = await ledger.list(principal.orgId, {
          kind: query.kind,
          id: query.id,
          limit: query.limit,
          after: query.cursor,
        });
        return ok({ entries: page.entries, nextCursor: page.next === null ? null : encodeCursor(page.next) });
      },
    }),
  ];
}
