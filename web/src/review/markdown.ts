/**
 * A model's draft as a person reads it: Markdown rendered by marked, then sanitized by DOMPurify (no
 * script, no event handler, no `javascript:` link, no style, no form, no image from elsewhere), so
 * nothing a model writes runs or phones home. Long drafts are cut at `LIMIT` characters; the caller
 * offers the whole run for download.
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

/** Characters of Markdown rendered at most. */
export const LIMIT = 200_000;

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') node.setAttribute('rel', 'noopener noreferrer nofollow');
  if (node.tagName === 'IMG') {
    const src = node.getAttribute('src') ?? '';
    // Same-origin or inline images only (the page's CSP would refuse others anyway).
    if (!src.startsWith('data:image/') && !(src.startsWith('/') && !src.startsWith('//'))) {
      node.replaceWith(document.createTextNode(node.getAttribute('alt') ?? ''));
    }
  }
});

export interface RenderedDraft {
  html: string;
  /** The draft was longer than `LIMIT` and is cut. */
  truncated: boolean;
  /** Its whole length, in characters. */
  length: number;
}

/** Sanitized HTML of Markdown `text` (cut at `LIMIT`). */
export function renderMarkdown(text: string): RenderedDraft {
  const truncated = text.length > LIMIT;
  const source = truncated ? text.slice(0, LIMIT) : text;
  const raw = marked.parse(source, { async: false, gfm: true }) as string;
  const html = DOMPurify.sanitize(raw, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style', 'srcset'],
  });
  return { html, truncated, length: text.length };
}
