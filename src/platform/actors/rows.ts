/**
 * From a transition to the rows of its statement, and from a stored snapshot back to a machine
 * snapshot.
 */
import type { StateValue } from 'xstate';
import type { Attribution } from '../auth/attribution.js';
import type { ActorKindDef, ActorRow, MachineSnapshotLike } from './kind.js';
import type { TransitionRows } from './statements.js';
import type { LoadedActor, SendOptions } from './types.js';
import type { TransitionWrites } from './writes.js';

/** The name of a snapshot's state: the value of a flat state, the dotted path of a compound one. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  // A compound state as its path, `running.awaitingModel` for `{running: 'awaitingModel'}`.
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const [only] = entries;
    if (entries.length === 1 && only) return `${only[0]}.${stateName(only[1])}`;
  }
  return JSON.stringify(value);
}

/** The `status` column an actor's snapshot projects to (what a refused caller is told it is). */
export function actorStatus(actor: LoadedActor): string {
  return String(actor.def.project(actor.snapshot).status);
}

/**
 * The snapshot to store for `persisted` (xstate's persisted snapshot): without the context fields its
 * kind keeps in columns (`ActorKindDef.contextInColumns`).
 */
export function storedSnapshot(def: ActorKindDef, persisted: unknown): unknown {
  const held = def.contextInColumns;
  if (!held) return persisted;
  const { context, ...rest } = persisted as { context: Record<string, unknown> };
  const kept: Record<string, unknown> = {};
  for (const field in context) if (!(field in held)) kept[field] = context[field];
  return { ...rest, context: kept };
}

/**
 * Resolves a stored snapshot, validating its context first (zod at the database edge); `columns`
 * (the row's, as loaded) give back the context fields the kind keeps in columns.
 */
export function resolveSnapshot(
  def: ActorKindDef,
  stored: unknown,
  columns: Readonly<Record<string, unknown>> = {},
): MachineSnapshotLike {
  const persisted = stored as { value?: unknown; context?: unknown };
  let context = persisted?.context;
  const held = def.contextInColumns;
  if (held && context !== null && typeof context === 'object') {
    const whole: Record<string, unknown> = { ...context };
    for (const field in held) {
      const column = held[field] as string;
      if (column in columns) whole[field] = columns[column];
    }
    context = whole;
  }
  const parsed = def.contextSchema.safeParse(context);
  if (!parsed.success) {
    throw new Error(
      `${def.name}: stored snapshot does not match the machine's context: ${parsed.error.message}`,
    );
  }
  const value = persisted.value;
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) {
    throw new Error(`${def.name}: stored snapshot has no state value`);
  }
  return def.machine.resolveState({ value: value as StateValue, context: parsed.data });
}

/** One transition of a write: a transition-log row. */
export interface TransitionStep {
  from: string | null;
  to: string;
  event: { type: string };
}

/** Everything one transition writes, as the rows of its statement. */
export function transitionRows(
  def: ActorKindDef,
  row: ActorRow,
  t: {
    also: Pick<SendOptions, 'extraRows' | 'completesJob'>;
    insert: Record<string, unknown> | null;
    projection: Record<string, unknown>;
    persisted: unknown;
    writes: TransitionWrites;
    at: string;
    /** The transitions written (more than one when settled events followed the first: `settle`). */
    steps: readonly TransitionStep[];
    by: Attribution;
  },
): TransitionRows {
  const { writes, at } = t;
  const actorId = row.id;
  const orgId = row.orgId;
  // Object literals of one shape each, not spreads: these rows are built and serialized for every
  // transition, and V8 serializes a known shape much faster than a spread-built one.
  const actor: Record<string, unknown> = {
    id: actorId,
    org_id: orgId,
    snapshot: t.persisted,
    updated_at: at,
    // Insert: the first version; update: the version the write expects to find.
    version: t.insert ? 1 : row.version,
  };
  for (const column in t.projection) actor[column] = t.projection[column];
  if (def.runEvents) actor.last_seq = writes.seq;
  if (t.insert) {
    for (const column in t.insert) actor[column] = t.insert[column];
    actor.created_at = at;
  }
  const timersSet: Record<string, unknown>[] = [];
  const timersDelete: Record<string, unknown>[] = [];
  for (const [timerId, timer] of writes.timers) {
    if (timer) {
      timersSet.push({
        actor_kind: def.name,
        actor_id: actorId,
        timer_id: timer.timer_id,
        org_id: orgId,
        event: timer.event,
        due_at: timer.due_at,
        created_at: at,
      });
    } else timersDelete.push({ actor_kind: def.name, actor_id: actorId, timer_id: timerId });
  }
  return {
    actors: [actor],
    transitions: t.steps.map((step) => ({
      org_id: orgId,
      actor_kind: def.name,
      actor_id: actorId,
      from_state: step.from,
      event_type: step.event.type,
      event: step.event,
      to_state: step.to,
      actor: t.by.actor,
      api_token_id: t.by.apiTokenId,
      at,
    })),
    events: writes.events.map((e) => ({
      run_id: actorId,
      org_id: orgId,
      seq: e.seq,
      event: e.event,
      status: e.status,
      step: e.step,
      output: e.output,
      at: e.at,
    })),
    outbox: writes.outbox,
    jobs: writes.jobs.map((j) => ({
      actor_id: actorId,
      org_id: orgId,
      kind: j.kind,
      payload: j.payload,
      key: j.key,
      run_at: j.run_at,
      max_attempts: j.max_attempts,
      created_at: at,
      ...(j.priority ? { priority: j.priority } : {}),
      ...(j.leased
        ? { id: j.leased.id, attempts: 1, locked_by: j.leased.workerId, locked_until: j.leased.lockedUntil }
        : {}),
    })),
    timersSet,
    timersDelete,
    audit: writes.audit.map((a) => ({
      actor_id: actorId,
      org_id: orgId,
      api_token_id: t.by.apiTokenId,
      actor: t.by.actor,
      action: a.action,
      target_kind: a.target_kind,
      target_id: a.target_id,
      details: a.details,
      request_id: a.request_id,
      at,
    })),
    jobsDone: t.also.completesJob
      ? [{ actor_id: actorId, job_id: t.also.completesJob.id, locked_by: t.also.completesJob.workerId }]
      : [],
    extra: t.also.extraRows ?? {},
  };
}
