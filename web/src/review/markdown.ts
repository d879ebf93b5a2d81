/**
 * A model's draft as a person reads it: Markdown rendered by marked, then sanitized by DOMPurify (no
 * script, no event handler, no `javascript:` link, no style, no form, no image from elsewhere), so
 * nothing a model writes runs or phones home. Long drafts are cut at `LIMIT` characters; the caller
 * offers the whole run for download.
 *
 * What the sanitizer removes is reported (`removed`), so the reviewer is told and can read the raw
 * text: a draft must not hide text from its reviewer (issue 36 #12 — an unclosed `<style>` inside
 * `<math>` made everything after it the style's content, dropped with it).
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

/** What sanitizing removed from a draft's HTML. */
export interface Removed {
  /** The elements removed, by tag name (lower case), each once, in the order first met. */
  elements: string[];
  /** The attributes removed, by name, each once. */
  attributes: string[];
  /** Characters of text the page does not show (whitespace runs counted as one). */
  hiddenChars: number;
}

export interface RenderedDraft {
  html: string;
  /** The draft was longer than `LIMIT` and is cut. */
  truncated: boolean;
  /** Its whole length, in characters. */
  length: number;
  /** What the sanitizer removed; null when nothing. */
  removed: Removed | null;
}

/**
 * Characters of text in `html`, whitespace runs as one, parsed inert: a template's content runs no
 * script, loads nothing and applies no style.
 */
function textLength(html: string): number {
  const template = document.createElement('template');
  template.innerHTML = html;
  const text = template.content.textContent ?? '';
  return text.replace(/\s+/g, ' ').trim().length;
}

/** The elements and attributes DOMPurify reported for its last call, and the text that went with them. */
function removals(raw: string, html: string): Removed | null {
  const elements = new Set<string>();
  const attributes = new Set<string>();
  for (const entry of DOMPurify.removed as Array<{ element?: Node; attribute?: Attr | null }>) {
    if ('attribute' in entry && entry.attribute) attributes.add(entry.attribute.name.toLowerCase());
    else if (entry.element && entry.element.nodeType === Node.ELEMENT_NODE)
      elements.add(entry.element.nodeName.toLowerCase());
  }
  const hiddenChars = Math.max(0, textLength(raw) - textLength(html));
  if (elements.size === 0 && attributes.size === 0 && hiddenChars === 0) return null;
  return { elements: [...elements], attributes: [...attributes], hiddenChars };
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
  return { html, truncated, length: text.length, removed: removals(raw, html) };
}
