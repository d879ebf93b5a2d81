/**
 * What the connectors read of a source's manifest: its kind, `connection` settings, and `sync`
 * (`objectTypes`: record kind → object type slug; `everyMinutes`: the sync schedule), found by a
 * lookup the composition root provides (the workspace's applied sources).
 */

/** The sync settings of a source (`sync` in its manifest). */
export interface SourceSync {
  /** Record kind → object type slug; a record kind left out is not synced. */
  objectTypes: Record<string, string>;
  /** Sync every this many minutes; absent: only on request. */
  everyMinutes?: number | undefined;
}

/** A source as the connectors see it. */
export interface SourceConfig {
  slug: string;
  kind: string;
  connection: Record<string, unknown>;
  sync: SourceSync | null;
}

/** Finds a source of an org; null when the org has none with that slug. */
export type SourceLookup = (orgId: number, slug: string) => Promise<SourceConfig | null>;
