/**
 * The text of `client/schema.d.ts` from an OpenAPI document (openapi-typescript). Regenerate with
 * `npm run client:generate`; test/client/schema.test.ts fails while the committed file is stale.
 */
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

export const SCHEMA_FILE = new URL('./schema.d.ts', import.meta.url);

export async function clientTypes(document: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(document as unknown as OpenAPI3, { alphabetize: true });
  return `// Generated from r3's OpenAPI document by openapi-typescript: \`npm run client:generate\`.\n${astToString(ast)}`;
}
