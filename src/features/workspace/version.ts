/**
 * Turning a new workspace tree into a version: build its git tree, and commit it on top of the current
 * version unless the tree is unchanged (then there is no new version, as git refuses an empty commit).
 */
import { buildCommit, buildTree, type GitIdentity, type GitObject, isEmptyCommit } from './git-objects.js';

/** The version a write starts from. */
export interface VersionParent {
  sha: string;
  treeSha: string;
}

/** What a write supplies to make a version. */
export interface VersionInput {
  files: ReadonlyMap<string, string>;
  parent: VersionParent | null;
  author: GitIdentity;
  at: Date;
  message: string;
}

/**
 * The outcome: `changed: false` keeps the parent (`sha` is null when there is none yet); otherwise the
 * new commit's sha and tree and every object to store (blobs, trees and the commit).
 */
export type VersionPlan =
  | { changed: false; sha: string | null; treeSha: string }
  | {
      changed: true;
      sha: string;
      treeSha: string;
      parentSha: string | null;
      objects: Map<string, GitObject>;
    };

/** Computes the version a write of `files` makes; pure, nothing is stored. */
export function planVersion(input: VersionInput): VersionPlan {
  const tree = buildTree(input.files);
  const parent = input.parent;
  if (isEmptyCommit(tree.rootSha, parent?.treeSha ?? null)) {
    return { changed: false, sha: parent?.sha ?? null, treeSha: tree.rootSha };
  }
  const commit = buildCommit({
    treeSha: tree.rootSha,
    parentSha: parent?.sha ?? null,
    author: input.author,
    at: input.at,
    message: input.message,
  });
  tree.objects.set(commit.sha, { type: 'commit', body: commit.body });
  return {
    changed: true,
    sha: commit.sha,
    treeSha: tree.rootSha,
    parentSha: parent?.sha ?? null,
    objects: tree.objects,
  };
}
