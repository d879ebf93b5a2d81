/**
 * Applying a PATCH body to a stored manifest. A patch is shallow: each top-level field it names replaces
 * the stored one (a list or a nested object is replaced whole), `null` removes an optional field. The
 * merged manifest is then parsed with the kind's create schema, so cross-field rules (step templates,
 * defaults, key order) hold exactly as for a create.
 */
import { type FieldIssue, fieldIssuesFromZod } from './issues.js';
import { MANIFEST_SCHEMAS, type ManifestOf, type ResourceKind } from './manifests.js';

/** The merged manifest, or why it is invalid (paths relative to the manifest). */
export type PatchResult<K extends ResourceKind> =
  | { ok: true; manifest: ManifestOf<K> }
  | { ok: false; errors: FieldIssue[] };

/**
 * Merges an already-validated patch (the kinds' `*ManifestPatchSchema`) into the current manifest. A `slug`
 * in the patch must equal the current slug: renaming is delete + create.
 */
export function mergeManifestPatch<K extends ResourceKind>(
  kind: K,
  current: ManifestOf<K>,
  patch: Readonly<Record<string, unknown>>,
): PatchResult<K> {
  if (patch.slug !== undefined && patch.slug !== current.slug) {
    return { ok: false, errors: [{ path: ['slug'], message: `slug cannot change (is "${current.slug}")` }] };
  }
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  const parsed = MANIFEST_SCHEMAS[kind].safeParse(merged);
  if (!parsed.success) return { ok: false, errors: fieldIssuesFromZod(parsed.error) };
  return { ok: true, manifest: parsed.data as ManifestOf<K> };
}
