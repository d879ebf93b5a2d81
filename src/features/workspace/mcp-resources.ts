/**
 * The authored resources over MCP (docs/mcp.md#resources, #prompts): the org's applied skills, agents,
 * workflows, missions, object types and review policies as resources `r3://skills/<slug>`,
 * `r3://agents/<slug>`, `r3://workflows/<slug>`, `r3://missions/<slug>`, `r3://object-types/<slug>`,
 * `r3://review-policies/<slug>` — reading one gives its
 * manifest as YAML (the bytes
 * of its workspace file) and, for a prompt skill, its prompt template as Markdown
 * (`r3://skills/<slug>/prompt.md`, also readable alone) — and every active prompt skill as a prompt:
 * its arguments are the properties of its input schema (without one, the `{{input.x}}` its template
 * names), and `prompts/get` renders the template with them as a run would.
 */
import type { GetPromptResult, Prompt, PromptArgument } from '@modelcontextprotocol/sdk/types.js';
import { access } from '../../platform/auth/guard.js';
import type { PromptSource } from '../../platform/mcp/prompts.js';
import { invalidParams } from '../../platform/mcp/protocol-errors.js';
import { type ResourceContents, type ResourceSource, resourceUri } from '../../platform/mcp/resources.js';
import { renderTemplate, templateReferences } from '../../platform/util/template.js';
import type { Applied } from './applied.js';
import { serializeManifest } from './files.js';
import { slugSchema } from './manifest-fields.js';
import type { ManifestOf, ResourceKind } from './manifests.js';
import type { SlugPage } from './resource-views.js';
import type { WorkspaceServices } from './services.js';

type Services = Pick<WorkspaceServices, 'resources' | 'applied'>;

const YAML = 'application/yaml';
const MARKDOWN = 'text/markdown';
const PROMPT_FILE = 'prompt.md';

/** One kind served as resources: its collection, its REST read rule, how to list and read it. */
interface AuthoredCollection<K extends ResourceKind> {
  kind: K;
  collection: string;
  access: typeof access.read;
  list(
    s: Services,
    orgId: number,
    page: { limit: number; after?: string | undefined },
  ): Promise<SlugPage<{ slug: string; name: string; description: string }>>;
  read(s: Services, orgId: number, slug: string): Promise<Applied<ManifestOf<K>> | null>;
}

const collection = <K extends ResourceKind>(c: AuthoredCollection<K>) =>
  c as unknown as AuthoredCollection<ResourceKind>;

const COLLECTIONS = [
  collection({
    kind: 'skill',
    collection: 'skills',
    access: access.readSkills,
    list: (s, org, page) => s.resources.listSkills(org, {}, page),
    read: (s, org, slug) => s.applied.getSkill(org, slug),
  }),
  collection({
    kind: 'agent',
    collection: 'agents',
    access: access.readSkills,
    list: (s, org, page) => s.resources.listAgents(org, page),
    read: (s, org, slug) => s.applied.getAgent(org, slug),
  }),
  collection({
    kind: 'workflow',
    collection: 'workflows',
    access: access.read,
    list: (s, org, page) => s.resources.listWorkflows(org, page),
    read: (s, org, slug) => s.applied.getWorkflow(org, slug),
  }),
  collection({
    kind: 'mission',
    collection: 'missions',
    access: access.read,
    list: (s, org, page) => s.resources.listMissions(org, page),
    read: (s, org, slug) => s.applied.getMission(org, slug),
  }),
  collection({
    kind: 'object_type',
    collection: 'object-types',
    access: access.read,
    list: (s, org, page) => s.resources.listObjectTypes(org, page),
    read: (s, org, slug) => s.applied.getObjectType(org, slug),
  }),
  collection({
    kind: 'review_policy',
    collection: 'review-policies',
    access: access.read,
    list: (s, org, page) => s.resources.listReviewPolicies(org, page),
    read: (s, org, slug) => s.applied.getReviewPolicy(org, slug),
  }),
];

/** The resource sources of the authored kinds, in the order `resources/list` pages through them. */
export function authoredResources(s: Services): ResourceSource[] {
  return COLLECTIONS.map((c) => ({
    collection: c.collection,
    access: c.access,
    async list(principal, page) {
      const listed = await c.list(s, principal.orgId, page);
      return {
        items: listed.items.map((item) => ({
          uri: resourceUri(c.collection, item.slug),
          name: item.slug,
          title: item.name,
          description: item.description || `The ${c.kind.replace('_', ' ')} ${item.slug} (its manifest).`,
          mimeType: YAML,
        })),
        nextAfter: listed.nextAfter,
      };
    },
    async read(principal, key) {
      const promptOnly = c.kind === 'skill' && key.endsWith(`/${PROMPT_FILE}`);
      const slug = promptOnly ? key.slice(0, -PROMPT_FILE.length - 1) : key;
      if (!slugSchema.safeParse(slug).success) return null;
      const found = await c.read(s, principal.orgId, slug);
      if (!found) return null;
      const uri = resourceUri(c.collection, slug);
      const contents: ResourceContents = [];
      if (!promptOnly)
        contents.push({ uri, mimeType: YAML, text: serializeManifest(c.kind, found.manifest) });
      if (c.kind === 'skill' && (found.manifest as ManifestOf<'skill'>).form === 'prompt') {
        const promptMd = (found as unknown as { promptMd: string }).promptMd;
        contents.push({ uri: `${uri}/${PROMPT_FILE}`, mimeType: MARKDOWN, text: promptMd });
      }
      return contents;
    },
  }));
}

/** The arguments of a prompt skill: its input schema's properties, else its template's `input.x`. */
export function promptArguments(inputSchema: Record<string, unknown> | undefined, promptMd: string) {
  const properties = inputSchema?.properties;
  if (inputSchema && typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    const required = Array.isArray(inputSchema.required) ? (inputSchema.required as unknown[]) : [];
    return Object.entries(properties as Record<string, unknown>).map(([name, property]): PromptArgument => {
      const about =
        typeof property === 'object' && property !== null ? (property as Record<string, unknown>) : {};
      const description = typeof about.description === 'string' ? about.description : about.title;
      return {
        name,
        ...(typeof description === 'string' ? { description } : {}),
        required: required.includes(name),
      };
    });
  }
  const names = new Set<string>();
  for (const path of templateReferences(promptMd)) {
    const [root, name] = path.split('.');
    if (root === 'input' && name) names.add(name);
  }
  return [...names].map((name): PromptArgument => ({ name, required: false }));
}

/** Every active prompt skill as a prompt (`prompts/list`, `prompts/get`). */
export function skillPrompts(s: Services): PromptSource {
  return {
    access: access.readSkills,
    async list(principal, page) {
      const listed = await s.resources.listSkills(principal.orgId, { status: 'active' }, page);
      const items: Prompt[] = [];
      for (const skill of listed.items) {
        if (skill.form !== 'prompt') continue;
        // The template names the arguments of a skill without an input schema: read it then only.
        const promptMd = skill.inputSchema
          ? ''
          : ((await s.applied.getSkill(principal.orgId, skill.slug))?.promptMd ?? '');
        items.push({
          name: skill.slug,
          title: skill.name,
          ...(skill.description ? { description: skill.description } : {}),
          arguments: promptArguments(skill.inputSchema, promptMd),
        });
      }
      return { items, nextAfter: listed.nextAfter };
    },
    async get(principal, name, args): Promise<GetPromptResult | null> {
      if (!slugSchema.safeParse(name).success) return null;
      const skill = await s.applied.getSkill(principal.orgId, name);
      if (skill?.manifest.status !== 'active' || skill.manifest.form !== 'prompt') return null;
      const declared = promptArguments(skill.manifest.inputSchema, skill.promptMd);
      const missing = declared
        .filter((arg) => arg.required && args[arg.name] === undefined)
        .map((a) => a.name);
      if (missing.length > 0) {
        throw invalidParams(
          `Prompt ${name} needs the argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`,
          { name, missing },
        );
      }
      const rendered = renderTemplate(skill.promptMd, { input: args });
      return {
        ...(skill.manifest.description ? { description: skill.manifest.description } : {}),
        messages: [{ role: 'user', content: { type: 'text', text: rendered.text } }],
      };
    },
  };
}
