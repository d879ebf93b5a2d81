/**
 * How an object instance is indexed for hybrid search, in one place for ingest, update and reindex:
 *
 * - full text: `setweight(title, 'A') || setweight(content, 'B') || setweight(metadata strings, 'C')`,
 *   each parsed with the object type's text-search configuration (`language`);
 * - vector: the embedder's vector of title + content (first {@link EMBED_CHARS} characters), stored as
 *   int8 codes (`encodeVector`) with its sign-bit signature (`encodeSignature`) and the embedder's name,
 *   so vectors of another embedder are never compared.
 */
import type { Embedder } from './search/embedder.js';
import { encodeSignature, encodeVector } from './search/vector-codec.js';

/** Characters of title + content that are embedded (keeps within remote models' input limits). */
export const EMBED_CHARS = 8_000;

/**
 * SQL of the tsvector of a document. The parameters are SQL expressions (placeholders or columns) of
 * the language (of type text: cast a placeholder, `$1::text`), title, content and metadata (jsonb).
 */
export function searchVectorSql(language: string, title: string, content: string, metadata: string): string {
  const config = `(${language})::regconfig`;
  return `setweight(to_tsvector(${config}, ${title}), 'A')
       || setweight(to_tsvector(${config}, ${content}), 'B')
       || setweight(jsonb_to_tsvector(${config}, ${metadata}, '["string"]'), 'C')`;
}

/** The stored vector of one document; all null when it could not be embedded. */
export interface DocumentVector {
  embedder: string | null;
  embedding: Buffer | null;
  signature: Buffer | null;
}

/** What gets embedded for a document. */
export function embeddingText(title: string, content: string): string {
  const text = content ? `${title}\n\n${content}` : title;
  return text.length > EMBED_CHARS ? text.slice(0, EMBED_CHARS) : text;
}

/** Embeds documents; a failing embedder leaves them without a vector (full text still finds them). */
export async function embedDocuments(
  embedder: Embedder,
  docs: ReadonlyArray<{ title: string; content: string }>,
  onError: (error: unknown) => void,
): Promise<DocumentVector[]> {
  if (docs.length === 0) return [];
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed(docs.map((d) => embeddingText(d.title, d.content)));
  } catch (error) {
    onError(error);
    return docs.map(() => ({ embedder: null, embedding: null, signature: null }));
  }
  return vectors.map((vector) => ({
    embedder: embedder.name,
    embedding: encodeVector(vector),
    signature: encodeSignature(vector),
  }));
}
