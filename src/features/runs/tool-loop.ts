/**
 * The tool loop of a skill step (docs/api.md#runs): a skill run's step, or a workflow's skill step. The
 * model is asked with the tools the skill lists (and the run's agent allows); each `tool_calls` answer
 * is one turn whose calls are recorded, executed concurrently, answered to the model as `tool`
 * messages, until it gives a final message. A workflow's steps each have a conversation of their own
 * (the rows of their `step`) and a budget of their own; turns and call ids are numbered per run.
 *
 * Durability: a turn's calls are recorded `running` (rows of `tool_calls`) by the same statement as
 * the run's TOOLS_REQUESTED transition, before any executes; each outcome by the statement of its
 * TOOL_COMPLETED (which records the run event `tool_completed`). The last outcomes of a turn commit
 * while the next model request is already out (one commit per call on the critical path, not two),
 * but nothing of its answer is acted on before they are committed, and a run that refuses them
 * aborts it: a crash before that commit leaves the call `running`, as one during its execution
 * does, and whatever the model answered is lost with the process. A job that runs again after a crash
 * rebuilds the conversation from those rows: a recorded result is reused, never recomputed; a call
 * left `running` is executed again only if its tool is idempotent (the registry's `safe` or `keyed`;
 * a keyed tool gets the same idempotency key, run id + call id, so its effect is not repeated).
 *
 * Bounds: at most `maxToolCalls` calls per step (asking for more fails the run with
 * TOOL_BUDGET_EXCEEDED); the run's deadline (creation + R3_RUN_DEADLINE): a call still executing then
 * is answered TOOL_TIMEOUT, and no model turn starts past it (DEADLINE_EXCEEDED). Cancel: a cancelled
 * run refuses the next transition, and the loop stops there (the outcome of a call that was
 * executing is still recorded, without a transition).
 *
 * Refusals never execute anything: a tool that is not registered for runs is TOOL_UNAVAILABLE, one the
 * skill does not list or the agent does not allow FORBIDDEN, arguments that are not JSON or fail the
 * tool's schema VALIDATION_FAILED, each answered to the model as a tool error.
 */
import { SpanKind } from '@opentelemetry/api';
import type { ToolCompletedEvent, ToolsRequestedEvent } from '../../../machines/index.js';
import { WORKER } from '../../platform/actors/acting-as.js';
import type { ActorHost, LoadedActor } from '../../platform/actors/host.js';
import type { Db } from '../../platform/db/sql.js';
import { ApiError } from '../../platform/errors.js';
import { toolJsonSchema } from '../../platform/mcp/tool.js';
import type {
  CompletionRequest,
  CompletionResult,
  ConversationTurn,
  ModelToolCall,
  ToolSpec,
} from '../../platform/models/model-provider.js';
import {
  type AgentToolDef,
  type AgentToolRegistry,
  executeTool,
  type ToolPolicy,
  toolPermitted,
} from '../../platform/tools/registry.js';
import type { Tracing } from '../../platform/tracing/tracing.js';
import { canonicalJson } from '../../platform/util/canonical-json.js';
import type { Clock } from '../../platform/util/clock.js';
import { SKILL_RUN_KIND } from './run-kinds.js';

/** The error a tool call answers the model with. */
export interface ToolCallError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A call's outcome; `replayed`: answered from the record of the run a replay re-executes. */
export type ToolOutcome = ({ status: 'ok'; result: unknown } | { status: 'error'; error: ToolCallError }) & {
  replayed?: true;
};

/** How the loop ended. */
export type ToolLoopOutcome = (
  | { kind: 'answer'; result: CompletionResult }
  | { kind: 'failed'; error: { code: string; message: string } }
  /** The run refused a transition of the loop: it is over (cancelled). Nothing is to be reported. */
  | { kind: 'stopped' }
) & {
  /** Calls recorded on the run in all. */
  toolCalls: number;
  /** Time inside the tools executed by this execution (ms; concurrent calls add up). */
  toolMs: number;
  /** Time the loop waited for its records to commit, beside neither the model nor a tool (ms). */
  recordMs: number;
};

export interface ToolLoopDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  tools: AgentToolRegistry;
  tracing: Tracing;
}

/** The run the loop belongs to, as the step executor read it. */
export interface ToolLoopRun {
  id: number;
  orgId: number;
  createdBy: string;
  apiTokenId: string | null;
  agentSlug: string | null;
  /** The mission run the run is a task of (its artifacts belong to it too), or null. */
  missionRunId: number | null;
  /** Epoch ms past which no model turn starts and executing calls time out. */
  deadline: number;
  /** The skill run this run replays (docs/api.md "Replay a skill run"), or null. */
  replayOf: number | null;
}

export interface ToolLoopArgs {
  run: ToolLoopRun;
  step: string;
  attempt: number;
  /**
   * The request without tools (prompt, system, model, JSON mode…); its turns, if any (a round of
   * review's earlier drafts and reasons), come before the loop's.
   */
  request: CompletionRequest;
  policy: ToolPolicy;
  maxToolCalls: number;
  signal: AbortSignal;
  /** Asks the model (the step executor wraps it in its span). */
  complete(request: CompletionRequest): Promise<CompletionResult>;
  /** The actor as read by the step executor; later sends load it afresh. */
  loaded: LoadedActor | null;
  /** The run's recorded calls (every step's), read with the run. */
  recorded: readonly CallRow[];
  /**
   * A round of review's start (ISO): the step's calls started before it belong to an earlier round's
   * conversation, not this one's (absent: every call of the step is this conversation's).
   */
  since?: string;
}

/** The tool error codes of docs/api.md#runs; any other failure of a tool is TOOL_FAILED. */
const TOOL_ERROR_CODES = new Set([
  'TOOL_UNAVAILABLE',
  'TOOL_FAILED',
  'TOOL_TIMEOUT',
  'FORBIDDEN',
  'VALIDATION_FAILED',
]);

/** A recorded call as the step executor reads it with the run (`RECORDED_CALLS`). */
export interface CallRow {
  call_id: string;
  step: string;
  turn: number;
  position: number;
  tool: string;
  raw_arguments: string;
  assistant_content: string | null;
  status: 'running' | 'ok' | 'error';
  result: unknown;
  error: ToolCallError | null;
  started_at: string;
}

/**
 * The SQL of a run's recorded calls as a JSON array (null: none), in order; `run` is the SQL of the
 * run id. The step executor reads it with the run, in the same statement.
 */
export const recordedCallsSql = (run: string): string => `
  (select json_agg(json_build_object(
      'call_id', c.call_id, 'step', c.step, 'turn', c.turn, 'position', c.position, 'tool', c.tool,
      'raw_arguments', c.raw_arguments, 'assistant_content', c.assistant_content, 'status', c.status,
      'result', c.result, 'error', c.error,
      'started_at', to_char(c.started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      order by c.turn, c.position)
     from tool_calls c where c.run_id = ${run})`;

// The outcome of a call the run no longer takes (it was cancelled while the call executed).
const FINISH_CALL = `
  update tool_calls set status = $3, result = $4::json, error = $5::json, completed_at = $6
   where run_id = $1 and call_id = $2 and status = 'running'`;

const MAX_CALL_ID = 200;

/**
 * The tools whose calls a replay refuses (TOOL_UNAVAILABLE) unless the original made the same call,
 * which is then answered from its record: a replay never writes (decisions.md §17).
 */
const WRITING_TOOLS: ReadonlySet<string> = new Set([
  'propose_action',
  'run_operation',
  'create_artifact',
  'freshen_source',
]);

// The finished calls of the run a replay re-executes, each with its arguments as canonical JSON.
const ORIGINAL_CALLS = `
  select tool, arguments, status, result, error from tool_calls
   where run_id = $1 and org_id = $2 and status <> 'running' and arguments is not null
   order by turn, position`;

/** The key a replayed call is matched on: the tool's name and its arguments as canonical JSON. */
const replayKey = (tool: string, args: unknown): string => `${tool}\n${canonicalJson(args)}`;

/** What the model reads for a call's outcome. */
export function toolMessage(outcome: ToolOutcome): string {
  return outcome.status === 'ok'
    ? JSON.stringify(outcome.result ?? null)
    : JSON.stringify({ error: outcome.error });
}

function outcomeOf(row: Pick<CallRow, 'status' | 'result' | 'error'>): ToolOutcome {
  return row.status === 'ok'
    ? { status: 'ok', result: row.result }
    : { status: 'error', error: row.error ?? { code: 'TOOL_FAILED', message: 'no error recorded' } };
}

function toolError(code: string, message: string, details?: Record<string, unknown>): ToolOutcome {
  return { status: 'error', error: details ? { code, message, details } : { code, message } };
}

/** A thrown error as the tool error it answers (docs/mcp.md#built-in-tools). */
function errorOutcome(error: unknown): ToolOutcome {
  if (error instanceof ApiError && TOOL_ERROR_CODES.has(error.code)) {
    const details = Object.keys(error.details).length > 0 ? error.details : undefined;
    return toolError(error.code, error.message, details);
  }
  const message = error instanceof ApiError ? error.message : 'the tool failed';
  return toolError('TOOL_FAILED', message);
}

/** Parses the model's argument text: an object (empty text is `{}`), else undefined. */
function parseArguments(raw: string): Record<string, unknown> | undefined {
  if (raw.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The tools the model is offered: those the skill lists, registered for runs, that the agent allows. */
export function offeredTools(tools: AgentToolRegistry, policy: ToolPolicy): ToolSpec[] {
  const offered: ToolSpec[] = [];
  for (const name of policy.skillTools) {
    const tool = tools.get(name);
    if (!tool?.uses.includes('run') || !toolPermitted(name, policy)) continue;
    offered.push({ name, description: tool.description, parameters: toolJsonSchema(tool.args) });
  }
  return offered;
}

/** Runs the tool loop of one step; see the top of this file. */
/**
 * The object instances a call's result names, for the run's links (docs/api.md "Runs": `objects`
 * with `via: "tool"`): `lookup_objects`' `objects` and `search_knowledge`'s `results`.
 */
function usedObjects(tool: string, outcome: ToolOutcome): number[] {
  if (outcome.status !== 'ok' || (tool !== 'lookup_objects' && tool !== 'search_knowledge')) return [];
  const result = outcome.result as { objects?: unknown; results?: unknown } | null;
  const list = tool === 'lookup_objects' ? result?.objects : result?.results;
  if (!Array.isArray(list)) return [];
  const ids = list.map((item) => (item as { id?: unknown } | null)?.id);
  return [...new Set(ids.filter((id): id is number => Number.isSafeInteger(id) && (id as number) > 0))];
}

export async function runToolLoop(deps: ToolLoopDeps, args: ToolLoopArgs): Promise<ToolLoopOutcome> {
  const { run, step, attempt, policy, signal } = args;
  const iso = () => new Date(deps.clock.now()).toISOString();
  const tools = offeredTools(deps.tools, policy);
  // This step's conversation; ids and turns are unique across the run's steps.
  const since = args.since;
  const rows = args.recorded.filter((r) => r.step === step && (since === undefined || r.started_at >= since));
  const usedIds = new Set(args.recorded.map((r) => r.call_id));
  let count = rows.length;
  let toolMs = 0;
  let recordMs = 0;
  /** Awaits `commit`, counting the wait in `recordMs`. */
  const committed = async <T>(commit: Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await commit;
    } finally {
      recordMs += performance.now() - started;
    }
  };
  let loaded = args.loaded;

  /** Sends a loop event with its tool_calls rows; false when the run refused it (it is over). */
  async function transition(
    event: ToolsRequestedEvent | ToolCompletedEvent,
    callRows: Record<string, unknown>[],
    objectRows: Record<string, unknown>[] = [],
  ) {
    const result = await deps.host.transact(
      (tx) =>
        deps.host.send(tx, SKILL_RUN_KIND, { orgId: run.orgId, id: run.id }, event, {
          actingAs: WORKER,
          loaded: loaded ?? undefined,
          extraRows:
            objectRows.length > 0
              ? { tool_calls: callRows, run_objects: objectRows }
              : { tool_calls: callRows },
          // The loop waits on it: a call executes after its record, the next turn after the outcome.
          urgent: true,
        }),
      { single: true },
    );
    loaded = result.outcome === 'applied' ? result.actor : null;
    return result.outcome === 'applied';
  }

  function callRow(
    row: Omit<CallRow, 'result' | 'error'>,
    outcome: ToolOutcome | null,
    completedAt: string | null,
  ) {
    return {
      run_id: run.id,
      call_id: row.call_id,
      org_id: run.orgId,
      step,
      turn: row.turn,
      position: row.position,
      tool: row.tool,
      arguments: parseArguments(row.raw_arguments) ?? null,
      raw_arguments: row.raw_arguments,
      assistant_content: row.assistant_content,
      status: outcome?.status ?? 'running',
      result: outcome?.status === 'ok' ? (outcome.result ?? null) : null,
      error: outcome?.status === 'error' ? outcome.error : null,
      started_at: row.started_at,
      completed_at: completedAt,
      replayed: outcome?.replayed ?? null,
    };
  }

  /** The record a replay answers from: the original's finished calls by `replayKey` (first wins). */
  let original: Promise<Map<string, ToolOutcome>> | null = null;
  function originalCalls(replayOf: number): Promise<Map<string, ToolOutcome>> {
    original ??= deps.db
      .query<{
        tool: string;
        arguments: unknown;
        status: 'ok' | 'error';
        result: unknown;
        error: ToolCallError | null;
      }>(ORIGINAL_CALLS, [replayOf, run.orgId])
      .then((rows) => {
        const calls = new Map<string, ToolOutcome>();
        for (const row of rows) {
          const key = replayKey(row.tool, row.arguments);
          if (!calls.has(key)) calls.set(key, { ...outcomeOf(row), replayed: true });
        }
        return calls;
      });
    return original;
  }

  async function invoke(
    tool: AgentToolDef,
    input: Record<string, unknown>,
    callId: string,
  ): Promise<ToolOutcome> {
    const remaining = run.deadline - deps.clock.now();
    if (remaining <= 0) return toolError('TOOL_TIMEOUT', 'the run reached its deadline before the call');
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<ToolOutcome>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new DOMException('run deadline', 'TimeoutError'));
        resolve(toolError('TOOL_TIMEOUT', 'the call was still executing at the run’s deadline'));
      }, remaining);
    });
    const execution = executeTool(tool, input, {
      use: 'run',
      orgId: run.orgId,
      actor: run.createdBy,
      agentSlug: run.agentSlug,
      apiTokenId: run.apiTokenId,
      runId: run.id,
      missionRunId: run.missionRunId,
      callId,
      idempotencyKey: `run:${run.id}:call:${callId}`,
      requestId: null,
      signal: controller.signal,
    }).then(
      (result): ToolOutcome => ({ status: 'ok', result }),
      (error: unknown) => errorOutcome(error),
    );
    try {
      return await Promise.race([execution, deadline]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** One call: refused (never executed) or executed, in its span of the run's trace. */
  async function evaluate(name: string, raw: string, callId: string): Promise<ToolOutcome> {
    const tool = deps.tools.get(name);
    if (!tool?.uses.includes('run')) {
      return toolError('TOOL_UNAVAILABLE', `no tool "${name}" is available to runs`, { tool: name });
    }
    if (!toolPermitted(name, policy)) {
      return toolError('FORBIDDEN', `tool "${name}" is not allowed for this skill and agent`, { tool: name });
    }
    const input = parseArguments(raw);
    if (input === undefined) {
      return toolError('VALIDATION_FAILED', 'the arguments are not a JSON object', {
        issues: [{ field: 'arguments', message: 'must be a JSON object' }],
      });
    }
    if (run.replayOf !== null) {
      const recorded = (await originalCalls(run.replayOf)).get(replayKey(name, input));
      if (recorded) return recorded;
      if (WRITING_TOOLS.has(name)) {
        return toolError('TOOL_UNAVAILABLE', `a replay does not call "${name}" anew (it writes)`, {
          tool: name,
          replay: true,
        });
      }
    }
    return deps.tracing.inSpan(
      `tool ${name}`,
      { kind: SpanKind.INTERNAL, attributes: { 'r3.tool.name': name, 'r3.tool.call_id': callId } },
      async (span) => {
        const started = performance.now();
        const outcome = await invoke(tool, input, callId);
        toolMs += performance.now() - started;
        if (outcome.status === 'error') span?.setAttribute('r3.tool.error', outcome.error.code);
        return outcome;
      },
    );
  }

  /**
   * Executes `pending` calls of a turn concurrently and records each outcome as it finishes (one
   * TOOL_COMPLETED at a time, the last with `remaining: 0`). A call in `fixed` is not executed: it is
   * recorded with that outcome. Resolves once every outcome is known (in `outcomes`), with `recorded`:
   * the records still committing, which resolves false when the run stopped taking them.
   */
  async function executeCalls(
    pending: Array<Omit<CallRow, 'result' | 'error'>>,
    outcomes: Map<string, ToolOutcome>,
    fixed: ReadonlyMap<string, ToolOutcome> = new Map(),
  ): Promise<{ recorded: Promise<boolean> }> {
    let remaining = pending.length;
    let taken = true;
    let chain: Promise<void> = Promise.resolve();
    const record = (row: Omit<CallRow, 'result' | 'error'>, outcome: ToolOutcome) => {
      chain = chain.then(async () => {
        remaining -= 1;
        const at = iso();
        const event: ToolCompletedEvent = {
          type: 'TOOL_COMPLETED',
          step,
          attempt,
          callId: row.call_id,
          tool: row.tool.slice(0, MAX_CALL_ID),
          status: outcome.status,
          errorCode: outcome.status === 'error' ? outcome.error.code : null,
          remaining,
          at,
        };
        const links = usedObjects(row.tool, outcome).map((id) => ({
          run_id: run.id,
          object_id: id,
          org_id: run.orgId,
          via: 'tool',
        }));
        const applied = taken && (await transition(event, [callRow(row, outcome, at)], links));
        if (!applied) {
          taken = false;
          const ok = outcome.status === 'ok';
          await deps.db.query(FINISH_CALL, [
            run.id,
            row.call_id,
            outcome.status,
            ok ? JSON.stringify(outcome.result ?? null) : null,
            ok ? null : JSON.stringify(outcome.error),
            at,
          ]);
        }
      });
      return chain;
    };
    await Promise.all(
      pending.map(async (row) => {
        const outcome = fixed.get(row.call_id) ?? (await evaluate(row.tool, row.raw_arguments, row.call_id));
        outcomes.set(row.call_id, outcome);
        // Not awaited: a failed record fails `chain`, which `recorded` reports.
        void record(row, outcome).catch(() => undefined);
      }),
    );
    return { recorded: chain.then(() => taken) };
  }

  // The conversation so far, rebuilt from the record; calls left running by a crash are settled first.
  const turns: ConversationTurn[] = [...(args.request.turns ?? [])];
  const byTurn = new Map<number, CallRow[]>();
  for (const row of rows) {
    const list = byTurn.get(row.turn) ?? [];
    list.push(row);
    byTurn.set(row.turn, list);
  }
  const lastTurn = args.recorded.reduce((max, r) => Math.max(max, r.turn), 0);
  for (const calls of byTurn.values()) {
    const outcomes = new Map<string, ToolOutcome>();
    const interrupted: CallRow[] = [];
    const fixed = new Map<string, ToolOutcome>();
    for (const row of calls) {
      if (row.status !== 'running') {
        outcomes.set(row.call_id, outcomeOf(row));
        continue;
      }
      interrupted.push(row);
      const idempotency = deps.tools.get(row.tool)?.idempotency;
      if (idempotency !== undefined && idempotency !== 'safe' && idempotency !== 'keyed') {
        fixed.set(
          row.call_id,
          toolError('TOOL_FAILED', 'the call was interrupted and its tool is not safe to execute again'),
        );
      }
    }
    if (
      interrupted.length > 0 &&
      !(await committed((await executeCalls(interrupted, outcomes, fixed)).recorded))
    ) {
      return { kind: 'stopped', toolCalls: count, toolMs, recordMs };
    }
    turns.push({
      role: 'assistant',
      content: calls[0]?.assistant_content ?? null,
      toolCalls: calls.map((row) => ({ id: row.call_id, name: row.tool, arguments: row.raw_arguments })),
    });
    for (const row of calls) {
      turns.push({
        role: 'tool',
        toolCallId: row.call_id,
        content: toolMessage(outcomes.get(row.call_id) as ToolOutcome),
      });
    }
  }

  // The last turn's outcomes while they commit: the next model request goes out meanwhile (see ask).
  let recording: Promise<boolean> | null = null;

  /**
   * Asks the model for the next turn. The request goes out at once, even while the last turn's
   * outcomes are still being committed (`recording`: that commit is off the critical path, beside the
   * model's answer), but the answer is acted on only once they are committed; if the run refused them
   * (it was cancelled) the request is aborted and the loop stops (null).
   */
  async function ask(): Promise<CompletionResult | null> {
    const previous = recording;
    recording = null;
    if (!previous) return args.complete({ ...args.request, tools, turns });
    const controller = new AbortController();
    void previous.then(
      (taken) => {
        if (!taken) controller.abort(new DOMException('the run is over', 'AbortError'));
      },
      (error: unknown) => controller.abort(error),
    );
    let answeredAt = Number.POSITIVE_INFINITY;
    const answered = args
      .complete({ ...args.request, tools, turns, signal: AbortSignal.any([signal, controller.signal]) })
      .then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      )
      .finally(() => {
        answeredAt = performance.now();
      });
    const taken = await previous;
    // Only a commit that outlasts the model's answer is waited for.
    recordMs += Math.max(0, performance.now() - answeredAt);
    if (!taken) return null;
    const outcome = await answered;
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  for (let turn = lastTurn + 1; ; turn++) {
    if (deps.clock.now() >= run.deadline) {
      if (recording && !(await committed(recording)))
        return { kind: 'stopped', toolCalls: count, toolMs, recordMs };
      return {
        kind: 'failed',
        error: { code: 'DEADLINE_EXCEEDED', message: 'the run reached its deadline (R3_RUN_DEADLINE)' },
        toolCalls: count,
        toolMs,
        recordMs,
      };
    }
    const answer = await ask();
    if (!answer) return { kind: 'stopped', toolCalls: count, toolMs, recordMs };
    const asked = answer.toolCalls ?? [];
    if (asked.length === 0) return { kind: 'answer', result: answer, toolCalls: count, toolMs, recordMs };
    if (count + asked.length > args.maxToolCalls) {
      return {
        kind: 'failed',
        error: {
          code: 'TOOL_BUDGET_EXCEEDED',
          message: `the model asked for more than maxToolCalls (${args.maxToolCalls}) tool calls`,
        },
        toolCalls: count,
        toolMs,
        recordMs,
      };
    }
    const at = iso();
    const calls: ModelToolCall[] = asked.map((call, position) => {
      let id = call.id.slice(0, MAX_CALL_ID);
      if (id === '' || usedIds.has(id)) id = `${(call.id || 'call').slice(0, 180)}~${turn}.${position}`;
      usedIds.add(id);
      return { id, name: call.name, arguments: call.arguments };
    });
    const pending = calls.map((call, position) => ({
      call_id: call.id,
      step,
      turn,
      position,
      tool: call.name,
      raw_arguments: call.arguments,
      assistant_content: answer.text === '' ? null : answer.text,
      status: 'running' as const,
      started_at: at,
    }));
    const requested: ToolsRequestedEvent = {
      type: 'TOOLS_REQUESTED',
      step,
      attempt,
      turn,
      calls: calls.map((call) => ({ id: call.id, tool: call.name.slice(0, MAX_CALL_ID) || '?' })),
      at,
    };
    if (
      !(await committed(
        transition(
          requested,
          pending.map((row) => callRow(row, null, null)),
        ),
      ))
    ) {
      return { kind: 'stopped', toolCalls: count, toolMs, recordMs };
    }
    count += calls.length;
    const outcomes = new Map<string, ToolOutcome>();
    recording = (await executeCalls(pending, outcomes)).recorded;
    turns.push({ role: 'assistant', content: pending[0]?.assistant_content ?? null, toolCalls: calls });
    for (const call of calls) {
      turns.push({
        role: 'tool',
        toolCallId: call.id,
        content: toolMessage(outcomes.get(call.id) as ToolOutcome),
      });
    }
  }
}
