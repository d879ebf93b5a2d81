import { z } from 'zod';
import { activeTraceparent } from '../../tracing/tracing.js';
import { isTraceId, newSpanId, traceparent } from '../../util/trace.js';
import { type RetryOptions, requestWithRetry } from '../http-retry.js';
import {
  type CompletionRequest,
  type CompletionResult,
  type CompletionUsage,
  type ModelProvider,
  ProviderError,
} from '../model-provider.js';

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
  /** Backoff tuning and hooks (tests inject `sleep`). */
  retry?: Omit<RetryOptions, 'maxRetries'>;
  fetch?: typeof fetch;
  /** Provider name reported in results and errors. Default `openai`. */
  name?: string;
}

type ResponseFormatMode = 'none' | 'json_schema' | 'json_object';

const contentPart = z.object({ type: z.string(), text: z.string().optional() });
const chatAnswer = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.union([z.string(), z.array(contentPart)]).nullish(),
          refusal: z.string().nullish(),
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

function errorMessage(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    if (body !== null && typeof body === 'object' && 'error' in body) {
      const error = (body as { error: unknown }).error;
      if (typeof error === 'string') return error;
      if (error !== null && typeof error === 'object' && 'message' in error) {
        const message = (error as { message: unknown }).message;
        if (typeof message === 'string') return message;
      }
    }
  } catch {
    // Not JSON: the body prefix in the details is all there is.
  }
  return undefined;
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
 * A provider for any server speaking OpenAI's `POST /chat/completions` (OpenAI, Azure-style
 * gateways, vLLM, Ollama, llama.cpp, LiteLLM…).
 *
 * JSON mode sends `response_format: {type: 'json_schema', …, strict: false}`. A server that answers
 * 400 to that gets the same request once more with `{type: 'json_object'}` and the schema spelled
 * out in the system message; when that succeeds, this provider instance uses `json_object` from
 * then on.
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  const name = options.name ?? 'openai';
  const url = `${new URL(options.baseUrl).href.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const retry: RetryOptions = { ...options.retry, maxRetries: options.maxRetries ?? 3 };
  let jsonSchemaUnsupported = false;

  function body(request: CompletionRequest, mode: ResponseFormatMode): string {
    let system = request.system;
    if (mode === 'json_object' && request.json) {
      const instruction =
        'Answer with one JSON object, and nothing else, that conforms to this JSON Schema:\n' +
        JSON.stringify(request.json.schema);
      system = system === undefined || system === '' ? instruction : `${system}\n\n${instruction}`;
    }
    const messages: Array<{ role: 'system' | 'user'; content: string }> = [];
    if (system !== undefined && system !== '') messages.push({ role: 'system', content: system });
    messages.push({ role: 'user', content: request.prompt });
    const payload: Record<string, unknown> = { model: request.model ?? options.model, messages };
    const temperature = request.temperature ?? options.temperature;
    if (temperature !== undefined) payload.temperature = temperature;
    if (mode === 'json_schema' && request.json) {
      payload.response_format = {
        type: 'json_schema',
        json_schema: { name: schemaName(request.json.name), schema: request.json.schema, strict: false },
      };
    } else if (mode === 'json_object') {
      payload.response_format = { type: 'json_object' };
    }
    return JSON.stringify(payload);
  }

  async function send(request: CompletionRequest, mode: ResponseFormatMode) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    // The model call's span when tracing records one; else the run's trace with a fresh span id.
    const parent = activeTraceparent();
    if (parent) headers.traceparent = parent;
    else if (request.traceId !== undefined && isTraceId(request.traceId)) {
      headers.traceparent = traceparent(request.traceId, newSpanId());
    }
    const init: Parameters<typeof requestWithRetry>[1] = { retry, timeoutMs, provider: name };
    if (request.signal) init.signal = request.signal;
    if (options.fetch) init.fetch = options.fetch;
    return requestWithRetry({ url, method: 'POST', headers, body: body(request, mode) }, init);
  }

  return {
    name,
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      let mode: ResponseFormatMode = 'none';
      if (request.json) mode = jsonSchemaUnsupported ? 'json_object' : 'json_schema';
      let answer = await send(request, mode);
      let attempts = answer.attempts;
      if (answer.status === 400 && mode === 'json_schema') {
        answer = await send(request, 'json_object');
        attempts += answer.attempts;
        if (answer.status >= 200 && answer.status < 300) jsonSchemaUnsupported = true;
      }
      if (answer.status < 200 || answer.status > 299) {
        const reason = errorMessage(answer.text) ?? `HTTP ${answer.status}`;
        throw new ProviderError('PROVIDER_ERROR', `${name} answered ${answer.status}: ${reason}`, {
          provider: name,
          status: answer.status,
          attempts,
          body: answer.text.slice(0, BODY_PREFIX),
        });
      }

      let parsed: z.infer<typeof chatAnswer>;
      try {
        parsed = chatAnswer.parse(JSON.parse(answer.text));
      } catch (error) {
        throw new ProviderError(
          'PROVIDER_ERROR',
          `${name} answered with an unexpected body`,
          { provider: name, status: answer.status, attempts, body: answer.text.slice(0, BODY_PREFIX) },
          error,
        );
      }
      const choice = parsed.choices[0];
      const raw = choice?.message.content;
      const text =
        typeof raw === 'string'
          ? raw
          : Array.isArray(raw)
            ? raw.map((part) => part.text ?? '').join('')
            : null;
      if (text === null) {
        const refusal = choice?.message.refusal;
        throw new ProviderError(
          'PROVIDER_ERROR',
          refusal ? `${name} refused: ${refusal}` : `${name} answered without content`,
          { provider: name, status: answer.status, attempts, finishReason: choice?.finish_reason ?? null },
        );
      }

      const result: CompletionResult = { text, model: parsed.model ?? request.model ?? options.model };
      const usage = toUsage(parsed.usage);
      if (usage) result.usage = usage;
      if (request.json) {
        const json = parseJsonContent(text);
        if (!json.ok) {
          throw new ProviderError(
            'OUTPUT_INVALID',
            `${name} was asked for JSON but answered with other text`,
            {
              provider: name,
              attempts,
              finishReason: choice?.finish_reason ?? null,
              body: text.slice(0, BODY_PREFIX),
            },
          );
        }
        result.json = json.value;
      }
      return result;
    },
  };
}
