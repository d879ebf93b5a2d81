/** Tokens and fixtures shared by the resource API tests. */
import type { TestApp } from './app.js';

export interface Callers {
  /** Every scope, org `org`. */
  writer: string;
  /** read:all only. */
  reader: string;
  /** read:skills only. */
  skillsReader: string;
  /** run:invoke only. */
  invoker: string;
  /** Every scope, another org. */
  stranger: string;
}

/** Tokens of one org (and a stranger in another) for a test file. */
export async function callers(t: TestApp, org: string): Promise<Callers> {
  const all = ['read:all', 'write:resources', 'run:invoke', 'run:approve'] as const;
  return {
    writer: (await t.token({ org, scopes: [...all] })).token,
    reader: (await t.token({ org, scopes: ['read:all'] })).token,
    skillsReader: (await t.token({ org, scopes: ['read:skills'] })).token,
    invoker: (await t.token({ org, scopes: ['run:invoke'] })).token,
    stranger: (await t.token({ org: `${org}-other`, scopes: [...all] })).token,
  };
}

/** The org id of a slug. */
export async function orgIdOf(t: TestApp, slug: string): Promise<number> {
  const row = await t.app.db.sql.one<{ id: number }>('select id from orgs where slug = $1', [slug]);
  return row.id;
}

/** A minimal valid prompt skill body for `POST /skills`. */
export function skillBody(slug: string, extra: Record<string, unknown> = {}) {
  return {
    manifest: { slug, name: `Skill ${slug}`, ...extra },
    promptMd: `Do ${slug} with {{input.text}}.`,
  };
}

/** The field names of a VALIDATION_FAILED answer. */
export function fields(body: { error: { details: { issues: Array<{ field: string }> } } }): string[] {
  return body.error.details.issues.map((i) => i.field);
}
