/**
 * The effects every actor kind gets from the host: jobs and durable timers. (Run events, reviews and
 * notifications are kind-specific; their kinds supply the handlers.)
 */
import type { CancelTimerParams, EnqueueJobParams, ScheduleTimerParams } from '../../../machines/index.js';
import type { BuiltinEffectType, EffectHandler } from './kind.js';

/** The payload of a job enqueued by an actor: who enqueued it, plus the effect's params. */
export interface ActorJobPayload {
  actorKind: string;
  actorId: number;
  orgId: number;
  [param: string]: unknown;
}

const enqueueJob: EffectHandler<EnqueueJobParams> = (params, ctx) => {
  const { job, ...rest } = params;
  const payload: ActorJobPayload = {
    actorKind: ctx.def.name,
    actorId: ctx.row.id,
    orgId: ctx.row.orgId,
    ...rest,
  };
  // Not a second spread in the literal: V8 copies it through its runtime (see prepare.ts `creation`).
  const extra = ctx.def.jobsPayload?.(ctx.row);
  if (extra) for (const field of Object.keys(extra)) payload[field] = extra[field];
  // No dedupe key: the job is written by the transition's one statement, which is written once.
  const runAt = ctx.writes.jobsQueuedAt ?? ctx.at;
  ctx.writes.jobs.push({
    kind: job,
    payload,
    key: null,
    run_at: runAt,
    max_attempts: null,
    ...(ctx.writes.jobsPriority ? { priority: ctx.writes.jobsPriority } : {}),
  });
};

const scheduleTimer: EffectHandler<ScheduleTimerParams> = (params, ctx) => {
  const { timerId, event, dueAt } = params;
  ctx.writes.timers.set(timerId, { timer_id: timerId, event, due_at: dueAt });
};

const cancelTimer: EffectHandler<CancelTimerParams> = (params, ctx) => {
  const { timerId } = params;
  ctx.writes.timers.set(timerId, null);
};

/** Effect type → the host's own handler. */
export const builtinEffects: Readonly<Partial<Record<string, EffectHandler>>> = {
  enqueueJob,
  scheduleTimer,
  cancelTimer,
} satisfies Record<BuiltinEffectType, EffectHandler>;
