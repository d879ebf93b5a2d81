/**
 * MCP tasks (2025-11-25, experimental; docs/mcp.md#tasks): a tool that starts something long (a skill
 * run, a workflow run, a mission run) may be called with task augmentation, and then answers at once
 * with a task instead of waiting. A task IS what the tool started: its id names the run
 * (`run-<id>`, `mission-<id>`), its status is read from the run's actor each time it is asked, its
 * result is what the tool answers once the run is over, and cancelling it cancels the run. Nothing is
 * kept in memory, so any process serves any task, across restarts (stateless HTTP, kill -9).
 *
 * Features register a task kind per id prefix (`platform.mcp.addTaskKinds`); a tool names its kind
 * and how it starts one (`ToolDef.task`).
 */
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { type Access, authorize } from '../auth/guard.js';
import type { Principal } from '../auth/principal.js';
import type { Bus } from '../bus/bus.js';
import { waitUntil } from '../bus/wait-until.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { invalidParams } from './protocol-errors.js';

/** What `tasks/get` says of a task, as its kind reads it from the run. */
export interface TaskState {
  status: Task['status'];
  /** Why it waits (`input_required`: the review link), how it failed, or what it is doing. */
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
}

/** One kind of task (`platform.mcp.addTaskKinds`): the runs an id prefix names. */
export interface TaskKind {
  /** Task ids of the kind are `<prefix>-<id>` (`run-42`). */
  prefix: string;
  /** What reading one needs (`tasks/get`, `tasks/result`): the REST read of the same run. */
  readAccess: Access;
  /** What cancelling one needs: the REST cancel's. */
  cancelAccess: Access;
  /** The state of `id` in the caller's org; NOT_FOUND when it is not the caller's. */
  state(principal: Principal, id: number): Promise<TaskState>;
  /**
   * Once `id` is over (or `signal` aborts: then as it is), what the tool that started it answers about
   * it — the value of the tool's output schema.
   */
  result(principal: Principal, id: number, signal: AbortSignal | undefined): Promise<Record<string, unknown>>;
  /** Cancels `id`; CONFLICT when it is over. */
  cancel(principal: Principal, id: number, requestId: string): Promise<void>;
}

/** What a task kind over runs of one kind is made of (`runTaskKind`). */
export interface RunTaskKindDef<R extends { createdAt: string }> {
  prefix: string;
  readAccess: Access;
  cancelAccess: Access;
  /** Run `id` of the caller's org (NOT_FOUND otherwise). */
  read(principal: Principal, id: number): Promise<R>;
  /** When it last changed (ISO 8601). */
  updatedAt(principal: Principal, id: number): Promise<string>;
  /** Its state as a task. */
  stateOf(run: R, lastUpdatedAt: string): TaskState;
  /** The bus pattern of its events (what wakes `tasks/result`). */
  events(orgId: number, id: number): string;
  /** What the tool that started it answers about it, finished. */
  answer(run: R): Record<string, unknown>;
  cancel(principal: Principal, id: number, requestId: string): Promise<unknown>;
}

/** A task kind over persisted runs: state read from the run, result once it is over, cancel. */
export function runTaskKind<R extends { createdAt: string }>(
  deps: { bus: Bus; log: Logger },
  def: RunTaskKindDef<R>,
): TaskKind {
  return {
    prefix: def.prefix,
    readAccess: def.readAccess,
    cancelAccess: def.cancelAccess,
    async state(principal, id) {
      const [run, updatedAt] = await Promise.all([def.read(principal, id), def.updatedAt(principal, id)]);
      return def.stateOf(run, updatedAt);
    },
    async result(principal, id, signal) {
      const run = await waitUntil(
        deps,
        def.events(principal.orgId, id),
        () => def.read(principal, id),
        (run) => TERMINAL.has(def.stateOf(run, run.createdAt).status),
        { timeoutMs: Number.POSITIVE_INFINITY, signal },
      );
      return def.answer(run);
    },
    async cancel(principal, id, requestId) {
      await def.cancel(principal, id, requestId);
    },
  };
}

/** The poll interval tasks suggest (ms). */
export const TASK_POLL_MS = 1_000;

/** The `_meta` key of a message about a task. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

const TERMINAL: ReadonlySet<Task['status']> = new Set(['completed', 'failed', 'cancelled']);

/** The tasks of one process. */
export interface TaskCatalog {
  /** Whether any kind is registered (the `tasks` capability is advertised only then). */
  readonly any: boolean;
  /** The kind of `prefix` (a tool's `task.kind`); throws for one no feature registered. */
  kind(prefix: string): TaskKind;
  /** The task `id` of `kind` is, as the protocol shows it. */
  task(kind: TaskKind, id: number, state: TaskState): Task;
  /** `tasks/get`. */
  get(principal: Principal, taskId: string): Promise<Task>;
  /** `tasks/result`: waits until the task is over (or `signal` aborts), then the tool's answer. */
  result(
    principal: Principal,
    taskId: string,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>>;
  /** `tasks/cancel`: the task after the cancel. */
  cancel(principal: Principal, taskId: string, requestId: string): Promise<Task>;
}

export function createTaskCatalog(kinds: readonly TaskKind[]): TaskCatalog {
  const byPrefix = new Map<string, TaskKind>();
  for (const kind of kinds) {
    if (byPrefix.has(kind.prefix)) throw new Error(`MCP task kind ${kind.prefix} registered twice`);
    byPrefix.set(kind.prefix, kind);
  }
  const task = (kind: TaskKind, id: number, state: TaskState): Task => ({
    taskId: `${kind.prefix}-${id}`,
    status: state.status,
    ...(state.statusMessage === undefined ? {} : { statusMessage: state.statusMessage }),
    createdAt: state.createdAt,
    lastUpdatedAt: state.lastUpdatedAt,
    // A task lives as long as its run: runs are kept.
    ttl: null,
    pollInterval: TASK_POLL_MS,
  });
  /** The kind and run id `taskId` names, read by `read`; an unknown or another org's is invalid params. */
  const resolve = async <T>(
    principal: Principal,
    taskId: string,
    read: (kind: TaskKind, id: number) => Promise<T>,
  ): Promise<T> => {
    const match = /^([a-z][a-z-]*)-([1-9]\d{0,15})$/.exec(taskId);
    const kind = match ? byPrefix.get(match[1] as string) : undefined;
    const id = Number(match?.[2]);
    if (!kind || !Number.isSafeInteger(id)) throw taskNotFound(taskId);
    authorize(principal, kind.readAccess);
    try {
      return await read(kind, id);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'NOT_FOUND') throw taskNotFound(taskId);
      throw error;
    }
  };
  return {
    any: kinds.length > 0,
    kind(prefix) {
      const kind = byPrefix.get(prefix);
      if (!kind) throw new Error(`no MCP task kind ${prefix} is registered`);
      return kind;
    },
    task,
    get: (principal, taskId) =>
      resolve(principal, taskId, async (kind, id) => task(kind, id, await kind.state(principal, id))),
    result: (principal, taskId, signal) =>
      resolve(principal, taskId, (kind, id) => kind.result(principal, id, signal)),
    cancel: (principal, taskId, requestId) =>
      resolve(principal, taskId, async (kind, id) => {
        authorize(principal, kind.cancelAccess);
        const before = await kind.state(principal, id);
        if (TERMINAL.has(before.status)) throw cannotCancel(taskId, before.status);
        try {
          await kind.cancel(principal, id, requestId);
        } catch (error) {
          // Over between the read and the cancel.
          if (error instanceof ApiError && error.code === 'CONFLICT') {
            throw cannotCancel(taskId, (await kind.state(principal, id)).status);
          }
          throw error;
        }
        return task(kind, id, await kind.state(principal, id));
      }),
  };
}

function taskNotFound(taskId: string) {
  return invalidParams(`Task not found: ${taskId}`, { taskId });
}

function cannotCancel(taskId: string, status: Task['status']) {
  return invalidParams(`Cannot cancel task ${taskId}: it is ${status}.`, { taskId, status });
}
