/**
 * The policy in force for a review item (decisions.md §16): the review policy named by what the item
 * reviews — the skill (`reviewPolicy` of its manifest), the workflow gate (the approve step's
 * `reviewPolicy`), the mission definition, or for a proposed action the agent that proposed it — as
 * of the workspace version the run started on; else that version's policy `default`; else the
 * built-in policy (anyone who may approve, once). A run's version never changes, and neither does a
 * version's content, so answers are remembered by (org, version, resource). An answer read in a
 * transaction (an item opening) is read on that transaction's connection and shares no read still
 * in flight: a transaction holding a connection that waited for another one of the pool would
 * deadlock the pool once as many opened at once as it has connections.
 *
 * `inForce` is the one function every rule of a policy reads it through: the choke point's
 * `checkPolicy` stage (enforce.ts), the deadlines, the review page and the queue.
 */
import type { Sql } from '../../../platform/db/sql.js';
import { setBounded } from '../../../platform/util/bounded-map.js';
import {
  BUILT_IN_POLICY,
  DEFAULT_POLICY_SLUG,
  policyRules,
  type ReviewPolicyManifest,
  type ReviewPolicyRules,
  type WorkspaceResource,
  type WorkspaceStore,
} from '../../workspace/index.js';
import type { ReviewKind } from '../subjects.js';

/** The resource kinds that name a policy. */
export type PolicyNamer = 'skill' | 'workflow' | 'mission' | 'agent';

/** The policy an item follows, and where it came from. */
export interface PolicyInForce {
  /** The policy's slug; null for the built-in policy. */
  slug: string | null;
  /** Its name (`Built-in` for the built-in policy). */
  name: string;
  /** `named`: a resource names it; `default`: the org's `default`; `built_in`: neither exists. */
  source: 'named' | 'default' | 'built_in';
  /** The resource that names it (`field` as in its manifest: `reviewPolicy`, `steps.2.reviewPolicy`). */
  namedBy: { kind: PolicyNamer; slug: string; field: string } | null;
  /** The workspace version it was read at (the run's `workspaceSha`); null when the org had none. */
  workspaceSha: string | null;
  /** Its manifest as written; null for the built-in policy. */
  manifest: ReviewPolicyManifest | null;
  /** What enforcement and the deadlines use: defaults filled, durations in milliseconds. */
  rules: ReviewPolicyRules;
  /**
   * The user who started the run (for an action, the run that proposed it; the caller that proposed
   * it when no run did): whom `selfApproval: false` refuses. Null when no user did (a schedule, a
   * trigger). Stdio MCP's principal is `mcp`.
   */
  startedBy: string | null;
}

/** What an item's subject says about its policy: the resource that may name one, and its version. */
interface SubjectFacts {
  namer: { kind: PolicyNamer; slug: string } | null;
  /** The workflow gate the item is for (a workflow run's `paused_at`). */
  gate: string | null;
  workspaceSha: string | null;
  startedBy: string | null;
}

/** The starter of a row with `created_by` and `api_token_id`: the token's user, or `mcp`. */
const STARTER = (alias: string, user: string) =>
  `coalesce(${user}.id, case when ${alias}.created_by = 'mcp' then 'mcp' end)`;

/**
 * A run's facts as a statement's select list, each column named `<prefix><column>`, from `runs`
 * aliased `alias` joined with `RUN_FACTS_JOINS` of the same alias: for a statement that reads the run
 * for its own ends too (the choke point's target), which hands its row to `inForceOfRow`.
 */
export function runFactsColumns(alias: string, prefix: string): string {
  return `${alias}.kind as ${prefix}kind, ${alias}.slug as ${prefix}slug, ${alias}.paused_at as ${prefix}paused_at,
         ${alias}.workspace_sha as ${prefix}workspace_sha, ${STARTER(alias, `${alias}_starter`)} as ${prefix}started_by`;
}

/** The joins `runFactsColumns(alias, …)` reads the starter through. */
export function runFactsJoins(alias: string): string {
  return `left join api_tokens ${alias}_token on ${alias}_token.id = ${alias}.api_token_id
    left join users ${alias}_starter on ${alias}_starter.pk = ${alias}_token.user_pk`;
}

const RUN_FACTS = `
  select ${runFactsColumns('r', '')}
    from runs r
    ${runFactsJoins('r')}
   where r.id = $1 and r.org_id = $2`;

const MISSION_FACTS = `
  select m.mission_slug as slug, m.workspace_sha, ${STARTER('m', 'u')} as started_by
    from mission_runs m
    left join api_tokens t on t.id = m.api_token_id
    left join users u on u.pk = t.user_pk
   where m.id = $1 and m.org_id = $2`;

// The proposing run's version and starter; without a run, the proposer's (and the applied version).
const ACTION_FACTS = `
  select p.agent_slug as slug,
         coalesce(r.workspace_sha, (select left(h.applied_sha, 12) from workspace_heads h where h.org_id = p.org_id))
           as workspace_sha,
         case when r.id is not null then ${STARTER('r', 'ru')} else ${STARTER('p', 'pu')} end as started_by
    from proposals p
    left join runs r on r.id = p.run_id
    left join api_tokens rt on rt.id = r.api_token_id
    left join users ru on ru.pk = rt.user_pk
    left join api_tokens pt on pt.id = p.api_token_id
    left join users pu on pu.pk = pt.user_pk
   where p.id = $1 and p.org_id = $2`;

type FactsRow = {
  kind?: string;
  slug: string | null;
  paused_at?: string | null;
  workspace_sha: string | null;
  started_by: string | null;
};

/** What the facts row of a subject of kind `kind` says. */
function factsOf(kind: ReviewKind, row: FactsRow): SubjectFacts {
  const namer: PolicyNamer =
    kind === 'mission' ? 'mission' : kind === 'action' ? 'agent' : (row.kind as 'skill' | 'workflow');
  return {
    namer: row.slug === null ? null : { kind: namer, slug: row.slug },
    gate: row.paused_at ?? null,
    workspaceSha: row.workspace_sha,
    startedBy: row.started_by,
  };
}

/** Resources remembered by (org, version, kind, slug). */
const REMEMBERED = 2_000;

export class ReviewPolicies {
  /** Resources read, by (org, version, kind, slug). */
  private readonly remembered = new Map<string, WorkspaceResource | null>();
  /** Reads in flight on the pool, which concurrent reads on the pool share. */
  private readonly reading = new Map<string, Promise<WorkspaceResource | null>>();

  /** `sql`: the pool; `workspace`: where versions are read. */
  constructor(
    private readonly sql: Sql,
    private readonly workspace: Pick<WorkspaceStore, 'readResourceAt'>,
  ) {}

  /**
   * The policy in force for the item of `ref` (its subject: the run, mission run or proposal) in
   * `orgId`. `sql`: read the subject in this transaction (an item opening with its subject). A
   * subject the org does not have follows the built-in policy.
   */
  async inForce(
    orgId: number,
    ref: { kind: ReviewKind; id: number },
    sql: Sql = this.sql,
  ): Promise<PolicyInForce> {
    const facts = await this.facts(sql, orgId, ref);
    return this.resolve(orgId, facts, sql);
  }

  /**
   * The policy in force for the item of run `ref` (a skill or workflow run) from its facts as a
   * statement read them with `runFactsColumns(…, prefix)` (`raw`: that statement's row): `inForce`
   * without its own read of the run.
   */
  inForceOfRow(
    orgId: number,
    ref: { kind: ReviewKind; id: number },
    raw: Record<string, unknown>,
    prefix: string,
  ): Promise<PolicyInForce> {
    if (ref.kind !== 'skill' && ref.kind !== 'workflow') {
      throw new Error(`the facts of a ${ref.kind} item are not a run's`);
    }
    const row: FactsRow = {
      kind: raw[`${prefix}kind`] as string,
      slug: raw[`${prefix}slug`] as string | null,
      paused_at: raw[`${prefix}paused_at`] as string | null,
      workspace_sha: raw[`${prefix}workspace_sha`] as string | null,
      started_by: raw[`${prefix}started_by`] as string | null,
    };
    return this.resolve(orgId, factsOf(ref.kind, row), this.sql);
  }

  /** The policy named `slug` at version `workspaceSha` (or null); `sql` as for `inForce`. */
  async policyAt(
    orgId: number,
    workspaceSha: string,
    slug: string,
    sql: Sql = this.sql,
  ): Promise<ReviewPolicyManifest | null> {
    const found = await this.resourceAt(orgId, workspaceSha, 'review_policy', slug, sql);
    return found?.kind === 'review_policy' ? found.manifest : null;
  }

  private async resolve(orgId: number, facts: SubjectFacts, sql: Sql): Promise<PolicyInForce> {
    const { workspaceSha, startedBy } = facts;
    const base = { workspaceSha, startedBy };
    if (workspaceSha === null) return builtIn(base);
    const named = await this.namedPolicy(orgId, facts, sql);
    if (named) {
      const manifest = await this.policyAt(orgId, workspaceSha, named.slug, sql);
      if (manifest) return { ...inForceOf(manifest, 'named', named.by), ...base };
    }
    const fallback = await this.policyAt(orgId, workspaceSha, DEFAULT_POLICY_SLUG, sql);
    return fallback ? { ...inForceOf(fallback, 'default', null), ...base } : builtIn(base);
  }

  /** The policy slug the subject's resource names, and where. */
  private async namedPolicy(
    orgId: number,
    facts: SubjectFacts,
    sql: Sql,
  ): Promise<{ slug: string; by: NonNullable<PolicyInForce['namedBy']> } | null> {
    const { namer, workspaceSha } = facts;
    if (!namer || workspaceSha === null) return null;
    const resource = await this.resourceAt(orgId, workspaceSha, namer.kind, namer.slug, sql);
    if (!resource) return null;
    if (resource.kind === 'workflow') {
      const index = resource.manifest.steps.findIndex((s) => s.name === facts.gate);
      const step = resource.manifest.steps[index];
      if (step?.type !== 'approve' || step.reviewPolicy === undefined) return null;
      return { slug: step.reviewPolicy, by: { ...namer, field: `steps.${index}.reviewPolicy` } };
    }
    const slug = 'reviewPolicy' in resource.manifest ? resource.manifest.reviewPolicy : undefined;
    return slug === undefined ? null : { slug, by: { ...namer, field: 'reviewPolicy' } };
  }

  private async facts(sql: Sql, orgId: number, ref: { kind: ReviewKind; id: number }): Promise<SubjectFacts> {
    const [name, statement] =
      ref.kind === 'mission'
        ? ['review_policy_facts_mission', MISSION_FACTS]
        : ref.kind === 'action'
          ? ['review_policy_facts_action', ACTION_FACTS]
          : ['review_policy_facts_run', RUN_FACTS];
    // Named: read for every item opened, decided by a batch or shown (parsed once per connection).
    const row = (await sql.prepared<FactsRow>(name, statement, [ref.id, orgId]))[0];
    if (!row) return { namer: null, gate: null, workspaceSha: null, startedBy: null };
    return factsOf(ref.kind, row);
  }

  private async resourceAt(
    orgId: number,
    sha: string,
    kind: PolicyNamer | 'review_policy',
    slug: string,
    sql: Sql,
  ): Promise<WorkspaceResource | null> {
    const key = `${orgId}:${sha}:${kind}:${slug}`;
    const known = this.remembered.get(key);
    if (known !== undefined) return known;
    const pooled = sql === this.sql;
    const shared = pooled ? this.reading.get(key) : undefined;
    if (shared) return shared;
    // A failed read is not remembered.
    const read = this.workspace.readResourceAt(orgId, kind, slug, sha, sql).then((found) => {
      setBounded(this.remembered, key, found, REMEMBERED);
      return found;
    });
    if (pooled) {
      this.reading.set(key, read);
      read.then(
        () => this.reading.delete(key),
        () => this.reading.delete(key),
      );
    }
    return read;
  }
}

function inForceOf(
  manifest: ReviewPolicyManifest,
  source: 'named' | 'default',
  namedBy: PolicyInForce['namedBy'],
): Omit<PolicyInForce, 'workspaceSha' | 'startedBy'> {
  return {
    slug: manifest.slug,
    name: manifest.name,
    source,
    namedBy,
    manifest,
    rules: policyRules(manifest),
  };
}

function builtIn(base: Pick<PolicyInForce, 'workspaceSha' | 'startedBy'>): PolicyInForce {
  return {
    slug: null,
    name: 'Built-in',
    source: 'built_in',
    namedBy: null,
    manifest: null,
    rules: BUILT_IN_POLICY,
    ...base,
  };
}
