/**
 * What `fetch_url` and `crawl_site` make of a fetched body: HTML becomes its readable main content as
 * Markdown (read in worker threads, `page-reader.ts`); text and JSON are the body as it came, decoded
 * by its charset. Anything else (images, PDFs, archives) is not text and is refused.
 */

/** A page read: its title (null when the content has none), its text, the http(s) links it holds. */
export interface ReadPage {
  title: string | null;
  text: string;
  links: string[];
}

/** Which kind of content a response holds, from its `Content-Type` (or its first bytes when absent). */
export function contentKind(contentType: string, body: Buffer): 'html' | 'text' | 'other' {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (
    mediaType.startsWith('text/') ||
    mediaType === 'application/json' ||
    mediaType.endsWith('+json') ||
    mediaType === 'application/xml' ||
    mediaType.endsWith('+xml') ||
    mediaType === 'application/javascript' ||
    mediaType === 'application/x-ndjson'
  ) {
    return 'text';
  }
  if (mediaType !== '') return 'other';
  const start = body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'html';
  return body.subarray(0, 4096).includes(0) ? 'other' : 'text';
}

function charsetOf(contentType: string, body: Buffer, html: boolean): string {
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  if (declared) return declared;
  if (html) {
    const head = body.subarray(0, 2048).toString('latin1');
    const meta =
      /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1] ??
      /<meta[^>]+content\s*=\s*["'][^"']*charset=([\w-]+)/i.exec(head)?.[1];
    if (meta) return meta;
  }
  return 'utf-8';
}

/** The body as text, by the charset its header (or an HTML meta tag) names; UTF-8 otherwise. */
export function decodeBody(contentType: string, body: Buffer, html: boolean): string {
  const charset = charsetOf(contentType, body, html);
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
