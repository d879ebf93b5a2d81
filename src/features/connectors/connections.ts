/**
 * The connection of each source: its sealed credentials (`PUT /sources/:slug/credentials`), what the
 * last check or sync found (`connectionState` `connected` | `error` with `connectionError` |
 * `disconnected` when never checked), and the connector built from both.
 *
 * New credentials reset the state to `disconnected`: what was found with the old ones no longer says
 * anything. Credentials never leave this module opened except into a connector, and only to the
 * connection target they were set for (connection-target.ts): the target is stored with them; an
 * apply that moves it clears them (`forgetMovedCredentials`), and a connector is never built with
 * credentials of another target.
 */
import type { Db, Sql } from '../../platform/db/sql.js';
import type { Clock } from '../../platform/util/clock.js';
import { connectionTarget } from './connection-target.js';
import type { Connector } from './connector.js';
import { CREDENTIAL_SCHEMAS, type CredentialBox } from './credentials.js';
import { ConnectorError } from './errors.js';
import { buildConnector, type ConnectorEnvironment } from './registry.js';
import type { SourceConfig } from './source-config.js';

/** Connection states a source reports. */
export type ConnectionState = 'connected' | 'disconnected' | 'error';

/** The connection fields of a source's view (list, detail). */
export interface ConnectionView {
  connectionState: ConnectionState;
  connectionError: string | null;
  credentialsSet: boolean;
  credentialsUpdatedAt: string | null;
  /** When a check or sync last reached the upstream (ISO), or null. */
  checkedAt: string | null;
}

interface ConnectionRow {
  source_slug: string;
  credentials: string | null;
  /** The connection target the credentials were set for (null: set before targets were kept). */
  credentials_target: string | null;
  credentials_updated_at: Date | null;
  state: ConnectionState;
  error: string | null;
  checked_at: Date | null;
  synced_through: Date | null;
}

/** Why a source whose target moved has no credentials. */
const MOVED =
  'the connection target changed since the credentials were set: PUT /sources/:slug/credentials again';

/** A source's connection before anything was set or checked. */
export const NEVER_CONNECTED: ConnectionView = {
  connectionState: 'disconnected',
  connectionError: null,
  credentialsSet: false,
  credentialsUpdatedAt: null,
  checkedAt: null,
};

function view(row: ConnectionRow | undefined): ConnectionView {
  if (!row) return NEVER_CONNECTED;
  return {
    connectionState: row.state,
    connectionError: row.error,
    credentialsSet: row.credentials !== null,
    credentialsUpdatedAt: row.credentials_updated_at?.toISOString() ?? null,
    checkedAt: row.checked_at?.toISOString() ?? null,
  };
}

/** Validation issues of a credentials body for a source of `kind` (fields under `body`). */
export function credentialIssues(kind: string, body: unknown): Array<{ field: string; message: string }> {
  const schema = CREDENTIAL_SCHEMAS[kind as keyof typeof CREDENTIAL_SCHEMAS];
  if (!schema) return [{ field: 'params.slug', message: `sources of kind "${kind}" take no credentials` }];
  const result = schema.safeParse(body);
  if (result.success) return [];
  return result.error.issues.map((i) => ({
    field: ['body', ...i.path.map(String)].join('.'),
    message: i.message,
  }));
}

export interface ConnectionStoreDeps {
  db: Db;
  clock: Clock;
  /** The credential box (its key comes from the master secret, read on first use). */
  box: () => Promise<CredentialBox>;
  env: ConnectorEnvironment;
}

/** Credentials, connection state and connectors of sources. */
export class ConnectionStore {
  constructor(private readonly deps: ConnectionStoreDeps) {}

  /** The connection views of `slugs` (every slug gets one). */
  async views(orgId: number, slugs: readonly string[]): Promise<Map<string, ConnectionView>> {
    const rows = await this.deps.db.query<ConnectionRow>(
      `select * from source_connections where org_id = $1 and source_slug = any($2::text[])`,
      [orgId, slugs],
    );
    const bySlug = new Map(rows.map((r) => [r.source_slug, r]));
    return new Map(slugs.map((slug) => [slug, view(bySlug.get(slug))]));
  }

  /**
   * Seals and stores `credentials` (already validated for the source's kind); the state goes back to
   * `disconnected`, and the next sync reads everything. `alsoIn` writes with it in the same
   * transaction (the audit row).
   */
  async setCredentials(
    orgId: number,
    source: SourceConfig,
    credentials: Record<string, unknown>,
    alsoIn?: (sql: Sql) => Promise<void>,
  ): Promise<ConnectionView> {
    const slug = source.slug;
    const sealed = (await this.deps.box()).seal(orgId, slug, credentials);
    return this.deps.db.tx(async (sql) => {
      const [row] = await sql.query<ConnectionRow>(
        `insert into source_connections (org_id, source_slug, credentials, credentials_target, credentials_updated_at, state, error)
         values ($1, $2, $3, $4, $5, 'disconnected', null)
         on conflict (org_id, source_slug) do update
           set credentials = excluded.credentials, credentials_target = excluded.credentials_target,
               credentials_updated_at = excluded.credentials_updated_at,
               state = 'disconnected', error = null, synced_through = null
         returning *`,
        [
          orgId,
          slug,
          sealed,
          connectionTarget(source.kind, source.connection),
          new Date(this.deps.clock.now()),
        ],
      );
      await alsoIn?.(sql);
      return view(row);
    });
  }

  /** Records what a check or sync found. */
  async record(
    sql: Sql,
    orgId: number,
    slug: string,
    state: ConnectionState,
    error: string | null,
  ): Promise<void> {
    await sql.query(
      `insert into source_connections (org_id, source_slug, state, error, checked_at) values ($1, $2, $3, $4, $5)
       on conflict (org_id, source_slug) do update set state = excluded.state, error = excluded.error,
                                                        checked_at = excluded.checked_at`,
      [orgId, slug, state, error, new Date(this.deps.clock.now())],
    );
  }

  /** Records a completed sync: connected, and the next sync reads from `through`. */
  async recordSynced(sql: Sql, orgId: number, slug: string, through: Date): Promise<void> {
    await sql.query(
      `insert into source_connections (org_id, source_slug, state, checked_at, synced_through)
       values ($1, $2, 'connected', $3, $4)
       on conflict (org_id, source_slug) do update set state = 'connected', error = null,
         checked_at = excluded.checked_at, synced_through = excluded.synced_through`,
      [orgId, slug, new Date(this.deps.clock.now()), through],
    );
  }

  /** The start of the last completed sync, or null. */
  async syncedThrough(sql: Sql, orgId: number, slug: string): Promise<Date | null> {
    const row = await sql.maybeOne<{ synced_through: Date | null }>(
      'select synced_through from source_connections where org_id = $1 and source_slug = $2',
      [orgId, slug],
    );
    return row?.synced_through ?? null;
  }

  /**
   * The connector of `source` with its opened credentials. Throws `ConnectorError` (`NOT_CONFIGURED`
   * without credentials, `REJECTED` for a bad setting or a kind without connector).
   */
  async connector(orgId: number, source: SourceConfig): Promise<Connector> {
    const row = await this.deps.db.maybeOne<{
      credentials: string | null;
      credentials_target: string | null;
    }>(
      'select credentials, credentials_target from source_connections where org_id = $1 and source_slug = $2',
      [orgId, source.slug],
    );
    const target = connectionTarget(source.kind, source.connection);
    if (row?.credentials && row.credentials_target === null) {
      // Set before targets were kept: they belong to the target they are first used with.
      await this.deps.db.query(
        `update source_connections set credentials_target = $3
          where org_id = $1 and source_slug = $2 and credentials_target is null`,
        [orgId, source.slug, target],
      );
    } else if (row?.credentials && row.credentials_target !== target) {
      // The target moved and the apply that moved it has not cleared them yet: they do not go there.
      throw new ConnectorError('NOT_CONFIGURED', MOVED);
    }
    let credentials: Record<string, unknown> | null = null;
    if (row?.credentials) {
      try {
        credentials = (await this.deps.box()).open(orgId, source.slug, row.credentials);
      } catch {
        throw new ConnectorError(
          'NOT_CONFIGURED',
          'the stored credentials cannot be opened (was R3_SECRET_KEY changed?): set them again',
        );
      }
    }
    return buildConnector(source.kind, source.connection, credentials, this.deps.env);
  }

  /**
   * Clears the credentials of the org's sources whose connection target is no longer the one they were
   * set for (or that are gone), in `sql` — the transaction of the apply that moved them, which already
   * holds the new version: nothing ever sends them to the new target.
   */
  async forgetMovedCredentials(sql: Sql, orgId: number): Promise<void> {
    const rows = await sql.query<{
      source_slug: string;
      credentials_target: string | null;
      kind: string | null;
      connection: unknown;
    }>(
      `select c.source_slug, c.credentials_target, s.manifest ->> 'kind' as kind, s.manifest -> 'connection' as connection
         from source_connections c left join sources s on s.org_id = c.org_id and s.slug = c.source_slug
        where c.org_id = $1 and c.credentials is not null and c.credentials_target is not null`,
      [orgId],
    );
    const moved = rows
      .filter((r) => r.kind === null || connectionTarget(r.kind, r.connection) !== r.credentials_target)
      .map((r) => r.source_slug);
    if (moved.length === 0) return;
    await sql.query(
      `update source_connections
          set credentials = null, credentials_target = null, credentials_updated_at = null,
              state = 'disconnected', error = $3, synced_through = null
        where org_id = $1 and source_slug = any($2::text[])`,
      [orgId, moved, MOVED],
    );
  }

  /** Checks the connection of `source` and records the outcome; never throws for an upstream failure. */
  async check(orgId: number, source: SourceConfig, signal?: AbortSignal): Promise<ConnectionView> {
    let state: ConnectionState = 'connected';
    let error: string | null = null;
    try {
      const connector = await this.connector(orgId, source);
      try {
        await connector.check(signal);
      } finally {
        await connector.close();
      }
    } catch (e) {
      if (!(e instanceof ConnectorError)) throw e;
      state = 'error';
      error = e.message;
    }
    await this.record(this.deps.db, orgId, source.slug, state, error);
    return (await this.views(orgId, [source.slug])).get(source.slug) ?? NEVER_CONNECTED;
  }
}
