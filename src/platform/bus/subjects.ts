/**
 * Subjects of r3's bus, relative to the namespace prefix (the bus adds `<prefix>.`):
 *
 * - `evt.<org>.<kind>.<id>.<name>`: durable domain events (stored in the stream), e.g.
 *   `evt.org_1.run.42.completed`. The org is the second token so a pattern can never cross tenants
 *   by accident (`evt.<org>.>` is one tenant's events).
 * - `sig.<…>`: wake signals, not stored (e.g. `sig.jobs.enqueued`).
 *
 * Tokens are validated, never rewritten: rewriting `a.b` to `a_b` would let two org ids collide.
 */
import { setBounded } from '../util/bounded-map.js';

/** Root token of durable events. */
export const EVENT_ROOT = 'evt';
/** Root token of wake signals. */
export const SIGNAL_ROOT = 'sig';
/** Root token, on the wire only, of announced events (`Bus.announce`): `evt.…` sent live, not stored. */
export const LIVE_ROOT = 'live';

/** Kinds of resources that emit events (the third token of an event subject). */
export type EventKind = 'run' | 'object' | 'review' | 'proposal' | 'mission';

const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
/** Tokens joined by dots: one test per subject on the publish path, instead of a split and one per token. */
const SUBJECT = /^[A-Za-z0-9_-]{1,128}(?:\.[A-Za-z0-9_-]{1,128})*$/;
/** `evt.<org>.<kind>.<id>.<name>`, parsed in one match. */
const EVENT_SUBJECT =
  /^evt\.([A-Za-z0-9_-]{1,128})\.(run|object|review|proposal|mission)\.([A-Za-z0-9_-]{1,128})\.([A-Za-z0-9_-]{1,128})$/;

/** Thrown when a subject, pattern or token would be ambiguous or unsafe on the wire. */
export class InvalidSubjectError extends Error {
  override readonly name = 'InvalidSubjectError';
}

/** True when `value` can be one subject token: letters, digits, `_`, `-`, at most 128 characters. */
export function isSubjectToken(value: string): boolean {
  return TOKEN.test(value);
}

/**
 * Returns `value` as a subject token, or throws `InvalidSubjectError` (dots, spaces, wildcards and
 * empty strings are refused). `label` names the value in the error.
 */
export function subjectToken(value: string | number, label = 'token'): string {
  const text = String(value);
  if (!isSubjectToken(text)) {
    throw new InvalidSubjectError(`${label} ${JSON.stringify(text)} is not a valid subject token`);
  }
  return text;
}

/** Subject of a run's event: `evt.<org>.run.<runId>.<name>` (name as in SSE: `completed`, `step_started`). */
export function runEventSubject(orgId: string, runId: string | number, name: string): string {
  return eventSubject(orgId, 'run', runId, name);
}

/** Subject of an object's event: `evt.<org>.object.<objectId>.<name>` (e.g. `created`). */
export function objectEventSubject(orgId: string, objectId: string | number, name: string): string {
  return eventSubject(orgId, 'object', objectId, name);
}

/** Subject of a mission run's event: `evt.<org>.mission.<missionRunId>.<name>`. */
export function missionEventSubject(orgId: string, missionRunId: string | number, name: string): string {
  return eventSubject(orgId, 'mission', missionRunId, name);
}

/** Pattern of every event of one mission run: `evt.<org>.mission.<id>.*` (what its SSE stream follows). */
export function missionEventsPattern(orgId: string, missionRunId: string | number): string {
  return `${EVENT_ROOT}.${subjectToken(orgId, 'org id')}.mission.${subjectToken(missionRunId, 'mission run id')}.*`;
}

/** Subject of a review item's event: `evt.<org>.review.<reviewId>.<name>`. */
export function reviewEventSubject(orgId: string, reviewId: string | number, name: string): string {
  return eventSubject(orgId, 'review', reviewId, name);
}

/** Subject of a proposal's event: `evt.<org>.proposal.<proposalId>.<name>`. */
export function proposalEventSubject(orgId: string, proposalId: string | number, name: string): string {
  return eventSubject(orgId, 'proposal', proposalId, name);
}

/** Subject `evt.<org>.<kind>.<id>.<name>` with every token validated. */
export function eventSubject(orgId: string, kind: EventKind, id: string | number, name: string): string {
  return [
    EVENT_ROOT,
    subjectToken(orgId, 'org id'),
    kind,
    subjectToken(id, `${kind} id`),
    subjectToken(name, 'event name'),
  ].join('.');
}

/** Pattern of every event of one run: `evt.<org>.run.<runId>.*` (what an SSE stream follows). */
export function runEventsPattern(orgId: string, runId: string | number): string {
  return `${EVENT_ROOT}.${subjectToken(orgId, 'org id')}.run.${subjectToken(runId, 'run id')}.*`;
}

/** Pattern of every event of one org: `evt.<org>.>`. */
export function orgEventsPattern(orgId: string): string {
  return `${EVENT_ROOT}.${subjectToken(orgId, 'org id')}.>`;
}

/** Pattern of every durable event of every org: `evt.>` (what the webhook dispatcher consumes). */
export const ALL_EVENTS_PATTERN = `${EVENT_ROOT}.>`;

/** Subject of a wake signal: `sig.<token>.<token>…`, e.g. `signalSubject('jobs', 'enqueued')`. */
export function signalSubject(...tokens: string[]): string {
  if (tokens.length === 0) throw new InvalidSubjectError('a signal subject needs at least one token');
  return [SIGNAL_ROOT, ...tokens.map((t) => subjectToken(t, 'signal token'))].join('.');
}

/** The parts of an event subject. `type` is the webhook event type (`run.completed`). */
export interface ParsedEventSubject {
  orgId: string;
  kind: EventKind;
  id: string;
  name: string;
  type: string;
}

/** Parses `evt.<org>.<kind>.<id>.<name>`; `undefined` for anything else. */
export function parseEventSubject(subject: string): ParsedEventSubject | undefined {
  const match = EVENT_SUBJECT.exec(subject);
  if (!match) return undefined;
  const [, orgId, kind, id, name] = match as unknown as [string, string, EventKind, string, string];
  return { orgId, kind, id, name, type: `${kind}.${name}` };
}

/** Throws `InvalidSubjectError` unless `subject` is literal tokens joined by dots (no wildcards). */
export function assertSubject(subject: string): void {
  if (!SUBJECT.test(subject)) {
    throw new InvalidSubjectError(`subject ${JSON.stringify(subject)} is not valid`);
  }
}

/**
 * Throws `InvalidSubjectError` unless `pattern` is tokens, `*` (exactly one token) or a final `>`
 * (one or more tokens), joined by dots.
 */
export function assertPattern(pattern: string): void {
  const tokens = pattern.split('.');
  const ok = tokens.every((t, i) => isSubjectToken(t) || t === '*' || (t === '>' && i === tokens.length - 1));
  if (!ok) throw new InvalidSubjectError(`subject pattern ${JSON.stringify(pattern)} is not valid`);
}

/** Throws unless `subjectOrPattern` lies under `<root>.` (e.g. only `evt.…` is stored). */
export function assertUnderRoot(subjectOrPattern: string, root: string, what: string): void {
  if (!subjectOrPattern.startsWith(`${root}.`)) {
    throw new InvalidSubjectError(`${what} ${JSON.stringify(subjectOrPattern)} must start with "${root}."`);
  }
}

/** Patterns split into tokens, once each (a process matches against a handful of patterns). */
const patternTokens = new Map<string, readonly string[]>();

/**
 * NATS matching: `*` matches exactly one token, a final `>` matches one or more tokens. Every
 * message is matched against each subscription and consumer filter, so the subject is walked in
 * place rather than split.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  let tokens = patternTokens.get(pattern);
  if (!tokens) {
    tokens = pattern.split('.');
    setBounded(patternTokens, pattern, tokens, 1_000);
  }
  let start = 0;
  for (const token of tokens) {
    // `start` past the end: the subject has no token left for this one.
    if (start > subject.length) return false;
    if (token === '>') return true;
    let end = subject.indexOf('.', start);
    if (end < 0) end = subject.length;
    if (token !== '*' && (end - start !== token.length || !subject.startsWith(token, start))) return false;
    start = end + 1;
  }
  return start > subject.length;
}
