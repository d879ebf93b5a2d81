/**
 * What an MCP tool is in r3: a name, an input schema (zod, the same field schemas REST uses), an
 * output schema (zod: the type `run` must answer and the `outputSchema` clients see, so the two
 * cannot drift), the access rule REST applies to the same operation, its behaviour hints, and a
 * function from validated arguments to a JSON object. The toolset (toolset.ts) turns that object, or
 * the error it throws, into a tool result.
 */

import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { FusedAnswer } from '../auth/authenticate.js';
import type { Access } from '../auth/guard.js';
import type { Principal } from '../auth/principal.js';
import { ApiError, type FieldIssue, validationFailed } from '../errors.js';
import type { RateDecision } from '../ratelimit/limiter.js';
import type { JsonText } from './results.js';

/** The transport a call arrived on: it decides whether authoring tools are available. */
export type McpTransportKind = 'http' | 'stdio';

/** Who calls, over what, on behalf of which request. */
export interface ToolContext {
  principal: Principal;
  transport: McpTransportKind;
  /** The HTTP request's `X-Request-Id`, or a per-call id over stdio; recorded on audit rows. */
  requestId: string;
  /** Aborted when the client goes away or cancels the call. */
  signal: AbortSignal | undefined;
  /**
   * Over HTTP, the run the call's `fusedRun` named, read in the statement that authenticated the
   * request: its id (`key`) and JSON text (null: not the caller's, or none). Absent when none was read.
   */
  fusedRun?: FusedAnswer;
  /**
   * Over HTTP, for a tool that `readsApplied`: the org's applied version (full sha; null before the
   * first apply), read in the statement that authenticated the request. Absent when none was read.
   */
  appliedSha?: string | null;
  /**
   * Over HTTP, pays for this call from the caller's rate-limit bucket: the request's first call was
   * paid when it was authenticated, each further call of a batch takes one more unit. Answers the
   * refusal when the bucket is empty (the call is then not made), else null.
   */
  charge?: () => Promise<RateDecision | null>;
}

/** The tool groups r3 exposes (docs/mcp.md#tools; a feature may name its own). */
export type ToolGroup = 'workspace' | 'runtime' | 'data' | (string & {});

/**
 * MCP's behaviour hints for clients, every one stated (`tools/list` carries them as `annotations`):
 * `readOnlyHint` — changes nothing; `destructiveHint` — may undo or end something (a delete, a
 * cancel, a rejection); `idempotentHint` — calling again with the same arguments has no further
 * effect; `openWorldHint` — reaches beyond r3 (the web, a model, an upstream API).
 */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The hints of a tool that only reads r3's own data. */
export const READ_ONLY: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * One tool. `input` and `output` are object schemas; `run` returns the JSON the result carries (or
 * its text), of `output`'s type.
 */
export interface ToolDef<S extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  group: ToolGroup;
  description: string;
  input: S;
  /**
   * What a successful call answers (`structuredContent`): its JSON Schema is the tool's
   * `outputSchema`, and with `R3_MCP_VALIDATE_OUTPUT` every result is checked against it.
   */
  output: O;
  /** Checked before the arguments are validated, as REST checks before it reads a body. */
  access: Access;
  /** An authoring tool: over HTTP only when `R3_MCP_HTTP_AUTHORING=true`. */
  authoring?: boolean;
  hints: ToolHints;
  /**
   * The run a call reads first, from its raw arguments (null: none): over HTTP it is read in the
   * statement that authenticates the request, and handed to `run` as `ctx.fusedRun`.
   */
  fusedRun?(args: Record<string, unknown>): number | null;
  /**
   * The call reads applied resources (an agent-scoped tool: the agent and the org's sources): over
   * HTTP the org's applied version is read in the statement that authenticates the request, handed
   * to `run` as `ctx.appliedSha` (a resource read at that version may be answered from memory).
   */
  readsApplied?: boolean;
  run(args: z.output<S>, ctx: ToolContext): Promise<z.input<O> | JsonText>;
  /**
   * The resources a successful call made, as `resource_link` items its result carries after the text
   * (an artifact: `r3://artifacts/<id>`).
   */
  links?(args: z.output<S>, value: z.output<O>): ResourceLink[];
  /**
   * The tool may be called as a task (tasks.ts; listed with `execution.taskSupport: "optional"`): it
   * then starts what it starts and answers the task at once. `kind` is the task kind's prefix; `start`
   * answers the id of the run it started.
   */
  task?: { kind: string; start(args: z.output<S>, ctx: ToolContext): Promise<number> };
}

/**
 * Declares a tool whose `run` receives its input schema's output type and must answer its output
 * schema's type (a `JsonText` is checked when results are validated).
 */
export function defineTool<S extends z.ZodType, O extends z.ZodType>(def: ToolDef<S, O>): ToolDef {
  return def as unknown as ToolDef;
}

/**
 * The JSON Schema of a zod schema as tool lists carry it (draft-7, no `$schema`): the input side for
 * arguments, the output side for results.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

/**
 * A tool's `outputSchema`: its output schema's JSON Schema, whose root MCP requires to be an object
 * (a union of object shapes is stated so at the root too).
 */
export function toolOutputSchema(schema: z.ZodType): Record<string, unknown> & { type: 'object' } {
  const json = toolJsonSchema(schema, 'output');
  return { ...json, type: 'object' };
}

/**
 * A service's validation error as a tool's: services shared with REST name request-body fields
 * `body.*`; over MCP they are the tool's `arguments.*`. Other errors pass through unchanged.
 */
export function bodyFieldsAsArguments(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') return error;
  const issues = error.details.issues;
  if (!Array.isArray(issues)) return error;
  const renamed = (issues as FieldIssue[]).map((issue) =>
    issue.field === 'body' || issue.field.startsWith('body.')
      ? { ...issue, field: `arguments${issue.field.slice(4)}` }
      : issue,
  );
  return validationFailed(renamed, error.message.replace(/\bbody\./g, 'arguments.'));
}
