/**
 * The model-provider extension point: one interface in front of every text-generation backend
 * (`echo`, any OpenAI-compatible server, later others).
 *
 * Terminology:
 * - provider: a named backend (`echo`, `openai`) that completes one prompt.
 * - completion: one request/answer pair; retries inside a provider are invisible to the caller.
 * - JSON mode: the caller passes `json.schema`; the provider asks the backend for a JSON answer and
 *   parses it into `json`. Conformance to the schema is checked by the caller (the skill executor
 *   validates against the skill's `outputSchema`), not by the provider.
 */

/** One completion request. */
export interface CompletionRequest {
  /** System message (an agent's `systemPrompt`), sent before the prompt. */
  system?: string;
  /** The rendered prompt (the user message). */
  prompt: string;
  /** Model name; the provider's configured model when absent. */
  model?: string;
  temperature?: number;
  /** Ask for a JSON answer shaped by `schema` (a JSON Schema object); `name` labels it for the backend. */
  json?: { schema: object; name?: string };
  /**
   * Cancels the request (a cancelled run). When it fires, `complete` rejects with the signal's
   * `reason` as it is, not with a `ProviderError`, so the caller recognises its own cancellation.
   */
  signal?: AbortSignal;
  /** W3C trace id of the run; sent as `traceparent` with a fresh span id. */
  traceId?: string;
  /**
   * Tools the model may call. A provider that supports tools may answer with `toolCalls` instead
   * of a final text; one that does not (echo) ignores them.
   */
  tools?: readonly ToolSpec[];
  /**
   * The conversation after the prompt: earlier assistant turns (drafts a reviewer sent back, tool
   * calls), the reviewers' reasons as user turns, and the tools' answers.
   */
  turns?: readonly ConversationTurn[];
}

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: object;
}

/** A call the model asks for: `arguments` is the model's JSON text, unparsed. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * One turn after the prompt: the model's earlier answer (a draft, or calls it asked for; `toolCalls`
 * empty for a plain answer), a user's message (a reviewer's reason for changes), or a tool's answer
 * to one call.
 */
export type ConversationTurn =
  | { role: 'assistant'; content: string | null; toolCalls: readonly ModelToolCall[] }
  | { role: 'user'; content: string }
  | { role: 'tool'; toolCallId: string; content: string };

/**
 * The turns that ask for a new draft after `rounds` (oldest first): each draft the model gave, as its
 * answer (a `{text}` output as its text, any other as JSON), then the reviewer's reason as a user turn.
 */
export function revisionTurns(
  rounds: readonly { draft: Record<string, unknown>; reason: string }[],
): ConversationTurn[] {
  return rounds.flatMap(({ draft, reason }): ConversationTurn[] => {
    const keys = Object.keys(draft);
    const text = keys.length === 1 && typeof draft.text === 'string' ? draft.text : JSON.stringify(draft);
    return [
      { role: 'assistant', content: text, toolCalls: [] },
      { role: 'user', content: reason },
    ];
  });
}

/** Token accounting as reported by the backend; fields it does not report are absent. */
export interface CompletionUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}

/** One completion answer. */
export interface CompletionResult {
  text: string;
  /** The parsed answer; set only when JSON mode was requested and honoured. */
  json?: unknown;
  usage?: CompletionUsage;
  /** The model that answered, as the backend names it. */
  model: string;
  /** Calls the model asks for; when non-empty the answer is not final and `text` may be empty. */
  toolCalls?: ModelToolCall[];
}

/** A text-generation backend. Implementations are safe to share across concurrent runs. */
export interface ModelProvider {
  readonly name: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

/**
 * Stable codes of provider failures; they become the run's `error.code`.
 * - `PROVIDER_ERROR`: the backend refused or failed (non-2xx after retries, network failure after
 *   retries, malformed answer, provider not configured).
 * - `PROVIDER_TIMEOUT`: one attempt exceeded the provider's timeout.
 * - `OUTPUT_INVALID`: JSON was requested but the answer does not parse as JSON.
 */
export type ProviderErrorCode = 'PROVIDER_ERROR' | 'PROVIDER_TIMEOUT' | 'OUTPUT_INVALID';

/** Extra facts about a provider failure, safe to log and to show in a run's error. */
export interface ProviderErrorDetails {
  provider?: string;
  /** HTTP status of the last answer, when there was one. */
  status?: number;
  /** Requests made, retries included. */
  attempts?: number;
  /** A prefix of the answer body or of the unparseable content. */
  body?: string;
  [key: string]: unknown;
}

/** A provider failure with a stable `code`. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly code: ProviderErrorCode;
  readonly details: ProviderErrorDetails;

  constructor(code: ProviderErrorCode, message: string, details: ProviderErrorDetails = {}, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.details = details;
  }
}

/** Whether `error` is a `ProviderError` (optionally of one code). */
export function isProviderError(error: unknown, code?: ProviderErrorCode): error is ProviderError {
  return error instanceof ProviderError && (code === undefined || error.code === code);
}

/**
 * The skill output a completion maps to (docs/api.md "Authored resources"): the parsed JSON when there is one,
 * otherwise `{text}` — which is what the `echo` provider always yields.
 */
export function completionOutput(result: CompletionResult): unknown {
  return result.json !== undefined ? result.json : { text: result.text };
}
