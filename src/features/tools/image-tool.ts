/**
 * `generate_image` (docs/mcp.md#built-in-tools): a prompt turned into an image by an OpenAI-compatible
 * images API (`POST <OPENAI_BASE_URL>/images/generations` with `R3_IMAGE_MODEL`, through the official
 * `openai` SDK and r3's client rules) and stored as an artifact of the org (and of the run, inside one).
 * Keyed: inside a run the call's idempotency key (run id + call id) names the artifact, so a call
 * re-executed after a crash answers the image already stored without asking for another.
 */
import type OpenAI from 'openai';
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import type { Config } from '../../platform/config.js';
import { ApiError, toolFailed, toolTimeout, toolUnavailable } from '../../platform/errors.js';
import { artifactLink } from '../../platform/mcp/resources.js';
import { isProviderError } from '../../platform/models/model-provider.js';
import {
  abortable,
  clientOptions,
  createOpenAIClient,
  toProviderError,
} from '../../platform/models/openai-client.js';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import type { ArtifactService } from '../artifacts/index.js';

/** One generation may take long; this bounds one attempt. */
const IMAGE_TIMEOUT_MS = 120_000;
const IMAGE_MAX_RETRIES = 2;
/** Models that answer base64 only and refuse `response_format` (OpenAI's GPT image models). */
const ALWAYS_BASE64 = /^gpt-image/;

const SIZES = [
  'auto',
  '256x256',
  '512x512',
  '1024x1024',
  '1536x1024',
  '1024x1536',
  '1792x1024',
  '1024x1792',
] as const;

const generateImageArgs = z.strictObject({
  prompt: z.string().trim().min(1).max(4000).describe('What the image shows.'),
  size: z
    .enum(SIZES)
    .optional()
    .describe("Width x height in pixels, as the model supports them (the model's default when absent)."),
});

const generateImageResult = z.object({
  artifactId: z.number().int(),
  url: z.string(),
  mediaType: z.string(),
});

/** The image formats an images API answers, recognised by their first bytes. */
function imageType(bytes: Buffer): { mediaType: string; extension: string } | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { mediaType: 'image/png', extension: 'png' };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return { mediaType: 'image/jpeg', extension: 'jpg' };
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return { mediaType: 'image/webp', extension: 'webp' };
  }
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return { mediaType: 'image/gif', extension: 'gif' };
  return undefined;
}

/** A file name from the prompt's first words: `a-red-fox-in-the-snow.png`. */
function fileName(prompt: string, extension: string): string {
  const words = prompt
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${words === '' ? 'image' : words}.${extension}`;
}

/** `generate_image` over `artifacts`, with the openai provider's server settings. */
export function imageTool(deps: {
  artifacts: ArtifactService;
  model: string | undefined;
  openai: Config['model']['openai'];
}): AgentToolDef {
  const { artifacts, model } = deps;
  const options = clientOptions(
    {
      baseUrl: deps.openai.baseUrl,
      maxRetries: IMAGE_MAX_RETRIES,
      ...(deps.openai.apiKey ? { apiKey: deps.openai.apiKey } : {}),
    },
    'openai',
    IMAGE_TIMEOUT_MS,
  );
  let client: OpenAI | undefined;

  async function generate(
    prompt: string,
    size: (typeof SIZES)[number] | undefined,
    signal: AbortSignal | undefined,
  ) {
    client ??= createOpenAIClient(options);
    try {
      return await abortable(
        client.images.generate(
          {
            model: model as string,
            prompt,
            n: 1,
            // GPT image models always answer base64 and refuse the parameter; DALL·E and most
            // compatible servers answer URLs unless asked for b64_json.
            ...(ALWAYS_BASE64.test(model as string) ? {} : { response_format: 'b64_json' as const }),
            ...(size ? { size } : {}),
          },
          signal ? { signal } : {},
        ),
        signal,
      );
    } catch (error) {
      const mapped = toProviderError(error, options, signal);
      if (isProviderError(mapped, 'PROVIDER_TIMEOUT')) {
        throw toolTimeout(`The images API did not answer within ${IMAGE_TIMEOUT_MS} ms.`, {
          limitMs: IMAGE_TIMEOUT_MS,
        });
      }
      if (isProviderError(mapped)) {
        throw toolFailed(`The images API failed: ${mapped.message}`, {
          reason: 'upstream',
          ...(mapped.details.status !== undefined ? { status: mapped.details.status } : {}),
        });
      }
      if (signal?.aborted) throw toolFailed('The image generation was cancelled.', { reason: 'aborted' });
      throw mapped;
    }
  }

  return defineAgentTool({
    name: 'generate_image',
    title: 'Generate an image',
    group: 'builtin',
    description:
      "Generates an image from a prompt with the deployment's image model and stores it as an artifact " +
      '(of the run, inside one); answers {artifactId, url, mediaType} — `url` serves the image.',
    args: generateImageArgs,
    result: generateImageResult,
    idempotency: 'keyed',
    uses: ['run', 'mcp'],
    access: access.invoke,
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async execute(args, call) {
      if (model === undefined) {
        throw toolUnavailable('generate_image is not configured on this deployment (set R3_IMAGE_MODEL).', {
          setting: 'R3_IMAGE_MODEL',
        });
      }
      if (call.idempotencyKey !== null) {
        const made = await artifacts.findByKey(call.orgId, call.idempotencyKey);
        if (made) return { artifactId: made.id, url: made.url, mediaType: made.mediaType };
      }
      const answer = await generate(args.prompt, args.size, call.signal);
      const encoded = answer.data?.[0]?.b64_json;
      if (typeof encoded !== 'string' || encoded === '') {
        throw toolFailed('The images API answered no image data (b64_json).', { reason: 'bad_response' });
      }
      const content = Buffer.from(encoded, 'base64');
      const type = imageType(content);
      if (!type)
        throw toolFailed('The images API answered bytes that are not an image.', { reason: 'bad_response' });
      if (content.byteLength > artifacts.maxBytes) {
        throw toolFailed(
          `The image is ${content.byteLength} bytes, over the artifact limit of ${artifacts.maxBytes} bytes (R3_ARTIFACT_MAX_BYTES).`,
          { reason: 'artifact_too_large', limitBytes: artifacts.maxBytes, bytes: content.byteLength },
        );
      }
      let made: Awaited<ReturnType<ArtifactService['create']>>;
      try {
        made = await artifacts.create(
          {
            orgId: call.orgId,
            actor: call.actor,
            apiTokenId: call.apiTokenId,
            runId: call.runId,
            missionRunId: call.missionRunId,
            idempotencyKey: call.idempotencyKey,
            requestId: call.requestId,
          },
          { name: fileName(args.prompt, type.extension), mediaType: type.mediaType, content },
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'VALIDATION_FAILED') {
          throw toolFailed('The image could not be stored as an artifact.', { reason: 'artifact_refused' });
        }
        throw error;
      }
      return { artifactId: made.id, url: made.url, mediaType: made.mediaType };
    },
    links: (_args, result) => [
      artifactLink(result.artifactId, `image-${result.artifactId}`, result.mediaType),
    ],
  });
}
