/**
 * The built-in agent tools this feature has so far (docs/mcp.md#built-in-tools): `create_artifact` and
 * `run_code`. Same names, arguments, results, limits and errors in a run's tool loop and over MCP (the
 * registry makes the MCP tool). Over MCP both need `run:invoke`: they act (store an artifact, run code).
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { rateLimited, toolFailed, toolTimeout } from '../../platform/errors.js';
import { artifactLink } from '../../platform/mcp/resources.js';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import {
  type ArtifactService,
  artifactNameSchema,
  artifactTooLarge,
  mediaTypeSchema,
} from '../artifacts/index.js';
import type { Sandbox } from './sandbox.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const createArtifactArgs = z
  .strictObject({
    name: artifactNameSchema,
    mediaType: mediaTypeSchema,
    text: z.string().optional().describe('The content as text (stored as UTF-8). Give text or base64.'),
    base64: z
      .string()
      .regex(BASE64, 'must be standard base64 (A-Z, a-z, 0-9, +, /, = padding)')
      .optional()
      .describe('The content as base64 (binary files). Give text or base64.'),
  })
  .refine((args) => (args.text === undefined) !== (args.base64 === undefined), {
    message: 'give exactly one of text and base64',
    path: ['text'],
  });

const createArtifactResult = z.object({
  artifactId: z.number().int(),
  url: z.string(),
  sha256: z.string(),
  bytes: z.number().int(),
});

const runCodeArgs = z.strictObject({
  language: z.literal('javascript').describe('The language: javascript (QuickJS, ES2023).'),
  code: z
    .string()
    .min(1)
    .max(1024 * 1024)
    .describe(
      'A script; its completion value (the last expression, a returned promise is awaited) is the result. ' +
        '`input` holds the input given; console.log writes to stdout.',
    ),
  input: z.unknown().optional().describe('Any JSON value, bound to the global `input` (frozen).'),
});

const runCodeResult = z.object({
  result: z.unknown(),
  stdout: z.string(),
  error: z.string().nullable(),
});

/** The built-in tools over `artifacts` and `sandbox`. */
export function builtinTools(deps: { artifacts: ArtifactService; sandbox: Sandbox }): AgentToolDef[] {
  const { artifacts, sandbox } = deps;
  return [
    defineAgentTool({
      name: 'create_artifact',
      title: 'Create an artifact',
      group: 'builtin',
      description:
        'Stores a file (a report, a CSV, an image) as an artifact of the organization — and of the run, ' +
        'inside one — and answers {artifactId, url, sha256, bytes}; `url` serves the bytes. Give the ' +
        'content as `text` (UTF-8) or `base64`. At most R3_ARTIFACT_MAX_BYTES (10 MiB by default).',
      args: createArtifactArgs,
      result: createArtifactResult,
      idempotency: 'keyed',
      uses: ['run', 'mcp'],
      access: access.invoke,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async execute(args, call) {
        const field = args.text !== undefined ? 'arguments.text' : 'arguments.base64';
        let content: Buffer;
        if (args.text !== undefined) {
          const bytes = Buffer.byteLength(args.text, 'utf8');
          if (bytes > artifacts.maxBytes) throw artifactTooLarge(field, bytes, artifacts.maxBytes);
          content = Buffer.from(args.text, 'utf8');
        } else {
          const encoded = args.base64 as string;
          const bytes = (encoded.length / 4) * 3 - (encoded.match(/=*$/)?.[0].length ?? 0);
          if (bytes > artifacts.maxBytes) throw artifactTooLarge(field, bytes, artifacts.maxBytes);
          content = Buffer.from(encoded, 'base64');
        }
        const made = await artifacts.create(
          {
            orgId: call.orgId,
            actor: call.actor,
            apiTokenId: call.apiTokenId,
            runId: call.runId,
            missionRunId: call.missionRunId,
            idempotencyKey: call.idempotencyKey,
            requestId: call.requestId,
          },
          { name: args.name, mediaType: args.mediaType, content },
          field,
        );
        return { artifactId: made.id, url: made.url, sha256: made.sha256, bytes: made.bytes };
      },
      links: (args, result) => [artifactLink(result.artifactId, args.name, args.mediaType, result.bytes)],
    }),
    defineAgentTool({
      name: 'run_code',
      title: 'Run JavaScript in a sandbox',
      group: 'builtin',
      description:
        'Runs a JavaScript script in a WebAssembly QuickJS sandbox — no network, no filesystem, no host ' +
        'objects, no modules — with `input` bound to the JSON given. Answers {result, stdout, error}: ' +
        'the completion value as JSON, what console.* printed, and the uncaught error (null if none). ' +
        'Limits: 64 MiB memory, 5 s, 1 MiB of output; past one it is a tool error (TOOL_TIMEOUT, TOOL_FAILED).',
      args: runCodeArgs,
      result: runCodeResult,
      idempotency: 'safe',
      uses: ['run', 'mcp'],
      access: access.invoke,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      async execute(args, call) {
        const inputJson = JSON.stringify(args.input ?? null);
        // The org's share of the sandbox: its scripts queue behind its own, not another org's.
        const outcome = await sandbox.run(args.code, inputJson, String(call.orgId));
        const limits = sandbox.limits;
        if (outcome.kind === 'ok') {
          return {
            result: JSON.parse(outcome.resultJson) as unknown,
            stdout: outcome.stdout,
            error: outcome.error,
          };
        }
        if (outcome.kind === 'crash')
          throw toolFailed('The sandbox failed to run the script.', { reason: 'sandbox' });
        if (outcome.kind === 'busy') {
          throw rateLimited(
            Math.ceil(limits.timeoutMs / 1000),
            `The organization already has ${outcome.queued} scripts waiting for the sandbox; retry later.`,
            { limit: 'queue', queued: outcome.queued },
          );
        }
        if (outcome.limit === 'time') {
          throw toolTimeout(`The script ran longer than ${limits.timeoutMs} ms and was stopped.`, {
            limit: 'time',
            limitMs: limits.timeoutMs,
          });
        }
        if (outcome.limit === 'memory') {
          throw toolFailed(
            `The script used more than ${limits.memoryBytes} bytes of memory and was stopped.`,
            {
              limit: 'memory',
              limitBytes: limits.memoryBytes,
            },
          );
        }
        throw toolFailed(`The script's output (console and result) exceeded ${limits.outputBytes} bytes.`, {
          limit: 'output',
          limitBytes: limits.outputBytes,
        });
      },
    }),
  ];
}
