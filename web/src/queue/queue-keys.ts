/**
 * The queue's keyboard: which command a key press in the list is. Single-character keys (j, k, x, a,
 * r, c, s, g, u, ?) count only while shortcuts are on (WCAG 2.1.4); the arrows and Enter always do. Pure:
 * the page decides what a command does.
 */

export type QueueCommand =
  | 'next'
  | 'previous'
  | 'open'
  | 'toggle'
  | 'approve'
  | 'reject'
  | 'changes'
  | 'snooze'
  | 'assign'
  | 'undo'
  | 'help';

/** What a key press reads as (the fields of a KeyboardEvent the choice needs). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

const ALWAYS: Readonly<Record<string, QueueCommand>> = {
  ArrowDown: 'next',
  ArrowUp: 'previous',
  Enter: 'open',
};

const SINGLE: Readonly<Record<string, QueueCommand>> = {
  j: 'next',
  k: 'previous',
  x: 'toggle',
  a: 'approve',
  r: 'reject',
  c: 'changes',
  s: 'snooze',
  g: 'assign',
  u: 'undo',
  '?': 'help',
};

/** The command of `press`, or null (then the key does what it does anyway). */
export function queueCommand(press: KeyPress, shortcuts: boolean): QueueCommand | null {
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  return ALWAYS[press.key] ?? (shortcuts ? (SINGLE[press.key] ?? null) : null);
}

/** The keys, as the help lists them (single-character ones marked). */
export const QUEUE_KEYS: ReadonlyArray<{ keys: string; what: string; single: boolean }> = [
  { keys: 'j / k', what: 'next / previous item', single: true },
  { keys: '↓ / ↑', what: 'next / previous item', single: false },
  { keys: 'Enter', what: 'open the item', single: false },
  { keys: 'x', what: 'select or unselect the item (bulk)', single: true },
  { keys: 'a', what: 'approve (the selected items, else this one)', single: true },
  { keys: 'r', what: 'reject with a reason', single: true },
  {
    keys: 'c',
    what: 'request changes with a reason (a draft or a plan: the model writes it again)',
    single: true,
  },
  { keys: 's', what: 'snooze', single: true },
  { keys: 'g', what: 'assign', single: true },
  { keys: 'u', what: 'undo the last decision (while it has not taken effect)', single: true },
  { keys: '?', what: 'this help', single: true },
];
