/**
 * An open review item's revision (docs/api.md "Review queue"): an opaque string naming what a
 * reviewer saw — the item and its actor version. Every transition of the item changes the version
 * (an assignment, a snooze, a subject that changed under it), and a new round of the same subject is
 * another item, so a revision is never current again once anything a reviewer sees has changed.
 */

/** The revision of item `itemId` at `version`. */
export function revisionOf(itemId: number, version: number): string {
  return `${itemId.toString(36)}.${version.toString(36)}`;
}

/** The `ETag` header value of a revision (a strong validator). */
export function etagOf(revision: string): string {
  return `"${revision}"`;
}
