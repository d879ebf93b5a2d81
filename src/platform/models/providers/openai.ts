import type OpenAI from 'openai';
import { z } from 'zod';
import { activeTraceparent } from '../../tracing/tracing.js';
import { isTraceId, newSpanId, traceparent } from '../../util/trace.js';
import {
  type CompletionRequest,
  type CompletionResult,
  type CompletionUsage,
  type ModelProvider,
  type ModelToolCall,
  ProviderError,
} from '../model-provider.js';
import { abortable, clientOptions, createOpenAIClient, toProviderError } from '../openai-client.js';

/** Settings of a provider for any OpenAI-compatible chat-completions server. */
export interface OpenAIProviderOptions {
  /** API root including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; omitted when empty (local servers often need none). */
  apiKey?: string;
  /** Default model; a request's `model` overrides it. */
  model: string;
  /** Default temperature; the server's default when absent. */
  temperature?: number;
  /** Bound on one attempt. Default 60 s. */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx and network failures. Default 3. */
  maxRetries?: number;
  /** Longest `Retry-After` honoured; a longer one ends the retries. Default 30 s. */
  maxRetryAfterMs?: number;
  fetch?: typeof fetch;
  /** Provider name reported in results and errors. Default `openai`. */
  name?: string;
}

type ResponseFormatMode = 'none' | 'json_schema' | 'json_object';
type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

// The SDK does not check answers; compatible servers vary, so the fields used are checked here.
const contentPart = z.object({ type: z.string(), text: z.string().optional() });
const toolCall = z.object({
  id: z.string(),
  type: z.string().optional(),
  function: z.object({ name: z.string(), arguments: z.string().nullish() }),
});
const chatAnswer = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.union([z.string(), z.array(contentPart)]).nullish(),
          refusal: z.string().nullish(),
          tool_calls: z.array(toolCall).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().optional(),
      completion_tokens: z.number().optional(),
      total_tokens: z.number().optional(),
    })
    .nullish(),
});

const BODY_PREFIX = 500;
const SCHEMA_NAME = /[^a-zA-Z0-9_-]/g;

function schemaName(name: string | undefined): string {
  const clean = (name ?? 'output').replace(SCHEMA_NAME, '_').slice(0, 64);
  return clean === '' ? 'output' : clean;
}

/**
 * Parses JSON-mode content. Some compatible servers wrap the object in a Markdown code fence even
 * in JSON mode, so a fenced block is accepted too.
 */
function parseJsonContent(content: string): { ok: true; value: unknown } | { ok: false } {
  const attempts = [content.trim()];
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(content);
  if (fenced?.[1] !== undefined) attempts.push(fenced[1].trim());
  for (const candidate of attempts) {
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      // Try the next candidate.
    }
  }
  return { ok: false };
}

function toUsage(usage: z.infer<typeof chatAnswer>['usage']): CompletionUsage | undefined {
  if (!usage) return undefined;
  const out: CompletionUsage = {};
  if (usage.prompt_tokens !== undefined) out.promptTokens = usage.prompt_tokens;
  if (usage.completion_tokens !== undefined) out.completionTokens = usage.completion_tokens;
  if (usage.total_tokens !== undefined) out.totalTokens = usage.total_tokens;
  return out;
}

/**
 * The chat messages of a request: system, the prompt, then the turns (earlier drafts and reviewers'
 * reasons, the tool loop's calls and answers).
 */
function messagesOf(request: CompletionRequest, mode: ResponseFormatMode): ChatMessage[] {
  let system = request.system;
  if (mode === 'json_object' && request.json) {
    const instruction =
      'Answer with one JSON object, and nothing else, that conforms to this JSON Schema:\n' +
      JSON.stringify(request.json.schema);
    system = system === undefined || system === '' ? instruction : `${system}\n\n${instruction}`;
  }
  const messages: ChatMessage[] = [];
  if (system !== undefined && system !== '') messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: request.prompt });
  for (const turn of request.turns ?? []) {
    if (turn.role === 'tool') {
      messages.push({ role: 'tool', tool_call_id: turn.toolCallId, content: turn.content });
    } else if (turn.role === 'user') {
      messages.push({ role: 'user', content: turn.content });
    } else if (turn.toolCalls.length === 0) {
      // An earlier answer (a draft a reviewer sent back): servers refuse an empty `tool_calls`.
      messages.push({ role: 'assistant', content: turn.content });
    } else {
      messages.push({
        role: 'assistant',
        content: turn.content,
        tool_calls: turn.toolCalls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      });
    }
  }
  return messages;
}

function textOf(raw: string | Array<z.infer<typeof contentPart>> | null | undefined): string | null {
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw)) return raw.map((part) => part.text ?? '').join('');
  return null;
}

/**
 * A provider for any server speaking OpenAI's `POST /chat/completions` (OpenAI, Azure-style
 * gateways, vLLM, Ollama, llama.cpp, LiteLLM…), through the official `openai` SDK.
 *
 * JSON mode sends `response_format: {type: 'json_schema', …, strict: false}`. A server that answers
 * 400 to that gets the same request once more with `{type: 'json_object'}` and the schema spelled
 * out in the system message; when that succeeds, this provider instance uses `json_object` from
 * then on. With `tools` the request carries them as functions, and an answer with `tool_calls` is
 * returned as `toolCalls` for the caller's tool loop.
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  const name = options.name ?? 'openai';
  const settings = clientOptions(options, name, 60_000);
  const client = createOpenAIClient(settings);
  let jsonSchemaUnsupported = false;

  function params(request: CompletionRequest, mode: ResponseFormatMode): ChatParams {
    const payload: ChatParams = {
      model: request.model ?? options.model,
      messages: messagesOf(request, mode),
    };
    const temperature = request.temperature ?? options.temperature;
    if (temperature !== undefined) payload.temperature = temperature;
    if (request.tools !== undefined && request.tools.length > 0) {
      payload.tools = request.tools.map((tool) => ({
        type: 'function' as const,
        function: {
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters as Record<string, unknown>,
        },
      }));
    }
    if (mode === 'json_schema' && request.json) {
      payload.response_format = {
        type: 'json_schema',
        json_schema: {
          name: schemaName(request.json.name),
          schema: request.json.schema as Record<string, unknown>,
          strict: false,
        },
      };
    } else if (mode === 'json_object') {
      payload.response_format = { type: 'json_object' };
    }
    return payload;
  }

  async function send(request: CompletionRequest, mode: ResponseFormatMode): Promise<unknown> {
    const headers: Record<string, string> = {};
    // The model call's span when tracing records one; else the run's trace with a fresh span id.
    const parent = activeTraceparent();
    if (parent) headers.traceparent = parent;
    else if (request.traceId !== undefined && isTraceId(request.traceId)) {
      headers.traceparent = traceparent(request.traceId, newSpanId());
    }
    try {
      return await abortable(
        client.chat.completions.create(params(request, mode), {
          headers,
          ...(request.signal ? { signal: request.signal } : {}),
        }),
        request.signal,
      );
    } catch (error) {
      throw toProviderError(error, settings, request.signal);
    }
  }

  return {
    name,
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      let mode: ResponseFormatMode = 'none';
      if (request.json) mode = jsonSchemaUnsupported ? 'json_object' : 'json_schema';
      let answer: unknown;
      try {
        answer = await send(request, mode);
      } catch (error) {
        if (!(mode === 'json_schema' && error instanceof ProviderError && error.details.status === 400)) {
          throw error;
        }
        answer = await send(request, 'json_object');
        jsonSchemaUnsupported = true;
      }

      const parsed = chatAnswer.safeParse(answer);
      if (!parsed.success) {
        throw new ProviderError(
          'PROVIDER_ERROR',
          `${name} answered with an unexpected body`,
          { provider: name, body: JSON.stringify(answer ?? null).slice(0, BODY_PREFIX) },
          parsed.error,
        );
      }
      const choice = parsed.data.choices[0];
      const toolCalls: ModelToolCall[] = (choice?.message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments ?? '',
      }));
      const model = parsed.data.model ?? request.model ?? options.model;
      const usage = toUsage(parsed.data.usage);
      const text = textOf(choice?.message.content);
      if (toolCalls.length > 0) {
        const result: CompletionResult = { text: text ?? '', model, toolCalls };
        if (usage) result.usage = usage;
        return result;
      }
      if (text === null) {
        const refusal = choice?.message.refusal;
        throw new ProviderError(
          'PROVIDER_ERROR',
          refusal ? `${name} refused: ${refusal}` : `${name} answered without content`,
          { provider: name, finishReason: choice?.finish_reason ?? null },
        );
      }

      const result: CompletionResult = { text, model };
      if (usage) result.usage = usage;
      if (request.json) {
        const json = parseJsonContent(text);
        if (!json.ok) {
          throw new ProviderError(
            'OUTPUT_INVALID',
            `${name} was asked for JSON but answered with other text`,
            { provider: name, finishReason: choice?.finish_reason ?? null, body: text.slice(0, BODY_PREFIX) },
          );
        }
        result.json = json.value;
      }
      return result;
    },
  };
}
