/**
 * Resource-level comparison of two workspace trees (what `workspace_diff` reports and what a version row
 * records): a skill is one resource made of two files and counts once.
 */
import { groupResourceFiles, type ResourceFiles } from './files.js';
import { RESOURCE_KINDS, type ResourceKind } from './manifests.js';

/** How a resource differs between the two trees. */
export type ResourceChange = 'created' | 'updated' | 'unchanged' | 'deleted';

/**
 * One resource's change. A path outside the layout (only in unvalidated trees) is reported as
 * `{kind: 'file', slug: <path>}`.
 */
export interface ResourceDiffEntry {
  kind: ResourceKind | 'file';
  slug: string;
  change: ResourceChange;
}

/** Counts per change, and every resource of either tree in kind order, then slug order. */
export interface WorkspaceDiff {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  resources: ResourceDiffEntry[];
}

interface Group {
  kind: ResourceKind | 'file';
  slug: string;
  paths: string[];
}

function groups(tree: ReadonlyMap<string, string>): Map<string, Group> {
  const { resources, unknown } = groupResourceFiles(tree.keys());
  const out = new Map<string, Group>();
  const paths = (files: ResourceFiles['files']) => Object.values(files).filter((p) => p !== undefined);
  for (const [key, group] of resources)
    out.set(key, { kind: group.kind, slug: group.slug, paths: paths(group.files) });
  for (const path of unknown) out.set(`file:${path}`, { kind: 'file', slug: path, paths: [path] });
  return out;
}

const KIND_ORDER: ReadonlyArray<ResourceKind | 'file'> = [...RESOURCE_KINDS, 'file'];

/** Compares two trees (path → content) resource by resource. */
export function diffTrees(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): WorkspaceDiff {
  const old = groups(before);
  const now = groups(after);
  const diff: WorkspaceDiff = { created: 0, updated: 0, unchanged: 0, deleted: 0, resources: [] };
  for (const key of new Set([...old.keys(), ...now.keys()])) {
    const was = old.get(key);
    const is = now.get(key);
    const group = (is ?? was) as Group;
    let change: ResourceChange;
    if (!was) change = 'created';
    else if (!is) change = 'deleted';
    else {
      const paths = new Set([...was.paths, ...is.paths]);
      change = [...paths].every((path) => before.get(path) === after.get(path)) ? 'unchanged' : 'updated';
    }
    diff[change] += 1;
    diff.resources.push({ kind: group.kind, slug: group.slug, change });
  }
  diff.resources.sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0),
  );
  return diff;
}
