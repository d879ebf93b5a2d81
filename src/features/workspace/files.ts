/**
 * The workspace's file layout and file formats: which path holds which resource, how a resource becomes
 * file content (deterministic YAML, so equal manifests give equal bytes and therefore equal git shas),
 * and how file content is parsed back, with structured errors.
 *
 * Layout:
 * - `agents/<slug>.yaml`
 * - `skills/<slug>/manifest.yaml` and `skills/<slug>/prompt.md` (the prompt verbatim)
 * - `workflows/<slug>.yaml`, `object-types/<slug>.yaml`, `sources/<slug>.yaml`, `missions/<slug>.yaml`,
 *   `review-policies/<slug>.yaml`
 */
import YAML, { LineCounter } from 'yaml';
import { type FieldPath, issuesFromZod, type WorkspaceIssue } from './issues.js';
import { MANIFEST_SCHEMAS, type ManifestOf, type ResourceKind, type WorkspaceResource } from './manifests.js';

/** Which file of a resource a path is. */
export type FileRole = 'manifest' | 'prompt';

/** What a workspace path holds. `slug` is as written in the path and may not be a valid slug. */
export interface ResourceFile {
  kind: ResourceKind;
  slug: string;
  role: FileRole;
}

const SINGLE_FILE_DIRS: Record<Exclude<ResourceKind, 'skill'>, string> = {
  agent: 'agents',
  workflow: 'workflows',
  object_type: 'object-types',
  source: 'sources',
  mission: 'missions',
  review_policy: 'review-policies',
};
const KIND_BY_DIR = new Map<string, ResourceKind>(
  Object.entries(SINGLE_FILE_DIRS).map(([kind, dir]) => [dir, kind as ResourceKind]),
);

/** Path of a resource's YAML manifest. */
export function manifestPath(kind: ResourceKind, slug: string): string {
  return kind === 'skill' ? `skills/${slug}/manifest.yaml` : `${SINGLE_FILE_DIRS[kind]}/${slug}.yaml`;
}

/** Path of a skill's prompt template. */
export function promptPath(slug: string): string {
  return `skills/${slug}/prompt.md`;
}

/** Every path a resource occupies. */
export function resourcePaths(kind: ResourceKind, slug: string): string[] {
  return kind === 'skill' ? [manifestPath(kind, slug), promptPath(slug)] : [manifestPath(kind, slug)];
}

/** What `path` holds, or `undefined` when the path is not part of the layout. */
export function classifyPath(path: string): ResourceFile | undefined {
  const parts = path.split('/');
  if (parts.length === 3 && parts[0] === 'skills' && parts[1]) {
    if (parts[2] === 'manifest.yaml') return { kind: 'skill', slug: parts[1], role: 'manifest' };
    if (parts[2] === 'prompt.md') return { kind: 'skill', slug: parts[1], role: 'prompt' };
    return undefined;
  }
  if (parts.length !== 2) return undefined;
  const kind = KIND_BY_DIR.get(parts[0] ?? '');
  const name = parts[1] ?? '';
  if (!kind || !name.endsWith('.yaml') || name.length === '.yaml'.length) return undefined;
  return { kind, slug: name.slice(0, -'.yaml'.length), role: 'manifest' };
}

/** The files of one resource found in a tree. */
export interface ResourceFiles {
  kind: ResourceKind;
  slug: string;
  /** Role → path, for the files present. */
  files: Partial<Record<FileRole, string>>;
}

/** Key of a resource in maps: `<kind>:<slug>`. */
export function resourceKey(kind: ResourceKind, slug: string): string {
  return `${kind}:${slug}`;
}

/** Groups a tree's paths by resource; paths outside the layout are returned as `unknown`. */
export function groupResourceFiles(paths: Iterable<string>): {
  resources: Map<string, ResourceFiles>;
  unknown: string[];
} {
  const resources = new Map<string, ResourceFiles>();
  const unknown: string[] = [];
  for (const path of paths) {
    const file = classifyPath(path);
    if (!file) {
      unknown.push(path);
      continue;
    }
    const key = resourceKey(file.kind, file.slug);
    const entry = resources.get(key) ?? { kind: file.kind, slug: file.slug, files: {} };
    entry.files[file.role] = path;
    resources.set(key, entry);
  }
  return { resources, unknown };
}

const STRINGIFY_OPTIONS = {
  // No folding and block literals for multi-line text: stable bytes and readable diffs.
  lineWidth: 0,
  blockQuote: 'literal',
  aliasDuplicateObjects: false,
} as const;

/**
 * A manifest as YAML. The manifest is first parsed with its create schema, which puts known fields in
 * schema order and fills defaults, so the bytes depend only on the content. Free-form objects (JSON
 * Schemas, step input, connection settings) keep the author's key order, which is meaningful there
 * (the order of `properties` is a form's field order). Throws on an invalid manifest: validate first.
 */
export function serializeManifest<K extends ResourceKind>(kind: K, manifest: ManifestOf<K>): string {
  const canonical = MANIFEST_SCHEMAS[kind].parse(manifest);
  return YAML.stringify(canonical, STRINGIFY_OPTIONS);
}

/** A resource's files, path → content. */
export function serializeResource(resource: WorkspaceResource): Map<string, string> {
  const files = new Map<string, string>();
  files.set(
    manifestPath(resource.kind, resource.manifest.slug),
    serializeManifest(resource.kind, resource.manifest),
  );
  if (resource.kind === 'skill') files.set(promptPath(resource.manifest.slug), resource.promptMd);
  return files;
}

/** Writes a resource into a tree (replacing its previous files). */
export function putResource(tree: Map<string, string>, resource: WorkspaceResource): void {
  for (const [path, content] of serializeResource(resource)) tree.set(path, content);
}

/** Removes a resource's files from a tree; false when it had none. */
export function removeResource(tree: Map<string, string>, kind: ResourceKind, slug: string): boolean {
  let removed = false;
  for (const path of resourcePaths(kind, slug)) removed = tree.delete(path) || removed;
  return removed;
}

/** A parse outcome: the value, or every issue found. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; errors: WorkspaceIssue[] };

/** Issues for anything YAML can produce that JSON cannot (binary, sets…) and for `__proto__` keys. */
function nonJsonIssues(file: string, value: unknown, path: FieldPath = []): WorkspaceIssue[] {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return [];
  if (typeof value === 'number') {
    return Number.isFinite(value) ? [] : [{ file, path, message: 'must be a finite number' }];
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => nonJsonIssues(file, item, [...path, index]));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.entries(value).flatMap(([key, item]) =>
      key === '__proto__'
        ? [{ file, path: [...path, key], message: 'the key "__proto__" is not allowed' }]
        : nonJsonIssues(file, item, [...path, key]),
    );
  }
  return [{ file, path, message: 'must be a JSON value (null, boolean, number, string, list or map)' }];
}

/** Parses YAML text into a JSON-compatible value; syntax errors carry line and column. */
export function parseYaml(file: string, content: string): ParseResult<unknown> {
  const lineCounter = new LineCounter();
  const doc = YAML.parseDocument(content, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        return { file, path: [], message: `YAML syntax: ${error.message} (line ${line}, column ${col})` };
      }),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, errors: [{ file, path: [], message: `YAML: ${(error as Error).message}` }] };
  }
  const issues = nonJsonIssues(file, value);
  return issues.length > 0 ? { ok: false, errors: issues } : { ok: true, value };
}

/**
 * Parses and validates one manifest file against its kind's schema; with `expectedSlug`, also checks
 * the manifest's `slug` is that one (the slug in the file's path).
 */
export function parseManifest<K extends ResourceKind>(
  kind: K,
  file: string,
  content: string,
  expectedSlug?: string,
): ParseResult<ManifestOf<K>> {
  const yaml = parseYaml(file, content);
  if (!yaml.ok) return yaml;
  const value = yaml.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, errors: [{ file, path: [], message: 'must be a YAML mapping of manifest fields' }] };
  }
  const parsed = MANIFEST_SCHEMAS[kind].safeParse(value);
  const errors = parsed.success ? [] : issuesFromZod(file, parsed.error);
  const slug: unknown = (value as Record<string, unknown>).slug;
  if (expectedSlug !== undefined && typeof slug === 'string' && slug !== expectedSlug) {
    errors.push({
      file,
      path: ['slug'],
      message: `slug "${slug}" differs from "${expectedSlug}" in the path`,
    });
  }
  if (!parsed.success || errors.length > 0) return { ok: false, errors };
  return { ok: true, value: parsed.data as ManifestOf<K> };
}

/**
 * Parses one resource from a tree. Checks the files are all there and that the manifest's slug is the
 * slug in its path; cross-resource rules are `validateWorkspace`'s.
 */
export function parseResource(
  kind: ResourceKind,
  slug: string,
  tree: ReadonlyMap<string, string>,
): ParseResult<WorkspaceResource> {
  const file = manifestPath(kind, slug);
  const content = tree.get(file);
  const errors: WorkspaceIssue[] = [];
  if (content === undefined) errors.push({ file, path: [], message: 'missing file' });
  const prompt = kind === 'skill' ? tree.get(promptPath(slug)) : '';
  if (prompt === undefined) {
    errors.push({ file: promptPath(slug), path: [], message: 'missing file: a skill needs a prompt.md' });
  }
  if (content === undefined) return { ok: false, errors };
  const parsed = parseManifest(kind, file, content, slug);
  if (!parsed.ok) return { ok: false, errors: [...errors, ...parsed.errors] };
  if (prompt === undefined) return { ok: false, errors };
  const resource = (
    kind === 'skill' ? { kind, manifest: parsed.value, promptMd: prompt } : { kind, manifest: parsed.value }
  ) as WorkspaceResource;
  return { ok: true, value: resource };
}
