/**
 * `propose_action {action, params, rationale, source?, agent_slug?}` (docs/api.md#proposals): proposes a
 * connector write for a human to approve, and never executes it — in a run's tool loop and over MCP
 * alike. It answers `{proposalId, status: "pending"}`; the proposal waits in the review queue as an
 * item of kind `action`.
 *
 * The agent it acts as (`call.agentSlug`): a run's agent inside a run, the `agent_slug` argument
 * over MCP, or none (an MCP call without `agent_slug`, a run without agent). An agent
 * must exist, be active, not deny the tool and list the executing source in `sourceSlugs`, checked
 * at every call by the domain tools' `ActingAgents` (FORBIDDEN with `details.reason`).
 *
 * The executing source: `source` when given (NOT_FOUND when the org has none of that slug,
 * VALIDATION_FAILED when it is of another kind than the action's); otherwise the one source of that
 * kind the agent lists (without an agent: the one the org has). None or several without `source`:
 * VALIDATION_FAILED naming `arguments.source` (FORBIDDEN for an agent that lists none).
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { validationFailed } from '../../platform/errors.js';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import { ACTION_NAMES, ACTIONS, type ActionName, actionKind, parseAction } from '../connectors/index.js';
import type { Acting, ActingAgents } from '../domain-tools/index.js';
import type { ProposalService } from './service.js';

/** The tool's name. */
export const PROPOSE_ACTION = 'propose_action';

const slug = z.string().min(1).max(200);

/** Arguments of `propose_action`. */
export const proposeActionArgs = z.strictObject({
  action: z
    .enum(ACTION_NAMES)
    .describe(
      'The write to propose: crm.update_deal {dealId, properties}, crm.create_note {body, dealId? | contactId? | ' +
        'companyId?}, mail.send {to, subject, text, inReplyTo?}.',
    ),
  params: z
    .record(z.string(), z.unknown())
    .describe("The action's params (validated against the action's schema)."),
  rationale: z
    .string()
    .trim()
    .min(1)
    .max(10_000)
    .describe('Why: shown to the reviewer who approves or rejects it.'),
  source: slug
    .optional()
    .describe(
      "The slug of the source whose connector executes it (a source of the action's kind). Default: the agent's " +
        'only source of that kind.',
    ),
});

/** What `propose_action` answers. */
export const proposeActionResult = z.object({
  proposalId: z.number().int().positive(),
  status: z.literal('pending'),
});

export interface ProposeToolDeps {
  proposals: ProposalService;
  /** The domain tools' agent checks (the same at every call of every domain tool). */
  acting: ActingAgents;
}

/** The slug of the source that executes `action` for this call (see the file comment). */
function sourceOf(acting: ActingAgents, who: Acting, action: ActionName, given: string | undefined): string {
  const kind = actionKind(action);
  if (given !== undefined) {
    const source = acting.named(who, given, PROPOSE_ACTION);
    if (source.kind !== kind) {
      throw validationFailed([
        {
          field: 'arguments.source',
          message: `"${given}" is a ${source.kind} source; ${action} needs a ${kind} source`,
        },
      ]);
    }
    return given;
  }
  const candidates = acting.ofKind(who, kind, PROPOSE_ACTION).map((s) => s.slug);
  if (candidates.length === 0) {
    throw validationFailed([
      { field: 'arguments.source', message: `this organization has no ${kind} source to execute ${action}` },
    ]);
  }
  if (candidates.length > 1) {
    throw validationFailed([
      {
        field: 'arguments.source',
        message: `name the ${kind} source that executes it: one of ${candidates.sort().join(', ')}`,
      },
    ]);
  }
  return candidates[0] as string;
}

/** The `propose_action` tool. */
export function proposeActionTool(deps: ProposeToolDeps): AgentToolDef {
  return defineAgentTool({
    name: PROPOSE_ACTION,
    title: 'Propose a connector action',
    group: 'domain',
    description:
      'Proposes a write in a connected system — update a HubSpot deal, add a HubSpot note, send a mail — for a ' +
      'human to approve in the review queue. Nothing is executed by this call (only an approval executes it, ' +
      'exactly once). Answers {proposalId, status: "pending"}; GET /api/v1/proposals/<proposalId> follows it. ' +
      `Actions: ${Object.keys(ACTIONS).join(', ')}.`,
    args: proposeActionArgs,
    result: proposeActionResult,
    idempotency: 'keyed',
    uses: ['run', 'mcp'],
    agentScoped: true,
    access: access.invoke,
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async execute(args, call) {
      const who = await deps.acting.resolve(call, PROPOSE_ACTION);
      const parsed = parseAction(args.action, args.params);
      if (!parsed.ok) {
        throw validationFailed(
          parsed.issues.map((i) => ({ field: `arguments.${i.field}`, message: i.message })),
        );
      }
      const source = sourceOf(deps.acting, who, args.action, args.source);
      const created = await deps.proposals.create({
        orgId: call.orgId,
        action: parsed.value,
        source,
        agentSlug: who.agent?.slug ?? null,
        rationale: args.rationale,
        runId: call.runId,
        callKey: call.idempotencyKey,
        actingAs: { actor: call.actor, apiTokenId: call.apiTokenId },
        requestId: call.requestId,
      });
      return { proposalId: created.proposalId, status: 'pending' as const };
    },
  });
}
