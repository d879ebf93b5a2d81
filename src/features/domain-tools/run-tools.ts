/**
 * The domain tools over the agent's own runs (docs/mcp.md#domain-tools):
 *
 * - `run_operation {operation, input}`: starts a run of a skill or workflow wired to the agent
 *   (`skillSlugs`/`workflowSlugs`; `skill:<slug>` or `workflow:<slug>` when a slug names both) as the
 *   agent (its `agentSlug`), attributed to the caller; in a run, deduplicated by the call's key.
 * - `learnings {topic?}`: what reviewers told the agent (runs' learnings.ts), newest first.
 * - `run_history {skillSlug?, status?, limit?}`: the agent's runs, newest first.
 *
 * Without an agent, `learnings` and `run_history` read the whole organization; `run_operation` needs
 * one (FORBIDDEN).
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { forbidden } from '../../platform/errors.js';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import { RUN_STATUS_FILTERS, type RunService } from '../runs/index.js';
import { slugSchema } from '../workspace/index.js';
import { type ActingAgents, DOMAIN_READ } from './acting-agent.js';

/** Learnings a call answers at most. */
const LEARNINGS_LIMIT = 50;

/** The three run tools. */
export function runTools(deps: { acting: ActingAgents; runs: RunService }): AgentToolDef[] {
  const { acting, runs } = deps;
  return [
    defineAgentTool({
      name: 'run_operation',
      title: 'Run an operation',
      group: 'domain',
      description:
        'Starts a run of a skill or workflow wired to the agent (its skillSlugs or workflowSlugs), as the ' +
        'agent, with `input`. `operation` is the slug, or skill:<slug> / workflow:<slug>. Answers ' +
        '{runId, status}; run_history and GET /runs/:id follow it.',
      args: z.strictObject({
        operation: z
          .string()
          .regex(
            /^((skill|workflow):)?[a-z0-9][a-z0-9-]{0,62}$/,
            'must be a slug, skill:<slug> or workflow:<slug>',
          )
          .describe('The skill or workflow slug (skill:<slug> or workflow:<slug> to choose).'),
        input: z
          .record(z.string(), z.unknown())
          .describe('The run input (the skill’s or workflow’s input schema).'),
      }),
      result: z.object({ runId: z.number().int(), status: z.string() }),
      idempotency: 'keyed',
      uses: ['run', 'mcp'],
      access: access.invoke,
      agentScoped: true,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async execute(args, call) {
        const scope = await acting.resolve(call, 'run_operation');
        const agent = scope.agent;
        if (!agent) {
          throw forbidden(
            'run_operation acts for an agent: give agent_slug (over MCP) or run it in an agent’s run.',
            {
              tool: 'run_operation',
              reason: 'no_agent',
            },
          );
        }
        const [prefix, named] = args.operation.includes(':')
          ? (args.operation.split(':') as ['skill' | 'workflow', string])
          : [null, args.operation];
        const kind =
          prefix ??
          (agent.skillSlugs.includes(named)
            ? 'skill'
            : agent.workflowSlugs.includes(named)
              ? 'workflow'
              : null);
        const wired =
          kind === 'skill'
            ? agent.skillSlugs.includes(named)
            : kind === 'workflow' && agent.workflowSlugs.includes(named);
        if (!kind || !wired) {
          throw forbidden(`Agent "${agent.slug}" has no ${kind ?? 'skill or workflow'} "${named}" wired.`, {
            agentSlug: agent.slug,
            tool: 'run_operation',
            reason: 'operation_not_wired',
            operation: args.operation,
          });
        }
        const { answer } = await runs.trigger(
          { orgId: call.orgId, actor: call.actor, tokenId: call.apiTokenId },
          kind,
          named,
          {
            input: args.input,
            agentSlug: agent.slug,
            ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
          },
          { method: 'POST', path: `/api/v1/${kind}s/${named}/runs`, requestId: call.requestId },
        );
        return { runId: answer.runId, status: answer.status };
      },
    }),
    defineAgentTool({
      name: 'learnings',
      title: 'What reviewers said',
      group: 'domain',
      description:
        'What reviewers told this agent, newest first: reject reasons, approve notes and the notes of ' +
        'down-rated runs, optionally about `topic` (matched in the note and the skill’s slug or name). ' +
        `Answers {learnings: [{kind: "rejected"|"approved"|"down_rated", runId, runKind, slug, name, note, by, at}]} (at most ${LEARNINGS_LIMIT}).`,
      args: z.strictObject({
        topic: z.string().min(1).max(200).regex(/\S/, 'must not be blank').optional(),
      }),
      result: z.object({
        learnings: z.array(
          z.object({
            kind: z.enum(['rejected', 'approved', 'down_rated']),
            runId: z.number().int(),
            runKind: z.enum(['skill', 'workflow']),
            slug: z.string(),
            name: z.string(),
            note: z.string().nullable(),
            by: z.string().nullable(),
            at: z.string(),
          }),
        ),
      }),
      ...DOMAIN_READ,
      async execute(args, call) {
        const scope = await acting.resolve(call, 'learnings');
        const learnings = await runs.learnings(
          scope.orgId,
          scope.agent?.slug ?? null,
          args.topic?.trim() ?? null,
          LEARNINGS_LIMIT,
        );
        return { learnings };
      },
    }),
    defineAgentTool({
      name: 'run_history',
      title: 'Run history',
      group: 'domain',
      description:
        'The agent’s runs, newest first, optionally of one skill and/or in one status (auto: skill runs ' +
        'that never needed review). Answers {runs: [{runId, kind, slug, status, reviewState, rating, ' +
        'feedbackNote, error, createdAt, completedAt}]}.',
      args: z.strictObject({
        skillSlug: slugSchema.optional(),
        status: z.enum(RUN_STATUS_FILTERS).optional(),
        limit: z.number().int().min(1).max(100).default(20).describe('Default 20, max 100.'),
      }),
      result: z.object({
        runs: z.array(
          z.object({
            runId: z.number().int(),
            kind: z.enum(['skill', 'workflow']),
            slug: z.string(),
            status: z.string(),
            reviewState: z.string().nullable(),
            rating: z.enum(['up', 'down']).nullable(),
            feedbackNote: z.string().nullable(),
            error: z.unknown(),
            createdAt: z.string(),
            completedAt: z.string().nullable(),
          }),
        ),
      }),
      ...DOMAIN_READ,
      async execute(args, call) {
        const scope = await acting.resolve(call, 'run_history');
        const page = await runs.list(
          { orgId: scope.orgId },
          {
            limit: args.limit,
            ...(scope.agent ? { agentSlug: scope.agent.slug } : {}),
            ...(args.skillSlug ? { skillSlug: args.skillSlug } : {}),
            ...(args.status ? { status: args.status } : {}),
          },
        );
        return {
          runs: page.runs.map((r) => ({
            runId: r.id,
            kind: r.kind,
            slug: r.slug,
            status: r.status,
            reviewState: r.reviewState,
            rating: r.rating,
            feedbackNote: r.feedbackNote,
            error: r.error,
            createdAt: r.createdAt,
            completedAt: r.completedAt,
          })),
        };
      },
    }),
  ];
}
