/**
 * The workspace tables (migration 0002) as plain SQL: the per-org head row (the write lock), working
 * files, content-addressed blobs and version rows. Every statement names the org.
 */
import type { Sql } from '../../platform/db/sql.js';
import { type GitIdentity, SHORT_SHA_LENGTH } from './git-objects.js';

/** The per-org pointers; both null before the first version. */
export interface HeadState {
  headSha: string | null;
  appliedSha: string | null;
}

/** A file of a tree with its blob id. */
export interface TreeFile {
  sha: string;
  content: string;
}

/** Resource-level change counts between two trees. */
export interface DiffCounts {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

/** A version row as recorded. */
export interface VersionRecord {
  seq: number;
  sha: string;
  /** The short id runs record. */
  workspaceSha: string;
  parentSha: string | null;
  treeSha: string;
  message: string;
  author: GitIdentity;
  /** `token:<id>`, `mcp`, `user:<id>` or `cli`. */
  appliedBy: string;
  apiTokenId: string | null;
  counts: DiffCounts;
  createdAt: Date;
}

/** A version row with its file list (path → blob sha). */
export interface VersionWithFiles extends VersionRecord {
  files: Map<string, string>;
}

/** Takes the org's write lock (creating the head row on first use) and returns its pointers. */
export async function lockHead(sql: Sql, orgId: number): Promise<HeadState> {
  await sql.query('insert into workspace_heads (org_id) values ($1) on conflict (org_id) do nothing', [
    orgId,
  ]);
  const row = await sql.one<{ head_sha: string | null; applied_sha: string | null }>(
    'select head_sha, applied_sha from workspace_heads where org_id = $1 for update',
    [orgId],
  );
  return { headSha: row.head_sha, appliedSha: row.applied_sha };
}

/** The org's pointers without locking. */
export async function readHead(sql: Sql, orgId: number): Promise<HeadState> {
  const row = await sql.maybeOne<{ head_sha: string | null; applied_sha: string | null }>(
    'select head_sha, applied_sha from workspace_heads where org_id = $1',
    [orgId],
  );
  return { headSha: row?.head_sha ?? null, appliedSha: row?.applied_sha ?? null };
}

/** Moves the org's pointers (the caller holds the lock). */
export async function setHead(sql: Sql, orgId: number, state: HeadState, at: Date): Promise<void> {
  await sql.query(
    'update workspace_heads set head_sha = $2, applied_sha = $3, updated_at = $4 where org_id = $1',
    [orgId, state.headSha, state.appliedSha, at],
  );
}

/** The working tree: path → blob sha and content. */
export async function loadWorkingFiles(sql: Sql, orgId: number): Promise<Map<string, TreeFile>> {
  const rows = await sql.query<{ path: string; sha: string; content: string }>(
    `select f.path, f.blob_sha as sha, b.content
       from workspace_files f join workspace_blobs b on b.org_id = f.org_id and b.sha = f.blob_sha
      where f.org_id = $1`,
    [orgId],
  );
  return new Map(rows.map((r) => [r.path, { sha: r.sha, content: r.content }]));
}

/** Stores blobs (content by sha); existing ones are kept. */
export async function saveBlobs(sql: Sql, orgId: number, blobs: ReadonlyMap<string, string>): Promise<void> {
  if (blobs.size === 0) return;
  await sql.query(
    `insert into workspace_blobs (org_id, sha, content)
     select $1, s.sha, s.content from unnest($2::text[], $3::text[]) as s (sha, content)
     on conflict (org_id, sha) do nothing`,
    [orgId, [...blobs.keys()], [...blobs.values()]],
  );
}

/** Contents of blobs by sha. */
export async function loadBlobs(
  sql: Sql,
  orgId: number,
  shas: Iterable<string>,
): Promise<Map<string, string>> {
  const wanted = [...new Set(shas)];
  if (wanted.length === 0) return new Map();
  const rows = await sql.query<{ sha: string; content: string }>(
    'select sha, content from workspace_blobs where org_id = $1 and sha = any($2::text[])',
    [orgId, wanted],
  );
  return new Map(rows.map((r) => [r.sha, r.content]));
}

/** Writes changed working files (path → blob sha) and removes deleted ones. */
export async function saveWorkingFiles(
  sql: Sql,
  orgId: number,
  upserts: ReadonlyMap<string, string>,
  deletes: readonly string[],
  at: Date,
): Promise<void> {
  if (deletes.length > 0) {
    await sql.query('delete from workspace_files where org_id = $1 and path = any($2::text[])', [
      orgId,
      deletes,
    ]);
  }
  if (upserts.size > 0) {
    await sql.query(
      `insert into workspace_files (org_id, path, blob_sha, updated_at)
       select $1, f.path, f.sha, $4 from unnest($2::text[], $3::text[]) as f (path, sha)
       on conflict (org_id, path) do update set blob_sha = excluded.blob_sha, updated_at = excluded.updated_at`,
      [orgId, [...upserts.keys()], [...upserts.values()], at],
    );
  }
}

/** What a new version row records. */
export interface NewVersion {
  sha: string;
  parentSha: string | null;
  treeSha: string;
  files: ReadonlyMap<string, string>;
  author: GitIdentity;
  message: string;
  counts: DiffCounts;
  appliedBy: string;
  apiTokenId: string | null;
  createdAt: Date;
}

/** Appends a version row (seq = previous + 1; the caller holds the lock). */
export async function insertVersion(sql: Sql, orgId: number, version: NewVersion): Promise<number> {
  const row = await sql.one<{ seq: number }>(
    `insert into workspace_versions (org_id, seq, sha, parent_sha, tree_sha, files, author_name, author_email,
                                     message, created, updated, unchanged, deleted, applied_by, api_token_id,
                                     created_at)
     values ($1, coalesce((select max(seq) from workspace_versions where org_id = $1), 0) + 1,
             $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     returning seq`,
    [
      orgId,
      version.sha,
      version.parentSha,
      version.treeSha,
      JSON.stringify(Object.fromEntries(version.files)),
      version.author.name,
      version.author.email,
      version.message,
      version.counts.created,
      version.counts.updated,
      version.counts.unchanged,
      version.counts.deleted,
      version.appliedBy,
      version.apiTokenId,
      version.createdAt,
    ],
  );
  return row.seq;
}

interface VersionDbRow {
  seq: number;
  sha: string;
  parent_sha: string | null;
  tree_sha: string;
  files?: Record<string, string>;
  author_name: string;
  author_email: string;
  message: string;
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  applied_by: string;
  api_token_id: string | null;
  created_at: Date;
}

const VERSION_COLUMNS = `seq, sha, parent_sha, tree_sha, author_name, author_email, message, created, updated,
  unchanged, deleted, applied_by, api_token_id, created_at`;

function toRecord(row: VersionDbRow): VersionRecord {
  return {
    seq: row.seq,
    sha: row.sha,
    workspaceSha: row.sha.slice(0, SHORT_SHA_LENGTH),
    parentSha: row.parent_sha,
    treeSha: row.tree_sha,
    message: row.message,
    author: { name: row.author_name, email: row.author_email },
    appliedBy: row.applied_by,
    apiTokenId: row.api_token_id,
    counts: { created: row.created, updated: row.updated, unchanged: row.unchanged, deleted: row.deleted },
    createdAt: row.created_at,
  };
}

function withFiles(row: VersionDbRow): VersionWithFiles {
  return { ...toRecord(row), files: new Map(Object.entries(row.files ?? {})) };
}

/** One version with its file list, or null. */
export async function loadVersion(sql: Sql, orgId: number, sha: string): Promise<VersionWithFiles | null> {
  const row = await sql.maybeOne<VersionDbRow>(
    `select ${VERSION_COLUMNS}, files from workspace_versions where org_id = $1 and sha = $2`,
    [orgId, sha],
  );
  return row ? withFiles(row) : null;
}

/** The newest `limit` versions, newest first. */
export async function listVersions(sql: Sql, orgId: number, limit: number): Promise<VersionRecord[]> {
  const rows = await sql.query<VersionDbRow>(
    `select ${VERSION_COLUMNS} from workspace_versions where org_id = $1 order by seq desc limit $2`,
    [orgId, limit],
  );
  return rows.map(toRecord);
}

/** Every version with its file list, oldest first (for export). */
export async function allVersions(sql: Sql, orgId: number): Promise<VersionWithFiles[]> {
  const rows = await sql.query<VersionDbRow>(
    `select ${VERSION_COLUMNS}, files from workspace_versions where org_id = $1 order by seq`,
    [orgId],
  );
  return rows.map(withFiles);
}
