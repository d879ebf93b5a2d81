/** The embedder a deployment uses, chosen by configuration (R3_EMBEDDINGS_*). */
import type { Config } from '../../../platform/config.js';
import type { Embedder } from './embedder.js';
import { createLocalEmbedder } from './local-embedder.js';
import { createOpenAIEmbedder } from './openai-embedder.js';

/** `local`: the built-in hashed n-gram embedder; `openai`: an OpenAI-compatible `/embeddings` server. */
export function createConfiguredEmbedder(config: Pick<Config, 'embeddings' | 'model'>): Embedder {
  const { provider, model, dimensions } = config.embeddings;
  if (provider === 'local') return createLocalEmbedder({ dimensions });
  return createOpenAIEmbedder({
    baseUrl: config.model.openai.baseUrl,
    ...(config.model.openai.apiKey ? { apiKey: config.model.openai.apiKey } : {}),
    model,
    dimensions,
  });
}
