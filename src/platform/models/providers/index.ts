import { z } from 'zod';
import { type ModelProvider, ProviderError } from '../model-provider.js';
import { createEchoProvider } from './echo.js';
import { createOpenAIProvider, type OpenAIProviderOptions } from './openai.js';

/** Names of the built-in providers. */
export const MODEL_PROVIDER_NAMES = ['echo', 'openai'] as const;

/** A built-in provider's name. */
export type ModelProviderName = (typeof MODEL_PROVIDER_NAMES)[number];

/**
 * Model-provider settings: `provider` is the default (`R3_MODEL_PROVIDER`); `openai` holds
 * `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `R3_MODEL`. The `openai` provider is available when
 * `openai.model` is set, whichever provider is the default.
 */
export const modelProviderConfigSchema = z.object({
  provider: z.enum(MODEL_PROVIDER_NAMES).default('echo'),
  openai: z
    .object({
      baseUrl: z.url({ protocol: /^https?$/ }).default('https://api.openai.com/v1'),
      apiKey: z.string().optional(),
      model: z.string().min(1).optional(),
      temperature: z.number().min(0).max(2).optional(),
      timeoutMs: z.number().int().positive().optional(),
      maxRetries: z.number().int().min(0).max(10).optional(),
    })
    .optional(),
});

/** Model-provider settings as accepted (defaults optional). */
export type ModelProviderConfig = z.input<typeof modelProviderConfigSchema>;

/** Injected by tests and the composition root. */
export interface ModelProviderDeps {
  fetch?: typeof fetch;
}

/** The providers a deployment can use, and which one is the default. */
export interface ModelProviderRegistry {
  readonly defaultName: ModelProviderName;
  /** Names of the providers that are configured. */
  readonly available: readonly ModelProviderName[];
  /**
   * The provider called `name` (a skill manifest's `model.provider`), or the default when absent.
   * Throws `ProviderError` `PROVIDER_ERROR` for an unknown or unconfigured provider.
   */
  get(name?: string): ModelProvider;
}

function openaiOptions(
  openai: z.output<typeof modelProviderConfigSchema>['openai'],
  deps: ModelProviderDeps,
): OpenAIProviderOptions | undefined {
  if (openai?.model === undefined) return undefined;
  const options: OpenAIProviderOptions = { baseUrl: openai.baseUrl, model: openai.model };
  if (openai.apiKey !== undefined) options.apiKey = openai.apiKey;
  if (openai.temperature !== undefined) options.temperature = openai.temperature;
  if (openai.timeoutMs !== undefined) options.timeoutMs = openai.timeoutMs;
  if (openai.maxRetries !== undefined) options.maxRetries = openai.maxRetries;
  if (deps.fetch) options.fetch = deps.fetch;
  return options;
}

function parseConfig(config: ModelProviderConfig): z.output<typeof modelProviderConfigSchema> {
  const parsed = modelProviderConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new Error(`invalid model provider configuration: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

const OPENAI_MISSING =
  'the openai model provider needs a model name (R3_MODEL), and OPENAI_BASE_URL / OPENAI_API_KEY for its server';

/**
 * Builds the configured default provider. Throws a plain `Error` (a start-up failure) when the
 * configuration is invalid or `openai` is chosen without a model.
 */
export function createModelProvider(
  config: ModelProviderConfig,
  deps: ModelProviderDeps = {},
): ModelProvider {
  const parsed = parseConfig(config);
  if (parsed.provider === 'echo') return createEchoProvider();
  const options = openaiOptions(parsed.openai, deps);
  if (!options) throw new Error(OPENAI_MISSING);
  return createOpenAIProvider(options);
}

/**
 * Builds every configured provider once (they are shared by all runs). `echo` is always available;
 * `openai` when its model is configured. Fails like `createModelProvider` when the default
 * provider cannot be built.
 */
export function createModelProviderRegistry(
  config: ModelProviderConfig,
  deps: ModelProviderDeps = {},
): ModelProviderRegistry {
  const parsed = parseConfig(config);
  const providers = new Map<string, ModelProvider>([['echo', createEchoProvider()]]);
  const options = openaiOptions(parsed.openai, deps);
  if (options) providers.set('openai', createOpenAIProvider(options));
  if (!providers.has(parsed.provider)) throw new Error(OPENAI_MISSING);
  const available = MODEL_PROVIDER_NAMES.filter((n) => providers.has(n));
  return {
    defaultName: parsed.provider,
    available,
    get(name?: string): ModelProvider {
      const wanted = name ?? parsed.provider;
      const provider = providers.get(wanted);
      if (provider) return provider;
      const known = (MODEL_PROVIDER_NAMES as readonly string[]).includes(wanted);
      throw new ProviderError(
        'PROVIDER_ERROR',
        known
          ? `model provider ${wanted} is not configured on this deployment`
          : `unknown model provider ${JSON.stringify(wanted)} (known: ${MODEL_PROVIDER_NAMES.join(', ')})`,
        { provider: wanted },
      );
    },
  };
}
