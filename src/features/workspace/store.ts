/**
 * The one write path for authored resources, shared by REST, MCP and the CLI:
 *
 *   lock the org's head row → build the new tree → validate it whole → write files → commit → apply
 *
 * all in one transaction, so a write either happens entirely or not at all, and writes of one org are
 * serialized. Terminology (see also manifests.ts):
 * - **working tree**: `workspace_files`, what was last written. It runs ahead of head only after an
 *   `autoCommit: false` write; the next committing write or `apply` commits it.
 * - **head**: the newest version. **applied**: the version the resource tables mirror; behind head only
 *   after an `autoApply: false` write.
 * - **workspaceSha**: the first 12 hex characters of the applied version's sha, recorded on runs. An org
 *   that never wrote has no version: `currentVersion` is null (and no skill can run there yet).
 */
import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Database } from '../../platform/db/database.js';
import type { Sql } from '../../platform/db/sql.js';
import type { Clock } from '../../platform/util/clock.js';
import { diffTrees, type WorkspaceDiff } from './diff.js';
import type { ExportVersion } from './export.js';
import { manifestPath, parseResource, resourcePaths } from './files.js';
import { shortSha } from './git-objects.js';
import type { ResourceKind, WorkspaceResource } from './manifests.js';
import { reconcile } from './reconcile.js';
import type { ReindexQueue } from './reindex-queue.js';
import { assertReviewPolicyKept } from './review-policy.js';
import { workspaceInvalid } from './store-errors.js';
import {
  allVersions,
  type DiffCounts,
  type HeadState,
  insertVersion,
  listVersions,
  loadBlobs,
  loadVersion,
  loadWorkingFiles,
  lockHead,
  readHead,
  setHead,
  type VersionRecord,
} from './store-sql.js';
import { validateWorkspace } from './validate.js';
import { planVersion } from './version.js';
import {
  applyChanges,
  authorFor,
  contentsOf,
  describeChanges,
  languageIssues,
  persistWorkingTree,
  policyUserIssues,
  type ResourceRef,
  shasOf,
  type WorkingTree,
  type WorkspaceChanges,
  workingTree,
} from './working-tree.js';

export type { ResourceRef, WorkingTree, WorkspaceChanges } from './working-tree.js';

/**
 * Changes computed from the current working tree, under the lock: how create-if-absent (409) and
 * patch-if-present (404) are race-free. Throwing aborts the write.
 */
export type ChangeBuilder = (current: WorkingTree) => WorkspaceChanges;

export interface WriteOptions {
  /** Commit a version (default true). Off: files are written, head does not move, nothing is applied. */
  autoCommit?: boolean;
  /** Apply the committed version to the resource tables (default true). */
  autoApply?: boolean;
  /** The version's commit message; a description of the change by default. */
  message?: string;
  /** The audit row's action and target (default `workspace.write`). */
  audit?: { action: string; targetKind?: string; targetId?: string };
}

/** A version a write made. `counts` compare its tree with its parent's, resource by resource. */
export interface CommitResult {
  sha: string;
  workspaceSha: string;
  parentSha: string | null;
  counts: DiffCounts;
}

/** What apply did to the resource tables. */
export type ApplyResult = DiffCounts;

/** The answer of a write (MCP rule 1). */
export interface WriteResult {
  /** Paths whose content this write changed or removed, sorted; empty when the tree was already so. */
  written: string[];
  /** The new version, or null: autoCommit off, or nothing changed (no empty versions). */
  commit: CommitResult | null;
  /** The apply, or null when it was skipped (autoApply off, or autoCommit off: only versions apply). */
  apply: ApplyResult | null;
}

/** The org's applied version. */
export interface CurrentVersion {
  sha: string;
  workspaceSha: string;
}

export interface WorkspaceStoreDeps {
  db: Database;
  clock: Clock;
  /**
   * Where reindex passes go when an object type's language changes under existing instances. Without
   * one, such instances keep their old language (search finds them by vector) until a reindex.
   */
  reindex?: ReindexQueue;
  /** The agent tools usable in runs (a skill's `tools` must name them); unchecked without it. */
  toolNames?: () => ReadonlySet<string>;
}

/**
 * Work that must follow the applied version in the transaction that moves it (the workflow triggers'
 * schedules): called once the resource tables hold the new version, before the commit.
 */
export type ApplyListener = (sql: Sql, orgId: number, at: Date) => Promise<void>;

/**
 * A rule a write must keep, given the resources before and after it and who writes (the connectors'
 * connection targets): throws (403, 400…) to refuse the write, which then changes nothing.
 */
export type WriteGuard = (
  before: readonly WorkspaceResource[],
  after: readonly WorkspaceResource[],
  by: Attribution,
) => void;

/** A write or apply in progress: its transaction, the org's locked head, and the tree it commits. */
interface Pass {
  sql: Sql;
  orgId: number;
  head: HeadState;
  shas: ReadonlyMap<string, string>;
  files: ReadonlyMap<string, string>;
  by: Attribution;
  at: Date;
}

export class WorkspaceStore {
  private readonly applyListeners: ApplyListener[] = [];
  private readonly writeGuards: WriteGuard[] = [];

  constructor(private readonly deps: WorkspaceStoreDeps) {}

  /** Adds work to do in every apply's transaction (see {@link ApplyListener}). */
  onApply(listener: ApplyListener): void {
    this.applyListeners.push(listener);
  }

  /** Adds a rule every write must keep (see {@link WriteGuard}), checked under the org's lock. */
  guardWrites(guard: WriteGuard): void {
    this.writeGuards.push(guard);
  }

  /** The org with slug `slug`, or null. */
  orgBySlug(slug: string): Promise<{ id: number } | null> {
    return this.deps.db.sql.maybeOne<{ id: number }>('select id from orgs where slug = $1', [slug]);
  }

  /** Sets where reindex passes go (the objects feature's queue, which registers after the workspace). */
  useReindexQueue(queue: ReindexQueue): void {
    this.deps.reindex = queue;
  }

  /**
   * Validates the whole resulting tree (VALIDATION_FAILED naming file and field, nothing written), writes
   * the files, commits a version (unless `autoCommit: false` or nothing changed) and applies it (unless
   * `autoApply: false`), in one transaction holding the org's lock.
   */
  async write(
    orgId: number,
    by: Attribution,
    changes: WorkspaceChanges | ChangeBuilder,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    const autoCommit = options.autoCommit ?? true;
    const autoApply = options.autoApply ?? true;
    const at = new Date(this.deps.clock.now());
    let queued = false;
    const result = await this.deps.db.sql.tx(async (sql) => {
      const head = await lockHead(sql, orgId);
      const working = await loadWorkingFiles(sql, orgId);
      const before = contentsOf(working);
      const plan = typeof changes === 'function' ? changes(workingTree(before)) : changes;
      const after = new Map(before);
      const problems = applyChanges(after, plan);
      const toolNames = this.deps.toolNames?.();
      const validation = validateWorkspace(after, undefined, toolNames ? { toolNames } : {});
      if (!validation.ok) problems.push(...validation.errors);
      else {
        problems.push(...(await languageIssues(sql, validation.resources)));
        problems.push(...(await policyUserIssues(sql, orgId, plan.put ?? [])));
      }
      if (problems.length > 0) throw workspaceInvalid(problems);
      if (validation.ok && (by.mayChangeReview !== true || this.writeGuards.length > 0)) {
        const previous = validateWorkspace(before);
        const was = previous.ok ? previous.resources : [];
        assertReviewPolicyKept(was, validation.resources, by);
        for (const guard of this.writeGuards) guard(was, validation.resources, by);
      }

      const shas = shasOf(after, working);
      const written = await persistWorkingTree(sql, orgId, working, after, shas, at);
      let commit: CommitResult | null = null;
      let apply: ApplyResult | null = null;
      if (autoCommit) {
        const message = options.message ?? describeChanges(plan, before);
        const pass = { sql, orgId, head, shas, files: after, by, at };
        const done = await this.commitAndApply(pass, message, autoApply);
        commit = done.commit;
        apply = done.apply;
        queued = done.queued;
      }
      await recordAuditSql(sql, {
        orgId,
        apiTokenId: by.apiTokenId,
        actor: by.actor,
        action: options.audit?.action ?? 'workspace.write',
        targetKind: options.audit?.targetKind ?? null,
        targetId: options.audit?.targetId ?? null,
        details: { written, version: commit?.sha ?? null, apply },
        requestId: by.requestId,
        at,
      });
      return { written, commit, apply };
    });
    if (queued) this.deps.reindex?.notify();
    return result;
  }

  /** Commits the tree (no version when unchanged), applies head when asked, and moves the head row. */
  private async commitAndApply(
    pass: Pass,
    message: string,
    apply: boolean,
  ): Promise<{ commit: CommitResult | null; apply: ApplyResult | null; queued: boolean }> {
    const commit = await this.commit(pass, message);
    let counts: ApplyResult | null = null;
    let queued = false;
    if (apply && pass.head.headSha) {
      const applied = await this.reconcileTo(pass);
      counts = applied.counts;
      queued = applied.queued;
    }
    await setHead(pass.sql, pass.orgId, pass.head, pass.at);
    return { commit, apply: counts, queued };
  }

  /** Removes resources (404 when one is not in the working tree); otherwise a write. */
  delete(
    orgId: number,
    by: Attribution,
    refs: ResourceRef | ResourceRef[],
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    const list = Array.isArray(refs) ? refs : [refs];
    return this.write(orgId, by, { delete: list }, options);
  }

  /**
   * Reconciles the resource tables to the working tree: commits pending files first (a version, when
   * they differ from head), then applies head. What `workspace_apply` and `r3 workspace apply` do.
   */
  async apply(
    orgId: number,
    by: Attribution,
    options: { message?: string } = {},
  ): Promise<{ commit: CommitResult | null; apply: ApplyResult }> {
    const at = new Date(this.deps.clock.now());
    let queued = false;
    const result = await this.deps.db.sql.tx(async (sql) => {
      const head = await lockHead(sql, orgId);
      const working = await loadWorkingFiles(sql, orgId);
      const files = contentsOf(working);
      const shas = shasOf(files, working);
      const message = options.message ?? 'Apply pending workspace changes';
      const done = await this.commitAndApply({ sql, orgId, head, shas, files, by, at }, message, true);
      const { commit } = done;
      const apply: ApplyResult = done.apply ?? { created: 0, updated: 0, unchanged: 0, deleted: 0 };
      queued = done.queued;
      await recordAuditSql(sql, {
        orgId,
        apiTokenId: by.apiTokenId,
        actor: by.actor,
        action: 'workspace.apply',
        details: { version: commit?.sha ?? null, apply },
        requestId: by.requestId,
        at,
      });
      return { commit, apply };
    });
    if (queued) this.deps.reindex?.notify();
    return result;
  }

  /** Dry run of {@link apply}: how the working tree differs from the applied version, resource by resource. */
  async diff(orgId: number): Promise<WorkspaceDiff> {
    const sql = this.deps.db.sql;
    const head = await readHead(sql, orgId);
    const working = await loadWorkingFiles(sql, orgId);
    const applied = head.appliedSha ? await loadVersion(sql, orgId, head.appliedSha) : null;
    const shas = new Map([...working].map(([path, file]) => [path, file.sha]));
    return diffTrees(applied?.files ?? new Map(), shas);
  }

  /** The newest versions, newest first (`workspace_version_history`). */
  history(orgId: number, limit = 20): Promise<VersionRecord[]> {
    return listVersions(this.deps.db.sql, orgId, Math.max(1, Math.min(limit, 1000)));
  }

  /** The applied version (what runs execute and record), or null before the first write. */
  async currentVersion(orgId: number): Promise<CurrentVersion | null> {
    const { appliedSha } = await readHead(this.deps.db.sql, orgId);
    return appliedSha ? { sha: appliedSha, workspaceSha: shortSha(appliedSha) } : null;
  }

  /** Head and applied pointers (both null before the first version). */
  head(orgId: number): Promise<HeadState> {
    return readHead(this.deps.db.sql, orgId);
  }

  /**
   * The full sha of the org's version `sha` names (a full sha or a `workspaceSha` prefix), or null when
   * it names none (not hex, unknown, another org's, or an ambiguous prefix).
   */
  async resolveVersion(orgId: number, sha: string, sql: Sql = this.deps.db.sql): Promise<string | null> {
    if (!/^[0-9a-f]{7,40}$/.test(sha)) return null;
    const rows = await sql.query<{ sha: string }>(
      `select sha from workspace_versions where org_id = $1 and sha like $2 || '%' limit 2`,
      [orgId, sha],
    );
    // An ambiguous prefix names no version.
    return rows.length === 1 ? (rows[0] as { sha: string }).sha : null;
  }

  /**
   * A resource as it was in a version (full sha or a `workspaceSha` prefix), or null when the version or
   * the resource is not there: what a run created at that version executes. `sql`: read in this
   * transaction (one that must not wait for a second connection of the pool while it holds one).
   */
  async readResourceAt(
    orgId: number,
    kind: ResourceKind,
    slug: string,
    sha: string,
    sql: Sql = this.deps.db.sql,
  ): Promise<WorkspaceResource | null> {
    const full = await this.resolveVersion(orgId, sha, sql);
    if (full === null) return null;
    const version = await loadVersion(sql, orgId, full);
    if (!version) return null;
    const paths = resourcePaths(kind, slug);
    const blobs = await loadBlobs(
      sql,
      orgId,
      paths.flatMap((p) => version.files.get(p) ?? []),
    );
    const tree = new Map<string, string>();
    for (const path of paths) {
      const blob = version.files.get(path);
      const text = blob === undefined ? undefined : blobs.get(blob);
      if (text !== undefined) tree.set(path, text);
    }
    if (!tree.has(manifestPath(kind, slug))) return null;
    const parsed = parseResource(kind, slug, tree);
    return parsed.ok ? parsed.value : null;
  }

  /** Every version with its files, oldest first, ready for `exportRepository`. */
  async exportVersions(orgId: number): Promise<ExportVersion[]> {
    const sql = this.deps.db.sql;
    const versions = await allVersions(sql, orgId);
    const blobs = await loadBlobs(
      sql,
      orgId,
      versions.flatMap((v) => [...v.files.values()]),
    );
    return versions.map((v) => ({
      files: new Map([...v.files].map(([path, sha]) => [path, blobs.get(sha) ?? ''])),
      parentSha: v.parentSha,
      author: v.author,
      at: v.createdAt,
      message: v.message,
      sha: v.sha,
    }));
  }

  /** Commits `files` on top of head when they differ from it; moves `head.headSha` (not saved yet). */
  private async commit(pass: Pass, message: string): Promise<CommitResult | null> {
    const { sql, orgId, head, shas, files, by, at } = pass;
    const parent = head.headSha ? await loadVersion(sql, orgId, head.headSha) : null;
    const author = authorFor(by.actor);
    const plan = planVersion({
      files,
      parent: parent ? { sha: parent.sha, treeSha: parent.treeSha } : null,
      author,
      at,
      message,
    });
    if (!plan.changed) return null;
    const { created, updated, unchanged, deleted } = diffTrees(parent?.files ?? new Map(), shas);
    const counts = { created, updated, unchanged, deleted };
    await insertVersion(sql, orgId, {
      sha: plan.sha,
      parentSha: plan.parentSha,
      treeSha: plan.treeSha,
      files: shas,
      author,
      message,
      counts,
      appliedBy: by.actor,
      apiTokenId: by.apiTokenId,
      createdAt: at,
    });
    head.headSha = plan.sha;
    return { sha: plan.sha, workspaceSha: shortSha(plan.sha), parentSha: plan.parentSha, counts };
  }

  /**
   * Applies head, whose tree is `shas`/`files`, to the tables; moves `head.appliedSha`. Queues reindex
   * passes for object types whose instances were indexed with another language.
   */
  private async reconcileTo(pass: Pass): Promise<{ counts: DiffCounts; queued: boolean }> {
    const { sql, orgId, head, shas, files, by, at } = pass;
    const headSha = head.headSha as string;
    let from: ReadonlyMap<string, string> = shas;
    if (head.appliedSha !== headSha) {
      from = head.appliedSha
        ? ((await loadVersion(sql, orgId, head.appliedSha))?.files ?? new Map())
        : new Map();
    }
    const result = await reconcile(sql, orgId, from, shas, files, headSha, at);
    for (const listener of this.applyListeners) await listener(sql, orgId, at);
    const queue = this.deps.reindex;
    for (const type of queue ? result.reindexTypes : []) {
      await queue?.enqueueIn(sql, {
        orgId,
        sourceSlug: null,
        filter: { types: [type] },
        requestedBy: by.actor,
        apiTokenId: by.apiTokenId,
        at,
      });
    }
    head.appliedSha = headSha;
    return { counts: result.counts, queued: queue !== undefined && result.reindexTypes.length > 0 };
  }
}
