/**
 * r3's typed TypeScript client: `createR3Client` is openapi-fetch over the types openapi-typescript
 * generated from r3's OpenAPI document (`client/schema.d.ts`; `npm run client:generate` writes it
 * anew, and a test fails while it is stale). Beside it: `verifySignature` for webhook receivers (the
 * server's own implementation) and `runEvents`, a run's server-sent events with Last-Event-ID resume.
 *
 *   const r3 = createR3Client({ baseUrl: 'https://r3.example.com', token });
 *   const { data, error } = await r3.POST('/api/v1/skills/{slug}/runs', {
 *     params: { path: { slug: 'summarize' } },
 *     body: { input: { text: '…' } },
 *   });
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export {
  DEFAULT_SIGNATURE_TOLERANCE_SEC,
  SIGNATURE_HEADER,
  type SignatureFailure,
  type VerifyOptions,
  type VerifyResult,
  verifySignature,
} from '../src/features/webhooks/signature.js';
export type { components, operations, paths } from './schema.js';
export { type RunEvent, type RunEventsOptions, runEvents } from './sse.js';

export type R3Client = Client<paths>;

export interface R3ClientOptions {
  /** The server's root URL (`https://r3.example.com`); paths carry `/api/v1`. */
  baseUrl: string;
  /** An r3 API token (`r3_live_…`). */
  token: string;
  /** Replaces `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers sent with every request (an `Idempotency-Key` goes per call). */
  headers?: Record<string, string>;
}

/** A client whose every call is typed by r3's OpenAPI document. */
export function createR3Client(options: R3ClientOptions): R3Client {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.token}`, ...options.headers },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
