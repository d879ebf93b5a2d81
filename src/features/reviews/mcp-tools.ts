/**
 * The review queue's MCP tools: `review_decide_batch`, the batch of `POST /reviews/decide-batch`
 * through the same choke point (decisions.ts), with the caller's principal: the approve capability,
 * revisions, all or nothing.
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { bodyFieldsAsArguments, defineTool, type ToolDef } from '../../platform/mcp/tool.js';
import type { ReviewDecisions } from './decisions.js';
import { reviewDecideBatchBodySchema } from './routes.js';

/** The review tools over the choke point `decisions`. */
export function reviewTools(decisions: ReviewDecisions): ToolDef[] {
  return [
    defineTool({
      name: 'review_decide_batch',
      title: 'Decide review items in a batch',
      group: 'runtime',
      description:
        'Approves or rejects 1–100 review items ({kind, id, revision?} each; kind skill, workflow, mission ' +
        'or action) at once, all or nothing: when any is unknown, stale (its revision is not current) or ' +
        'no longer open, nothing is decided and the answer is CONFLICT with details.items [{kind, id, ' +
        'reason}]. delaySeconds (0–30) holds the decisions that long (status deciding; POST /reviews/undo ' +
        'withdraws one). Needs the approve capability. Answers {ok, decided}.',
      input: reviewDecideBatchBodySchema,
      output: z.object({ ok: z.literal(true), decided: z.number().int() }),
      access: access.approve,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      async run(args, ctx) {
        try {
          const decided = await decisions.decideBatch(ctx.principal, { ...args, requestId: ctx.requestId });
          return { ok: true as const, decided };
        } catch (error) {
          throw bodyFieldsAsArguments(error);
        }
      },
    }),
  ];
}
