/**
 * The wire shape of a run event on the bus (`evt.<org>.run.<runId>.<event>`, written to the outbox by
 * the run kinds in the transition that records the event), parsed with zod by every consumer (SSE,
 * the webhook dispatcher), and the rule that tells a run's last event.
 */
import { z } from 'zod';
import { FINAL_RUN_STATUSES, SKILL_RUN_DECISION_EVENTS } from '../../../machines/index.js';

const FINAL: ReadonlySet<string> = new Set(FINAL_RUN_STATUSES);
const DECISIONS: ReadonlySet<string> = new Set(SKILL_RUN_DECISION_EVENTS);

/** A run event as published (see `RunEventPayload` in src/features/runs/run-kinds.ts, which writes it). */
export const runEventPayloadSchema = z.object({
  eventId: z.string().min(1),
  orgId: z.number().int().positive(),
  runId: z.number().int().positive(),
  kind: z.enum(['skill', 'workflow']),
  slug: z.string().min(1),
  seq: z.number().int().positive(),
  event: z.string().min(1),
  status: z.string().min(1),
  step: z.string().nullable(),
  output: z.unknown(),
  workspaceSha: z.string().nullable(),
  edited: z.literal(true).optional(),
  shadow: z.literal(true).optional(),
  at: z.string().min(1),
});

/**
 * Whether `event` ends a run's event stream (docs/api.md "Run event stream (SSE)"): `completed`, `failed`, `cancelled`, and
 * for a skill run also `approved` and `rejected`. A workflow's `approved` resumes it, and its
 * `rejected` is followed by `cancelled` in the same transition.
 */
export function isTerminalRunEvent(event: string, kind: 'skill' | 'workflow'): boolean {
  if (FINAL.has(event)) return true;
  return kind === 'skill' && DECISIONS.has(event);
}
