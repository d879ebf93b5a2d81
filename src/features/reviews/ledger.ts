/**
 * The decision ledger (decisions §16, docs/api.md "Decision ledger"): every review event of an org,
 * appended to the org's hash chain in the transaction of the change it records, so no change commits
 * without its entry. An entry is `{seq, at, kind, id, event, by, details, prevHash, hash}`: `seq`
 * counts from 1 per org, `hash` is the SHA-256 hex of the canonical JSON (keys sorted) of the entry
 * without `hash`, `prevHash` the previous entry's (64 zeros for the first).
 *
 * One chain per org: the entries a transaction records are gathered (`ActorTx.gather`) and written
 * when its function is done, right before the commit; the write locks the org's head row
 * (`review_ledger_heads`, an upsert that reads the last seq and hash), so concurrent appends queue
 * there and only for the append and the commit, not for the decision's own work. (A row lock rather
 * than an advisory lock: the head row is also what `verify` checks the chain ends at, so a deleted
 * last entry is caught.)
 *
 * Events recorded: `opened`, `assigned`, `snoozed`, `decided`, `changes_requested` — the review
 * item's changes that exist today. `approval` (quorum), `undone`, `escalated` and `timeout` are
 * ledger events of the contract whose changes do not exist yet; a change with one of these names is
 * recorded as soon as the item emits it.
 */
import { createHash } from 'node:crypto';
import type { ActorTx } from '../../platform/actors/tx.js';
import type { Db, Sql } from '../../platform/db/sql.js';
import { canonicalJson } from '../../platform/util/canonical-json.js';
import type { ReviewKind } from './subjects.js';

/** The review events the ledger records (decisions §16). */
export const LEDGER_EVENTS = [
  'opened',
  'assigned',
  'snoozed',
  'approval',
  'decided',
  'changes_requested',
  'undone',
  'escalated',
  'timeout',
] as const;

const RECORDED: ReadonlySet<string> = new Set(LEDGER_EVENTS);

/** Whether the item's change `event` is a ledger event. */
export function isLedgerEvent(event: string): boolean {
  return RECORDED.has(event);
}

/** The first entry's `prevHash`. */
export const GENESIS_HASH = '0'.repeat(64);

/** An entry of the ledger, as the API and the export show it. */
export interface LedgerEntry {
  seq: number;
  /** ISO 8601, to the millisecond (the transition's time). */
  at: string;
  kind: ReviewKind;
  /** The item's id in the API (its run's). */
  id: number;
  event: string;
  /** Who caused it (`token:<id>`, `mcp`, `timer`, `worker`, `system`). */
  by: string;
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

/** What a transition records; the chain gives it `seq`, `prevHash` and `hash`. */
export type LedgerDraft = Omit<LedgerEntry, 'seq' | 'prevHash' | 'hash'>;

/** The hash of `entry` (its `hash`, if present, left out). */
export function entryHash(entry: Omit<LedgerEntry, 'hash'> & { hash?: string }): string {
  const { hash: _hash, ...hashed } = entry;
  return createHash('sha256').update(canonicalJson(hashed)).digest('hex');
}

/** Records `draft` in org `orgId`'s chain, in `tx` (written right before it commits). */
export function appendToLedger(tx: ActorTx, orgId: number, draft: LedgerDraft): void {
  tx.gather(`review-ledger:${orgId}`, draft, (last, drafts) => writeEntries(last.sql, orgId, drafts));
}

/** Locks the org's head, chains `drafts` after it, writes them and moves the head: two statements. */
async function writeEntries(sql: Sql, orgId: number, drafts: LedgerDraft[]): Promise<void> {
  const head = await sql.one<{ seq: number; hash: string }>(
    `insert into review_ledger_heads (org_id, seq, hash) values ($1, 0, $2)
     on conflict (org_id) do update set seq = review_ledger_heads.seq
     returning seq, hash`,
    [orgId, GENESIS_HASH],
  );
  let { seq, hash } = head;
  const entries: LedgerEntry[] = [];
  for (const draft of drafts) {
    const entry = { ...draft, at: new Date(draft.at).toISOString(), seq: seq + 1, prevHash: hash };
    hash = entryHash(entry);
    seq = entry.seq;
    entries.push({ ...entry, hash });
  }
  await sql.query(
    `with appended as (
       insert into review_ledger (org_id, seq, at, kind, subject_id, event, by, details, prev_hash, hash)
       select $1, * from unnest($2::bigint[], $3::timestamptz[], $4::text[], $5::bigint[], $6::text[],
                                $7::text[], $8::jsonb[], $9::text[], $10::text[])
     )
     update review_ledger_heads set seq = $11, hash = $12 where org_id = $1`,
    [
      orgId,
      entries.map((e) => e.seq),
      entries.map((e) => e.at),
      entries.map((e) => e.kind),
      entries.map((e) => e.id),
      entries.map((e) => e.event),
      entries.map((e) => e.by),
      entries.map((e) => JSON.stringify(e.details)),
      entries.map((e) => e.prevHash),
      entries.map((e) => e.hash),
      seq,
      hash,
    ],
  );
}

/** The columns of an entry, as `LedgerEntry` names them. */
const ENTRY_COLUMNS = `seq, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, kind,
  subject_id as id, event, by, details, prev_hash as "prevHash", hash`;

/** Which entries `list` returns. */
export interface LedgerQuery {
  kind?: ReviewKind | undefined;
  id?: number | undefined;
  limit: number;
  /** Start after this seq. */
  after?: number | undefined;
}

/** The answer of `r3 audit verify`: `brokenAt` is the seq of the first entry that breaks the chain. */
export interface LedgerVerdict {
  ok: boolean;
  entries: number;
  brokenAt: number | null;
}

/** How many entries `verify` and `export` read per statement. */
const BATCH = 5000;

/** Reading the ledger: the API's list, the CLI's verify and export. */
export class ReviewLedger {
  constructor(private readonly db: Db) {}

  /** A page of org `orgId`'s entries in chain order; `next` (the last seq) is null on the last page. */
  async list(orgId: number, query: LedgerQuery): Promise<{ entries: LedgerEntry[]; next: number | null }> {
    const rows = await this.db.query<LedgerEntry>(
      `select ${ENTRY_COLUMNS} from review_ledger
        where org_id = $1 and ($2::text is null or kind = $2) and ($3::bigint is null or subject_id = $3)
          and seq > $4
        order by seq limit $5`,
      [orgId, query.kind ?? null, query.id ?? null, query.after ?? 0, query.limit + 1],
    );
    const more = rows.length > query.limit;
    const entries = more ? rows.slice(0, query.limit) : rows;
    return { entries, next: more ? (entries.at(-1)?.seq ?? null) : null };
  }

  /**
   * Checks org `slug`'s chain (null: no such org): seqs run 1, 2, … without a gap, each hash is its
   * entry's, each `prevHash` the previous hash, and the last entry is the head. An edited entry breaks
   * the chain at its seq (or, with its hash recomputed, at the next); a deleted one at its seq.
   */
  async verify(slug: string): Promise<LedgerVerdict | null> {
    return this.db.tx(
      async (sql) => {
        const org = await orgOf(sql, slug);
        if (!org) return null;
        const head = await sql.maybeOne<{ seq: number; hash: string }>(
          'select seq, hash from review_ledger_heads where org_id = $1',
          [org.id],
        );
        let count = 0;
        let seq = 0;
        let hash = GENESIS_HASH;
        const broken = (at: number): LedgerVerdict => ({ ok: false, entries: count, brokenAt: at });
        for await (const batch of batches(sql, org.id)) {
          for (const entry of batch) {
            count++;
            if (entry.seq !== seq + 1 || entry.prevHash !== hash || entryHash(entry) !== entry.hash) {
              return broken(Math.min(entry.seq, seq + 1));
            }
            seq = entry.seq;
            hash = entry.hash;
          }
        }
        const headSeq = head?.seq ?? 0;
        if (headSeq !== seq || (head?.hash ?? GENESIS_HASH) !== hash) {
          return broken(headSeq > seq ? seq + 1 : seq);
        }
        return { ok: true, entries: count, brokenAt: null };
      },
      { isolation: 'repeatable read' },
    );
  }

  /** Writes org `slug`'s entries, in chain order, one JSON line each; false when there is no such org. */
  async export(slug: string, line: (json: string) => void): Promise<boolean> {
    return this.db.tx(
      async (sql) => {
        const org = await orgOf(sql, slug);
        if (!org) return false;
        for await (const batch of batches(sql, org.id)) {
          for (const entry of batch) line(JSON.stringify(entry));
        }
        return true;
      },
      { isolation: 'repeatable read' },
    );
  }
}

function orgOf(sql: Sql, slug: string): Promise<{ id: number } | null> {
  return sql.maybeOne<{ id: number }>('select id from orgs where slug = $1', [slug]);
}

/** Org `orgId`'s entries in seq order, `BATCH` at a time. */
async function* batches(sql: Sql, orgId: number): AsyncGenerator<LedgerEntry[]> {
  for (let after = 0; ; ) {
    const rows = await sql.query<LedgerEntry>(
      `select ${ENTRY_COLUMNS} from review_ledger where org_id = $1 and seq > $2 order by seq limit $3`,
      [orgId, after, BATCH],
    );
    if (rows.length === 0) return;
    yield rows;
    after = (rows.at(-1) as LedgerEntry).seq;
  }
}
