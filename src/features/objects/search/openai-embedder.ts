import { z } from 'zod';
import { ProviderError } from '../../../platform/models/model-provider.js';
import {
  abortable,
  clientOptions,
  createOpenAIClient,
  toProviderError,
} from '../../../platform/models/openai-client.js';
import { type Embedder, type EmbedOptions, normalizeInPlace } from './embedder.js';

/** Settings of an embedder for any OpenAI-compatible `POST /embeddings` server. */
export interface OpenAIEmbedderOptions {
  /** API root including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; omitted when empty. */
  apiKey?: string;
  model: string;
  /** Length of the model's vectors; an answer of another length is an error. */
  dimensions: number;
  /**
   * Also send `dimensions` in the request, for models that can shorten their vectors
   * (OpenAI's text-embedding-3-*). Default false: many compatible servers reject the field.
   */
  sendDimensions?: boolean;
  /** Most inputs per request. Default 64. */
  batchSize?: number;
  /** Bound on one attempt. Default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx and network failures. Default 3. */
  maxRetries?: number;
  /** Longest `Retry-After` honoured; a longer one ends the retries. Default 30 s. */
  maxRetryAfterMs?: number;
  fetch?: typeof fetch;
}

const embeddingsAnswer = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

const BODY_PREFIX = 500;

/**
 * An embedder backed by an OpenAI-compatible server. Texts are sent in batches of `batchSize`, one
 * batch at a time (gentle on rate limits); blank texts are not sent and get the zero vector (OpenAI
 * rejects empty input). Answers are re-normalised, since not every compatible server returns unit
 * vectors. Long texts are not truncated here: callers chunk documents to the model's input limit.
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const name = `openai:${options.model}`;
  const batchSize = options.batchSize ?? 64;
  const { dimensions } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be >= 1, got ${batchSize}`);
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  }
  const settings = clientOptions(options, name, 30_000);
  const client = createOpenAIClient(settings);

  async function embedBatch(inputs: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    let answer: unknown;
    try {
      answer = await abortable(
        client.embeddings.create(
          {
            model: options.model,
            input: inputs,
            encoding_format: 'float',
            ...(options.sendDimensions ? { dimensions } : {}),
          },
          signal ? { signal } : {},
        ),
        signal,
      );
    } catch (error) {
      throw toProviderError(error, settings, signal);
    }
    const details = { provider: name };
    const parsed = embeddingsAnswer.safeParse(answer);
    if (!parsed.success) {
      throw new ProviderError(
        'PROVIDER_ERROR',
        `${name} answered with an unexpected body`,
        { ...details, body: JSON.stringify(answer ?? null).slice(0, BODY_PREFIX) },
        parsed.error,
      );
    }
    const data = parsed.data.data;
    const out: Array<Float32Array | undefined> = new Array(inputs.length);
    for (const item of data) {
      if (item.index >= inputs.length || out[item.index] !== undefined) {
        throw new ProviderError('PROVIDER_ERROR', `${name} answered with a bad index ${item.index}`, details);
      }
      if (item.embedding.length !== dimensions) {
        throw new ProviderError(
          'PROVIDER_ERROR',
          `${name} answered ${item.embedding.length} dimensions, configured ${dimensions}`,
          details,
        );
      }
      out[item.index] = normalizeInPlace(Float32Array.from(item.embedding));
    }
    const vectors: Float32Array[] = [];
    for (let i = 0; i < inputs.length; i++) {
      const vector = out[i];
      if (vector === undefined) {
        throw new ProviderError('PROVIDER_ERROR', `${name} answered no embedding for input ${i}`, details);
      }
      vectors.push(vector);
    }
    return vectors;
  }

  return {
    name,
    dimensions,
    async embed(texts: readonly string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      const out: Float32Array[] = texts.map(() => new Float32Array(dimensions));
      const pending: number[] = [];
      texts.forEach((text, i) => {
        if (text.trim() !== '') pending.push(i);
      });
      for (let start = 0; start < pending.length; start += batchSize) {
        const positions = pending.slice(start, start + batchSize);
        const vectors = await embedBatch(
          positions.map((i) => texts[i] ?? ''),
          embedOptions?.signal,
        );
        positions.forEach((position, j) => {
          const vector = vectors[j];
          if (vector) out[position] = vector;
        });
      }
      return out;
    },
  };
}
