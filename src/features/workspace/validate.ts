/**
 * Validation of a whole workspace tree, the gate before anything is written or committed. It reports
 * every problem it finds (not only the first), each naming the file and the field.
 */
import { groupResourceFiles, manifestPath, parseResource } from './files.js';
import { compareIssues, type FieldPath, type WorkspaceIssue } from './issues.js';
import {
  checkJsonSchema,
  createJsonSchemaCompiler,
  type JsonSchemaCompiler,
  schemaRefusal,
} from './json-schema.js';
import { SLUG_PATTERN } from './manifest-fields.js';
import { RESOURCE_KINDS, type ResourceKind, type WorkspaceResource } from './manifests.js';
import type { MissionManifest } from './mission-manifest.js';

/** Outcome of {@link validateWorkspace}: the parsed resources, or every issue found. */
export type WorkspaceValidation =
  | { ok: true; resources: WorkspaceResource[] }
  | { ok: false; errors: WorkspaceIssue[] };

const LAYOUT_HINT =
  'agents/<slug>.yaml, skills/<slug>/manifest.yaml, skills/<slug>/prompt.md, workflows/<slug>.yaml, ' +
  'object-types/<slug>.yaml, sources/<slug>.yaml, missions/<slug>.yaml, review-policies/<slug>.yaml';

const KIND_LABEL: Record<ResourceKind, string> = {
  agent: 'agent',
  skill: 'skill',
  workflow: 'workflow',
  object_type: 'object type',
  source: 'source',
  mission: 'mission',
  review_policy: 'review policy',
};

type SlugIndex = Record<ResourceKind, Set<string>>;

// Building an ajv instance costs tens of milliseconds; checks are synchronous and keep nothing compiled.
let sharedCompiler: JsonSchemaCompiler | undefined;

function defaultCompiler(): JsonSchemaCompiler {
  if (!sharedCompiler) sharedCompiler = createJsonSchemaCompiler();
  return sharedCompiler;
}

/** A JSON Schema field of a manifest, with where it sits. */
interface SchemaField {
  path: FieldPath;
  schema: Record<string, unknown>;
}

function schemaFields(resource: WorkspaceResource): SchemaField[] {
  switch (resource.kind) {
    case 'skill': {
      const { inputSchema, outputSchema } = resource.manifest;
      const fields: SchemaField[] = [];
      if (inputSchema) fields.push({ path: ['inputSchema'], schema: inputSchema });
      if (outputSchema) fields.push({ path: ['outputSchema'], schema: outputSchema });
      return fields;
    }
    case 'workflow':
    case 'mission':
      return [{ path: ['inputSchema'], schema: resource.manifest.inputSchema }];
    case 'object_type':
      return [{ path: ['schema'], schema: resource.manifest.schema }];
    default:
      return [];
  }
}

/** Inputs, outputs and metadata are JSON objects, so a schema whose root `type` excludes object is a mistake. */
function rootTypeIssue(schema: Record<string, unknown>): string | undefined {
  const type = schema.type;
  if (type === undefined || type === 'object') return undefined;
  if (Array.isArray(type) && type.includes('object')) return undefined;
  return 'must describe an object: use type "object"';
}

/** References from one resource to others, each with the field that holds it. */
function references(
  resource: WorkspaceResource,
): Array<{ path: FieldPath; kind: ResourceKind; slug: string }> {
  const refs: Array<{ path: FieldPath; kind: ResourceKind; slug: string }> = [];
  const list = (field: string, kind: ResourceKind, slugs: readonly string[]) => {
    slugs.forEach((slug, index) => {
      refs.push({ path: [field, index], kind, slug });
    });
  };
  // The review policy a skill, mission or agent names (`review-policies/<slug>.yaml`).
  if ('reviewPolicy' in resource.manifest && resource.manifest.reviewPolicy !== undefined) {
    refs.push({ path: ['reviewPolicy'], kind: 'review_policy', slug: resource.manifest.reviewPolicy });
  }
  switch (resource.kind) {
    case 'agent':
      list('skillSlugs', 'skill', resource.manifest.skillSlugs);
      list('workflowSlugs', 'workflow', resource.manifest.workflowSlugs);
      list('sourceSlugs', 'source', resource.manifest.sourceSlugs);
      break;
    case 'workflow': {
      const { trigger, steps } = resource.manifest;
      if (trigger.type === 'object.created') {
        refs.push({ path: ['trigger', 'objectType'], kind: 'object_type', slug: trigger.objectType });
      }
      steps.forEach((step, index) => {
        if (step.type === 'skill')
          refs.push({ path: ['steps', index, 'skill'], kind: 'skill', slug: step.skill });
        else if (step.reviewPolicy !== undefined) {
          refs.push({
            path: ['steps', index, 'reviewPolicy'],
            kind: 'review_policy',
            slug: step.reviewPolicy,
          });
        }
      });
      break;
    }
    case 'source':
      for (const [record, slug] of Object.entries(resource.manifest.sync?.objectTypes ?? {})) {
        refs.push({ path: ['sync', 'objectTypes', record], kind: 'object_type', slug });
      }
      break;
    case 'mission':
      resource.manifest.team.forEach((member, index) => {
        refs.push({ path: ['team', index, 'agent'], kind: 'agent', slug: member.agent });
      });
      break;
    case 'object_type':
      for (const slug of Object.keys(resource.manifest.sourceRelevance)) {
        refs.push({ path: ['sourceRelevance', slug], kind: 'source', slug });
      }
      break;
    default:
      break;
  }
  return refs;
}

/** A resource that names another, and the field that names it (`skillSlugs.0`, `steps.1.skill`). */
export interface Referrer {
  kind: ResourceKind;
  slug: string;
  field: string;
}

/**
 * The resources of `tree` that name `kind`/`slug` (each reference once, in kind then slug order):
 * what keeps it from being deleted. Resources whose files do not parse name nothing.
 */
export function referrersOf(tree: ReadonlyMap<string, string>, kind: ResourceKind, slug: string): Referrer[] {
  const found: Referrer[] = [];
  for (const group of groupResourceFiles(tree.keys()).resources.values()) {
    if (!SLUG_PATTERN.test(group.slug)) continue;
    const parsed = parseResource(group.kind, group.slug, tree);
    if (!parsed.ok) continue;
    for (const ref of references(parsed.value)) {
      if (ref.kind === kind && ref.slug === slug) {
        found.push({ kind: group.kind, slug: group.slug, field: ref.path.join('.') });
      }
    }
  }
  const order = (r: Referrer) => RESOURCE_KINDS.indexOf(r.kind);
  return found.sort((a, b) => order(a) - order(b) || a.slug.localeCompare(b.slug));
}

/** A mission's team members whose agent is in the tree but not active (missing ones are reported as such). */
function inactiveMembers(
  mission: MissionManifest,
  resources: readonly WorkspaceResource[],
): WorkspaceIssue[] {
  const file = manifestPath('mission', mission.slug);
  return mission.team.flatMap((member, index) => {
    const agent = resources.find((r) => r.kind === 'agent' && r.manifest.slug === member.agent);
    return agent?.kind === 'agent' && !agent.manifest.active
      ? [{ file, path: ['team', index, 'agent'], message: `agent "${member.agent}" is not active` }]
      : [];
  });
}

/** The tool names a resource lists, each with the field that holds it. */
function toolReferences(resource: WorkspaceResource): Array<{ path: FieldPath; name: string }> {
  const refs: Array<{ path: FieldPath; name: string }> = [];
  const list = (path: FieldPath, names: readonly string[] | undefined) => {
    (names ?? []).forEach((name, index) => {
      refs.push({ path: [...path, index], name });
    });
  };
  if (resource.kind === 'skill') list(['tools'], resource.manifest.tools);
  if (resource.kind === 'agent') {
    list(['tools', 'allow'], resource.manifest.tools?.allow);
    list(['tools', 'deny'], resource.manifest.tools?.deny);
  }
  return refs;
}

/** Options of {@link validateWorkspace}. */
export interface ValidateOptions {
  /** The agent tools usable in runs; when given, every tool a skill or agent names must be one. */
  toolNames?: ReadonlySet<string>;
}

/**
 * Validates a whole tree (path → content): every path belongs to the layout and carries a valid slug;
 * every file parses and matches its kind's schema; a manifest's slug equals its path's; a skill has
 * both files; every cross reference names a resource in the tree (agent → skills, workflows, sources;
 * workflow step → skill; `object.created` trigger → object type; sourceRelevance → sources; a
 * source's sync.objectTypes → object types; a mission's team → agents, each active; a skill's,
 * mission's, agent's or workflow approve step's `reviewPolicy` → review policies); every JSON
 * Schema compiles (draft 2020-12, see json-schema.ts) and describes an object; a workflow with a
 * `schedule` trigger has an inputSchema that accepts `{}` (the input of its scheduled runs); every
 * tool a skill's `tools` or an agent's `tools.allow`/`tools.deny` names is a registered run tool
 * (`toolNames`). A reference to a resource whose file is present but invalid is not reported again as
 * missing.
 */
export function validateWorkspace(
  tree: ReadonlyMap<string, string>,
  compiler: JsonSchemaCompiler = defaultCompiler(),
  options: ValidateOptions = {},
): WorkspaceValidation {
  const errors: WorkspaceIssue[] = [];
  const { resources: groups, unknown } = groupResourceFiles(tree.keys());
  for (const file of unknown) {
    errors.push({ file, path: [], message: `not part of the workspace layout (${LAYOUT_HINT})` });
  }

  const present: SlugIndex = {
    agent: new Set(),
    skill: new Set(),
    workflow: new Set(),
    object_type: new Set(),
    source: new Set(),
    mission: new Set(),
    review_policy: new Set(),
  };
  const resources: WorkspaceResource[] = [];
  for (const group of groups.values()) {
    if (!SLUG_PATTERN.test(group.slug)) {
      for (const file of Object.values(group.files)) {
        errors.push({ file, path: [], message: `"${group.slug}" in the file name is not a valid slug` });
      }
      continue;
    }
    present[group.kind].add(group.slug);
    const parsed = parseResource(group.kind, group.slug, tree);
    if (parsed.ok) resources.push(parsed.value);
    else errors.push(...parsed.errors);
  }

  for (const resource of resources) {
    const file = manifestPath(resource.kind, resource.manifest.slug);
    for (const ref of references(resource)) {
      if (!present[ref.kind].has(ref.slug)) {
        errors.push({
          file,
          path: ref.path,
          message: `${KIND_LABEL[ref.kind]} "${ref.slug}" does not exist in the workspace`,
        });
      }
    }
    if (resource.kind === 'mission') errors.push(...inactiveMembers(resource.manifest, resources));
    const { toolNames } = options;
    if (toolNames) {
      for (const ref of toolReferences(resource)) {
        if (!toolNames.has(ref.name)) {
          const known = [...toolNames].sort().join(', ') || 'none';
          errors.push({
            file,
            path: ref.path,
            message: `tool "${ref.name}" is not an agent tool (known: ${known})`,
          });
        }
      }
    }
    for (const field of schemaFields(resource)) {
      const rootIssue = rootTypeIssue(field.schema);
      if (rootIssue) errors.push({ file, path: [...field.path, 'type'], message: rootIssue });
      const issues = checkJsonSchema(compiler, field.schema);
      for (const issue of issues) {
        errors.push({ file, path: [...field.path, ...issue.path], message: `JSON Schema: ${issue.message}` });
      }
      // A schedule starts its runs with input {}: an inputSchema refusing it would never let one start.
      if (
        issues.length === 0 &&
        resource.kind === 'workflow' &&
        resource.manifest.trigger.type === 'schedule'
      ) {
        const refusal = schemaRefusal(compiler, field.schema, {});
        if (refusal) {
          errors.push({
            file,
            path: field.path,
            message: `a schedule trigger starts runs with input {}, which this schema refuses: ${refusal}`,
          });
        }
      }
    }
  }

  if (errors.length > 0) return { ok: false, errors: errors.sort(compareIssues) };
  const order = (kind: ResourceKind) => RESOURCE_KINDS.indexOf(kind);
  resources.sort(
    (a, b) =>
      order(a.kind) - order(b.kind) ||
      (a.manifest.slug < b.manifest.slug ? -1 : a.manifest.slug > b.manifest.slug ? 1 : 0),
  );
  return { ok: true, resources };
}
