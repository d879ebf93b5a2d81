/**
 * Export of a workspace's history as a real git repository: the `.git` layout `git init` makes, every
 * version's objects as loose zlib-deflated objects, `refs/heads/main` at the last version, and the last
 * tree checked out with a matching index. `git log` then lists one commit per version with the very
 * hashes r3 recorded, and `git fsck --strict` and `git status` are clean.
 */
import { lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { encodeIndex, type IndexEntry } from './git-index.js';
import {
  buildCommit,
  buildTree,
  encodeObject,
  type GitIdentity,
  type GitObject,
  hashBlob,
} from './git-objects.js';

/** One recorded version, oldest first; `sha` is the commit id recorded when it was made. */
export interface ExportVersion {
  files: ReadonlyMap<string, string>;
  parentSha: string | null;
  author: GitIdentity;
  at: Date;
  message: string;
  sha: string;
}

/** What was exported. */
export interface ExportResult {
  /** Commit ids, oldest first. */
  commits: string[];
  /** The checked-out commit, or null for an empty history (an unborn `main`). */
  headSha: string | null;
}

const BRANCH = 'main';
const CONFIG =
  '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';

/**
 * Writes the repository into `dir`, which must not exist or be empty. The versions must form one chain
 * (each `parentSha` is the previous version's sha, the first is null), and each version's files must
 * hash to its recorded sha: a mismatch means the history was altered, and is an error rather than a
 * repository that silently disagrees with the recorded `workspaceSha`s.
 */
export async function exportRepository(
  dir: string,
  versions: readonly ExportVersion[],
): Promise<ExportResult> {
  await mkdir(dir, { recursive: true });
  if ((await readdir(dir)).length > 0) throw new Error(`export directory "${dir}" is not empty`);

  const objects = new Map<string, GitObject>();
  const commits: string[] = [];
  let previous: string | null = null;
  for (const [index, version] of versions.entries()) {
    if (version.parentSha !== previous) {
      throw new Error(
        `version ${index} (${version.sha}) has parent ${version.parentSha}, expected ${previous}`,
      );
    }
    const tree = buildTree(version.files);
    const commit = buildCommit({ ...version, treeSha: tree.rootSha });
    if (commit.sha !== version.sha) {
      throw new Error(
        `version ${index}: recorded sha ${version.sha}, but its content hashes to ${commit.sha}`,
      );
    }
    for (const [sha, object] of tree.objects) objects.set(sha, object);
    objects.set(commit.sha, { type: 'commit', body: commit.body });
    commits.push(commit.sha);
    previous = commit.sha;
  }

  const git = join(dir, '.git');
  for (const sub of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags']) {
    await mkdir(join(git, sub), { recursive: true });
  }
  await writeFile(join(git, 'HEAD'), `ref: refs/heads/${BRANCH}\n`);
  await writeFile(join(git, 'config'), CONFIG);
  for (const [sha, object] of objects) {
    const file = join(git, 'objects', sha.slice(0, 2), sha.slice(2));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, deflateSync(encodeObject(object.type, object.body)), { mode: 0o444 });
  }
  const last = versions.at(-1);
  if (!last || !previous) return { commits, headSha: null };
  await writeFile(join(git, 'refs', 'heads', BRANCH), `${previous}\n`);

  const entries: IndexEntry[] = [];
  for (const [path, content] of last.files) {
    const file = join(dir, ...path.split('/'));
    await mkdir(dirname(file), { recursive: true });
    const body = Buffer.from(content, 'utf8');
    await writeFile(file, body);
    entries.push({ path, sha: hashBlob(body), stat: await lstat(file, { bigint: true }) });
  }
  await writeFile(join(git, 'index'), encodeIndex(entries));
  return { commits, headSha: previous };
}
