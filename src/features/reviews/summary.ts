/**
 * A review item's `summary` (decisions §15): what the item is about in one line, so a queue row says
 * it without being opened — the draft's first 200 characters, or the proposed action's description.
 * Owners compute it from their subject when the item opens and when the subject changes under it.
 */

/** The longest summary, in characters (code points). */
export const SUMMARY_LENGTH = 200;

/** The keys a draft keeps its text under, most telling first. */
const TEXT_KEYS = ['markdown', 'text', 'content', 'body', 'draft', 'message', 'summary'];

/**
 * `text` as one line (each run of whitespace one space, trimmed), cut to its first 200 characters;
 * null when nothing is left.
 */
export function oneLineSummary(text: string): string | null {
  const line = text.replace(/\s+/gu, ' ').trim();
  if (line === '') return null;
  const chars = Array.from(line);
  return chars.length > SUMMARY_LENGTH ? chars.slice(0, SUMMARY_LENGTH).join('') : line;
}

/**
 * The summary of a draft: its text (a string, or an object's `markdown`, `text`, `content`, `body`,
 * `draft`, `message` or `summary` string, else its first string field), else its compact JSON; null
 * without a draft.
 */
export function draftSummary(output: unknown): string | null {
  if (output === null || output === undefined) return null;
  if (typeof output === 'string') return oneLineSummary(output);
  if (typeof output === 'object' && !Array.isArray(output)) {
    const fields = output as Record<string, unknown>;
    const key = TEXT_KEYS.find((k) => typeof fields[k] === 'string' && fields[k] !== '');
    const text = key ? fields[key] : Object.values(fields).find((v) => typeof v === 'string' && v !== '');
    if (typeof text === 'string') return oneLineSummary(text);
  }
  return oneLineSummary(JSON.stringify(output));
}
