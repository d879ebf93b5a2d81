/**
 * The decision ledger (decisions §16, docs/api.md "Decision ledger"): every review event of an org,
 * appended to the org's hash chain in the transaction of the change it records, so no change commits
 * without its entry. An entry is `{seq, at, kind, id, event, by, details, prevHash, hash}`: `seq`
 * counts from 1 per org, `hash` is the SHA-256 hex of the canonical JSON (keys sorted) of the entry
 * without `hash`, `prevHash` the previous entry's (64 zeros for the first).
 *
 * Appending never holds the org's decisions behind one lock for longer than the append: the entries a
 * transaction records are gathered (`ActorTx.gather`) and inserted pending (no `seq`, `prevHash`,
 * `hash`; no lock) right before it commits, so a change commits with its entry or not at all. Right
 * after the commit the process chains the org's pending entries (`chain`): one short transaction
 * that locks the org's head row (`review_ledger_heads`, an upsert that reads the last seq and hash),
 * gives the committed pending entries, in insertion order, their seq and hashes, and moves the head.
 * Concurrent chainers (other transactions, other processes) queue on that row only for this; one
 * chaining takes every entry committed so far. Reads (`list`, `verify`, `export`) chain first, so an
 * entry whose process died between commit and chaining is chained by the next read. (A row lock
 * rather than an advisory lock: the head row is also what `verify` checks the chain ends at, so a
 * deleted last entry is caught.) Until it is chained (milliseconds) an entry is not listed.
 *
 * Events recorded: `opened`, `assigned`, `snoozed`, `decided`, `changes_requested` — the review
 * item's changes that exist today. `approval` (quorum), `undone`, `escalated` and `timeout` are
 * ledger events of the contract whose changes do not exist yet; a change with one of these names is
 * recorded as soon as the item emits it.
 */
import { hash as digest } from 'node:crypto';
import type { ActorTx } from '../../platform/actors/tx.js';
import { type Db, type Sql, writeAtCommit } from '../../platform/db/sql.js';
import type { Logger } from '../../platform/log.js';
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

/**
 * The hash of `entry` (its `hash`, if present, left out): SHA-256 hex of its canonical JSON, written
 * here with the entry's keys in their sorted order (at, by, details, event, id, kind, prevHash, seq)
 * — the same text `canonicalJson` makes of the entry, without sorting its keys for every entry
 * verified (`r3 audit verify` hashes every entry of the org).
 */
export function entryHash(entry: Omit<LedgerEntry, 'hash'> & { hash?: string }): string {
  const text = `{"at":${JSON.stringify(entry.at)},"by":${JSON.stringify(entry.by)},"details":${canonicalJson(entry.details)},"event":${JSON.stringify(entry.event)},"id":${JSON.stringify(entry.id)},"kind":${JSON.stringify(entry.kind)},"prevHash":${JSON.stringify(entry.prevHash)},"seq":${JSON.stringify(entry.seq)}}`;
  return digest('sha256', text, 'hex');
}

/**
 * Inserts `drafts` pending, in `sql` (the change's transaction): one statement, no lock, named (parsed
 * once per connection). Nothing reads its answer, so in a transaction it goes out with the COMMIT
 * (`writeAtCommit`): a failed insert turns the COMMIT into a rollback, and the change fails with it.
 */
async function insertPending(sql: Sql, orgId: number, drafts: LedgerDraft[]): Promise<void> {
  const answer = sql.prepared(
    'review_ledger_pending',
    `insert into review_ledger (org_id, at, kind, subject_id, event, by, details)
     select $1, * from unnest($2::timestamptz[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::jsonb[])`,
    [
      orgId,
      drafts.map((d) => new Date(d.at).toISOString()),
      drafts.map((d) => d.kind),
      drafts.map((d) => d.id),
      drafts.map((d) => d.event),
      drafts.map((d) => d.by),
      drafts.map((d) => JSON.stringify(d.details)),
    ],
  );
  await writeAtCommit(sql, answer);
}

/**
 * Chains org `orgId`'s committed pending entries after its head, in one transaction holding the head
 * row's lock: three statements in two round trips — the head's upsert (which takes the lock) and the
 * read of the pending entries go out together, and the chaining update with the COMMIT.
 */
async function chainPending(db: Db, orgId: number): Promise<void> {
  await db.tx(async (sql) => {
    const [heads, pending] = await Promise.all([
      sql.prepared<{ seq: number; hash: string }>(
        'review_ledger_head_lock',
        `insert into review_ledger_heads (org_id, seq, hash) values ($1, 0, $2)
         on conflict (org_id) do update set seq = review_ledger_heads.seq
         returning seq, hash`,
        [orgId, GENESIS_HASH],
      ),
      sql.prepared<Omit<LedgerEntry, 'seq' | 'prevHash' | 'hash'> & { entryId: number }>(
        'review_ledger_pending_entries',
        `select entry_id as "entryId", ${DRAFT_COLUMNS} from review_ledger
          where org_id = $1 and seq is null order by entry_id`,
        [orgId],
      ),
    ]);
    if (pending.length === 0) return;
    let { seq, hash } = heads[0] as { seq: number; hash: string };
    const chained: Array<{ entryId: number; seq: number; prevHash: string; hash: string }> = [];
    for (const { entryId, ...draft } of pending) {
      const entry = { ...draft, seq: seq + 1, prevHash: hash };
      hash = entryHash(entry);
      seq = entry.seq;
      chained.push({ entryId, seq, prevHash: entry.prevHash, hash });
    }
    await writeAtCommit(
      sql,
      sql.prepared(
        'review_ledger_chain',
        `with chained as (
           update review_ledger l set seq = c.seq, prev_hash = c.prev_hash, hash = c.hash
             from unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[]) as c(entry_id, seq, prev_hash, hash)
            where l.org_id = $1 and l.entry_id = c.entry_id
         )
         update review_ledger_heads set seq = $6, hash = $7 where org_id = $1`,
        [
          orgId,
          chained.map((c) => c.entryId),
          chained.map((c) => c.seq),
          chained.map((c) => c.prevHash),
          chained.map((c) => c.hash),
          seq,
          hash,
        ],
      ),
    );
  });
}

/** The columns of an entry, as `LedgerEntry` names them. */
const DRAFT_COLUMNS = `to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, kind,
  subject_id as id, event, by, details`;
const ENTRY_COLUMNS = `seq, ${DRAFT_COLUMNS}, prev_hash as "prevHash", hash`;

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

/** How many entries `verify` and `export` fetch from their cursor at a time. */
const BATCH = 10_000;

/** The ledger: recording entries with their changes, chaining them, the API's list, the CLI's verify and export. */
export class ReviewLedger {
  /** The orgs being chained by this process; `again`: more entries committed meanwhile. */
  private readonly chaining = new Map<number, { again: boolean }>();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  /** Records `draft` in org `orgId`'s ledger with the change of `tx`; chained once it commits. */
  record(tx: ActorTx, orgId: number, draft: LedgerDraft): void {
    tx.gather(`review-ledger:${orgId}`, draft, (last, drafts) => insertPending(last.sql, orgId, drafts));
    tx.afterCommit(() => this.chainSoon(orgId));
  }

  /** Chains org `orgId`'s committed pending entries now (what a read does first). */
  chain(orgId: number): Promise<void> {
    return chainPending(this.db, orgId);
  }

  /** Chains org `orgId` in the background: at most one chaining per org at a time in this process. */
  private chainSoon(orgId: number): void {
    const running = this.chaining.get(orgId);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: true };
    this.chaining.set(orgId, state);
    void (async () => {
      try {
        while (state.again) {
          state.again = false;
          await this.chain(orgId);
        }
      } catch (error) {
        // The next chaining (another commit, or a read) takes these entries.
        this.log.warn({ err: error, orgId }, 'review ledger chaining failed');
      } finally {
        this.chaining.delete(orgId);
      }
    })();
  }

  /** A page of org `orgId`'s entries in chain order; `next` (the last seq) is null on the last page. */
  async list(orgId: number, query: LedgerQuery): Promise<{ entries: LedgerEntry[]; next: number | null }> {
    await this.chain(orgId);
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
    await this.chainBySlug(slug);
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
    await this.chainBySlug(slug);
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

  private async chainBySlug(slug: string): Promise<void> {
    const org = await orgOf(this.db, slug);
    if (org) await this.chain(org.id);
  }
}

function orgOf(sql: Sql, slug: string): Promise<{ id: number } | null> {
  return sql.maybeOne<{ id: number }>('select id from orgs where slug = $1', [slug]);
}

/**
 * Org `orgId`'s entries in seq order, `BATCH` at a time, from one cursor of `sql`'s transaction (one
 * scan of the org's range, no statement planned per page): the next batch is asked for before the
 * caller gets this one, so PostgreSQL reads it while the caller hashes.
 */
async function* batches(sql: Sql, orgId: number): AsyncGenerator<LedgerEntry[]> {
  await sql.query(
    `declare review_ledger_entries no scroll cursor for
       select ${ENTRY_COLUMNS} from review_ledger where org_id = $1 and seq is not null order by seq`,
    [orgId],
  );
  const fetch = () => sql.query<LedgerEntry>(`fetch ${BATCH} from review_ledger_entries`);
  let next = fetch();
  try {
    for (;;) {
      const rows = await next;
      if (rows.length === 0) return;
      next = fetch();
      yield rows;
    }
  } finally {
    // A caller that stopped early (a broken entry) leaves a fetch in flight; the transaction's end
    // closes the cursor.
    next.catch(() => undefined);
  }
}
