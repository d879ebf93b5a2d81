/**
 * A WebVTT transcript as speaker turns. Cues are parsed by webvtt-parser (the W3C algorithm); the
 * speaker of a cue is its voice span (`<v Alice>…`) or, as Zoom writes its transcripts, a
 * `Name: ` prefix of the cue text. Consecutive cues of one speaker are one turn.
 */

import type { Tree, TreeNode } from 'webvtt-parser';
import webvtt from 'webvtt-parser';

/** One speaker's uninterrupted part of a transcript; times in seconds from the start. */
export interface TranscriptTurn {
  speaker: string | null;
  start: number;
  end: number;
  text: string;
}

/** The character references WebVTT defines (with their semicolons: the parser's defaults lack them). */
const ENTITIES = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&lrm;': '\u200e',
  '&rlm;': '\u200f',
  '&nbsp;': '\u00a0',
} as const;

/** A speaker prefix as Zoom writes it: up to 80 characters without a colon, then ": ". */
const PREFIX = /^([^:\n]{1,80}):\s+([\s\S]*)$/;

function textOf(nodes: readonly TreeNode[]): string {
  return nodes
    .map((node) => {
      if (node.type === 'text') return node.value;
      if (node.type === 'object') return textOf(node.children as TreeNode[]);
      return '';
    })
    .join('');
}

function voiceOf(tree: Tree): string | null {
  for (const node of tree.children) {
    if (node.type === 'object' && node.name === 'v' && node.value.trim() !== '') return node.value.trim();
  }
  return null;
}

/** Thrown for a text that is not WebVTT at all. */
export class WebVttError extends Error {
  override name = 'WebVttError';
}

/**
 * The speaker turns of a WebVTT document. Throws {@link WebVttError} when it lacks the `WEBVTT`
 * signature; cues the parser could not read are left out (the parser reports and skips them).
 */
export function transcriptTurns(vtt: string): TranscriptTurn[] {
  const parsed = new webvtt.WebVTTParser(ENTITIES).parse(vtt, 'metadata');
  const signature = parsed.errors.find((e) => /signature/i.test(e.message));
  if (signature) throw new WebVttError(signature.message);
  const turns: TranscriptTurn[] = [];
  for (const cue of parsed.cues) {
    let speaker = voiceOf(cue.tree);
    let text = textOf(cue.tree.children).replace(/\s+/g, ' ').trim();
    if (speaker === null) {
      const match = PREFIX.exec(text);
      if (match) {
        speaker = (match[1] ?? '').trim();
        text = (match[2] ?? '').trim();
      }
    }
    if (text === '') continue;
    const last = turns.at(-1);
    if (last && last.speaker === speaker) {
      last.end = Math.max(last.end, cue.endTime);
      last.text = `${last.text} ${text}`;
    } else {
      turns.push({ speaker, start: cue.startTime, end: cue.endTime, text });
    }
  }
  return turns;
}

/** One line per turn (`Speaker: text`, or the text alone): what full-text search indexes. */
export function turnLines(turns: readonly TranscriptTurn[]): string {
  return turns.map((t) => (t.speaker ? `${t.speaker}: ${t.text}` : t.text)).join('\n');
}

/** The turns back from their lines and their timing ({@link turnLines}'s inverse). */
export function turnsFromLines(
  content: string,
  timing: ReadonlyArray<{ speaker: string | null; start: number; end: number }>,
): TranscriptTurn[] {
  const lines = content === '' ? [] : content.split('\n');
  return timing.map((t, i) => {
    const line = lines[i] ?? '';
    const prefix = t.speaker ? `${t.speaker}: ` : '';
    return { ...t, text: line.startsWith(prefix) ? line.slice(prefix.length) : line };
  });
}
