/**
 * A local OpenAI-compatible server on a real socket (tests and benchmarks start it): `POST /v1/chat/completions`,
 * `POST /v1/embeddings` and `POST /v1/images/generations` in the shapes OpenAI answers with, Bearer authentication, and OpenAI-style
 * error bodies. Tests queue scripted replies (failures, hangs, dropped connections) that are served
 * before the default behaviour.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** `performance.now()` when the request arrived. */
  at: number;
}

/** A scripted reply: an answer, a connection that never answers, or a dropped connection. */
export type Reply =
  | { status?: number; headers?: Record<string, string>; body?: unknown }
  | { hang: true }
  | { drop: true };

/** A tool call as the chat-completions protocol carries it. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  temperature?: number;
  response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
}

export interface ImagesBody {
  model: string;
  prompt: string;
  n?: number;
  size?: string;
  response_format?: 'b64_json' | 'url';
}

/** A valid 1×1 PNG (the default generated image). */
export const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** What a scripted assistant says: a final text, or tool calls (`arguments` as JSON text). */
export type AssistantTurn =
  | { content: string }
  | { content?: string | null; toolCalls: Array<{ id: string; name: string; arguments: string }> }
  /** Never answer this request (a model call in flight when a test kills its worker). */
  | { hang: true };

export interface FakeOpenAIOptions {
  /**
   * Scripts the assistant of a chat request (tool loops): its answer, or undefined for the default
   * behaviour. Requests are checked as OpenAI does: every `tool_calls` answered by `tool` messages
   * with matching ids before the next message, no `tool` message without its call, tool definitions
   * well-formed, and a tool call only of a tool the request offers.
   */
  assistant?: (body: ChatBody) => AssistantTurn | undefined;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Answer 400 to `response_format.type = json_schema`, as some compatible servers do. */
  rejectJsonSchema?: boolean;
  /** Content of the assistant message. Default: `{"echo": <prompt>}` in JSON mode, else `echo: <prompt>`. */
  chatContent?: (body: ChatBody) => string;
  /** Vector for one input. Default: a deterministic, non-normalised vector of `embeddingDimensions`. */
  embed?: (text: string) => number[];
  embeddingDimensions?: number;
  /** Bytes of a generated image (`POST /v1/images/generations`). Default: a 1×1 PNG. */
  image?: (body: ImagesBody) => Buffer;
  /** Milliseconds every default answer waits before it is sent (a model's thinking time). Default 0. */
  delayMs?: number;
}

export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues replies served, in order, before the default behaviour. */
  enqueue(...replies: Reply[]): void;
  /** Milliseconds between successive requests (the client's waits between retries). */
  gaps(): number[];
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

function openaiError(status: number, message: string, type: string, param: string | null = null) {
  return { status, body: { error: { message, type, param, code: null } } };
}

/** Deterministic vector with magnitude ≠ 1, so normalisation is observable. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const out = new Array<number>(dimensions).fill(0);
  for (let i = 0; i < text.length; i++) {
    const slot = (text.charCodeAt(i) * 31 + i) % dimensions;
    out[slot] = (out[slot] ?? 0) + 1;
  }
  out[0] = (out[0] ?? 0) + 0.5;
  return out;
}

/** A chat completion answer in OpenAI's shape. */
function chatCompletion(model: string, message: Record<string, unknown>, finishReason: string) {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: `${model}-2024-01-01`,
      choices: [{ index: 0, message, finish_reason: finishReason }],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    },
  };
}

/** A scripted reply (`enqueue`): the assistant answers `content`. */
export function chatReply(content: string, model = 'gpt-test'): Reply {
  return chatCompletion(model, { role: 'assistant', content }, 'stop');
}

function defaultReply(
  request: RecordedRequest,
  options: FakeOpenAIOptions,
): { status: number; body: unknown } | { hang: true } {
  const auth = request.headers.authorization;
  if (options.apiKey !== undefined && auth !== `Bearer ${options.apiKey}`) {
    return openaiError(401, 'Incorrect API key provided.', 'invalid_request_error');
  }
  if (request.method !== 'POST') return openaiError(405, 'Method not allowed', 'invalid_request_error');
  const body = request.body as Record<string, unknown> | undefined;
  if (body === undefined || typeof body !== 'object' || typeof body.model !== 'string') {
    return openaiError(400, 'you must provide a model parameter', 'invalid_request_error', 'model');
  }
  if (request.path === '/v1/chat/completions') {
    const chat = body as unknown as ChatBody;
    if (!Array.isArray(chat.messages) || chat.messages.length === 0) {
      return openaiError(400, "'messages' is a required property", 'invalid_request_error', 'messages');
    }
    const problem = toolProtocolProblem(chat);
    if (problem) return openaiError(400, problem, 'invalid_request_error', 'messages');
    const scripted = options.assistant?.(chat);
    if (scripted && 'hang' in scripted) return { hang: true };
    if (scripted && 'toolCalls' in scripted) {
      const offered = new Set((chat.tools ?? []).map((t) => t.function.name));
      const message = {
        role: 'assistant',
        content: scripted.content ?? null,
        tool_calls: scripted.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
      return chatCompletion(chat.model, message, offered.size > 0 ? 'tool_calls' : 'stop');
    }
    const format = chat.response_format?.type;
    if (format === 'json_schema' && options.rejectJsonSchema) {
      return openaiError(
        400,
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        'invalid_request_error',
        'response_format',
      );
    }
    const prompt = chat.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    const content =
      (scripted as { content: string } | undefined)?.content ??
      options.chatContent?.(chat) ??
      (format === 'json_schema' || format === 'json_object'
        ? JSON.stringify({ echo: prompt })
        : `echo: ${prompt}`);
    return chatCompletion(chat.model, { role: 'assistant', content }, 'stop');
  }
  if (request.path === '/v1/embeddings') {
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.some((t) => typeof t !== 'string' || t === '')) {
      return openaiError(400, "'$.input' is invalid.", 'invalid_request_error', 'input');
    }
    const dimensions = options.embeddingDimensions ?? 8;
    return {
      status: 200,
      body: {
        object: 'list',
        model: body.model,
        // Reversed on purpose: clients must order by `index`, not by position.
        data: (input as string[])
          .map((text, index) => ({
            object: 'embedding',
            index,
            embedding: options.embed?.(text) ?? fakeEmbedding(text, dimensions),
          }))
          .reverse(),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      },
    };
  }
  if (request.path === '/v1/images/generations') {
    const images = body as unknown as ImagesBody;
    if (typeof images.prompt !== 'string' || images.prompt === '') {
      return openaiError(400, "'prompt' is a required property", 'invalid_request_error', 'prompt');
    }
    if (images.model.startsWith('gpt-image') && images.response_format !== undefined) {
      // As OpenAI answers: GPT image models always return base64 and refuse the parameter.
      return openaiError(
        400,
        "Unknown parameter: 'response_format'.",
        'invalid_request_error',
        'response_format',
      );
    }
    const n = images.n ?? 1;
    const bytes = options.image?.(images) ?? ONE_PIXEL_PNG;
    return {
      status: 200,
      body: {
        created: 1_700_000_000,
        data: Array.from({ length: n }, () =>
          images.response_format === 'url'
            ? { url: 'https://images.example/generated.png', revised_prompt: images.prompt }
            : { b64_json: bytes.toString('base64'), revised_prompt: images.prompt },
        ),
      },
    };
  }
  return openaiError(404, `Unknown path ${request.path}`, 'invalid_request_error');
}

/** What OpenAI answers 400 for in a conversation with tools, or undefined when it is well-formed. */
export function toolProtocolProblem(chat: ChatBody): string | undefined {
  for (const tool of chat.tools ?? []) {
    if (tool.type !== 'function' || typeof tool.function?.name !== 'string') {
      return "Invalid 'tools': each must be {type: 'function', function: {name, parameters}}.";
    }
    const params = tool.function.parameters as { type?: unknown } | undefined;
    if (params !== undefined && params.type !== 'object') {
      return `Invalid schema for function '${tool.function.name}': schema must be a JSON Schema of 'type: "object"'.`;
    }
  }
  let open = new Set<string>();
  for (const message of chat.messages) {
    if (message.role === 'tool') {
      if (message.tool_call_id === undefined || !open.has(message.tool_call_id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      if (typeof message.content !== 'string')
        return "Invalid 'content' of a tool message: expected a string.";
      open.delete(message.tool_call_id);
      continue;
    }
    if (open.size > 0) {
      return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.";
    }
    open = new Set((message.tool_calls ?? []).map((call) => call.id));
    if (open.size !== (message.tool_calls ?? []).length) return 'Duplicate tool_call ids in one message.';
  }
  if (open.size > 0) {
    return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.";
  }
  return undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? {});
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** Starts the fake server on an ephemeral port of 127.0.0.1. */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const script: Reply[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = createServer(async (req, res) => {
    const at = performance.now();
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = raw;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0] ?? '',
      headers: req.headers,
      body,
      at,
    };
    requests.push(recorded);
    for (const waiter of waiters.filter((w) => w.count <= requests.length)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const reply = script.shift();
    if (reply && 'hang' in reply) return;
    if (reply && 'drop' in reply) {
      req.socket.destroy();
      return;
    }
    if (reply) {
      send(res, reply.status ?? 200, reply.body, reply.headers);
      return;
    }
    const answer = defaultReply(recorded, options);
    if ('hang' in answer) return;
    if (options.delayMs) setTimeout(() => send(res, answer.status, answer.body), options.delayMs);
    else send(res, answer.status, answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => {
      script.push(...replies);
    },
    gaps: () => requests.slice(1).map((r, i) => r.at - (requests[i]?.at ?? r.at)),
    waitForRequests: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * The environment of an r3 whose default provider is `fake` (api key `sk-test`, model `gpt-test`);
 * `extra` adds to it.
 */
export function openaiEnv(fake: FakeOpenAI, extra: Record<string, string> = {}): Record<string, string> {
  return {
    R3_MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: fake.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    R3_MODEL: 'gpt-test',
    ...extra,
  };
}
