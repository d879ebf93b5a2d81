import { Migration } from '@mikro-orm/migrations';

/**
 * The workspace in PostgreSQL (blobs, working files, versions, the per-org head), the resource tables
 * apply projects it into, object instances with their full-text and vector index, links between
 * instances, and reindex runs. Every tenant-owned row carries `org_id`.
 */
export class Migration0002Resources extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- btree_gin (trusted, in contrib) lets one GIN index hold org_id beside the full-text vector.
      create extension if not exists btree_gin;

      -- Content-addressed file contents: sha = git blob id of content (UTF-8).
      create table workspace_blobs (
        org_id bigint not null references orgs (id) on delete cascade,
        sha text not null check (sha ~ '^[0-9a-f]{40}$'),
        content text not null,
        primary key (org_id, sha)
      );

      -- The working tree: what was last written, committed or not (autoCommit: false).
      create table workspace_files (
        org_id bigint not null references orgs (id) on delete cascade,
        path text not null,
        blob_sha text not null,
        updated_at timestamptz not null,
        primary key (org_id, path),
        foreign key (org_id, blob_sha) references workspace_blobs (org_id, sha)
      );

      -- One row per version (a git commit). author/message/created_at rebuild the commit byte for
      -- byte; files maps path -> blob sha. Counts compare the version's tree with its parent's.
      create table workspace_versions (
        org_id bigint not null references orgs (id) on delete cascade,
        seq integer not null check (seq >= 1),
        sha text not null check (sha ~ '^[0-9a-f]{40}$'),
        parent_sha text,
        tree_sha text not null,
        files jsonb not null,
        author_name text not null,
        author_email text not null,
        message text not null,
        created integer not null,
        updated integer not null,
        unchanged integer not null,
        deleted integer not null,
        applied_by text not null,
        api_token_id text,
        created_at timestamptz not null,
        primary key (org_id, sha),
        unique (org_id, seq)
      );

      -- The per-org write lock (select ... for update) and pointers: head = newest version, applied =
      -- the version the resource tables mirror (behind head after an autoApply: false write).
      create table workspace_heads (
        org_id bigint primary key references orgs (id) on delete cascade,
        head_sha text,
        applied_sha text,
        updated_at timestamptz not null default now()
      );

      -- Resource tables: the applied projection of the workspace. manifest is json (not jsonb) so
      -- free-form objects keep their key order (a JSON Schema's properties order is a form's order).
      create table agents (
        org_id bigint not null references orgs (id) on delete cascade,
        slug text not null,
        name text not null,
        description text not null,
        active boolean not null,
        manifest json not null,
        version_sha text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, slug)
      );

      create table skills (
        org_id bigint not null references orgs (id) on delete cascade,
        slug text not null,
        name text not null,
        description text not null,
        category text not null,
        status text not null,
        requires_approval boolean not null,
        manifest json not null,
        prompt_md text not null,
        version_sha text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, slug)
      );
      create index skills_status on skills (org_id, status, slug);
      create index skills_category on skills (org_id, category, slug);

      create table workflows (
        org_id bigint not null references orgs (id) on delete cascade,
        slug text not null,
        name text not null,
        description text not null,
        trigger_type text not null,
        trigger_object_type text,
        manifest json not null,
        version_sha text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, slug)
      );
      create index workflows_object_trigger on workflows (org_id, trigger_object_type)
        where trigger_object_type is not null;

      create table object_types (
        org_id bigint not null references orgs (id) on delete cascade,
        slug text not null,
        name text not null,
        description text not null,
        -- A pg_ts_config name, kept as text: reg* columns would block pg_upgrade.
        language text not null,
        manifest json not null,
        version_sha text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, slug)
      );

      create table sources (
        org_id bigint not null references orgs (id) on delete cascade,
        slug text not null,
        name text not null,
        description text not null,
        kind text not null,
        connection_state text not null,
        manifest json not null,
        version_sha text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, slug)
      );

      -- Runtime data pushed by connected systems. search: title weighted A, content B, metadata string
      -- values C, built with the type's text-search configuration (language). embedding: int8 codes
      -- (src/features/objects/search/vector-codec.ts) of embedder's vector; signature: its sign bits, the prefilter.
      -- change_xid: the last writing transaction, so search nodes can follow changes (signature index).
      create table object_instances (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        type_slug text not null,
        source_slug text,
        title text not null,
        content text not null,
        metadata jsonb not null,
        status text not null check (status in ('active', 'archived')),
        language text not null,
        search tsvector not null,
        embedder text,
        embedding bytea,
        signature bytea,
        indexed_at timestamptz,
        change_xid xid8 not null default pg_current_xact_id(),
        created_at timestamptz not null,
        updated_at timestamptz not null,
        created_by text not null,
        api_token_id text
      );
      create index object_instances_org on object_instances (org_id, id);
      create index object_instances_type on object_instances (org_id, type_slug, id);
      create index object_instances_source on object_instances (org_id, source_slug, id);
      create index object_instances_changes on object_instances (org_id, change_xid);
      -- org_id inside the GIN index: a common word of one tenant never makes search visit another's rows.
      create index object_instances_search on object_instances using gin (org_id, search);
      create index object_instances_title on object_instances (org_id, lower(title), id);

      create function r3_object_instances_touch() returns trigger language plpgsql as $$
      begin
        new.change_xid := pg_current_xact_id();
        return new;
      end $$;
      create trigger object_instances_touch before update on object_instances
        for each row execute function r3_object_instances_touch();

      -- An instance's linked documents (other instances), e.g. a mail thread linked to a deal.
      create table object_links (
        org_id bigint not null references orgs (id) on delete cascade,
        object_id bigint not null references object_instances (id) on delete cascade,
        document_id bigint not null references object_instances (id) on delete cascade,
        relation text not null,
        created_at timestamptz not null,
        primary key (object_id, document_id),
        check (object_id <> document_id)
      );
      create index object_links_document on object_links (document_id);

      -- Reindex passes (POST /sources/:slug/reindex, and after a type's language changed): the status
      -- and progress of each; the work itself is a job (kind reindex). cursor_id makes a pass resumable.
      create table reindex_runs (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        source_slug text,
        filter jsonb not null,
        status text not null check (status in ('queued', 'running', 'completed', 'failed')),
        total integer,
        processed integer not null default 0,
        cursor_id bigint not null default 0,
        attempts integer not null default 0,
        error text,
        requested_by text not null,
        api_token_id text,
        created_at timestamptz not null,
        started_at timestamptz,
        completed_at timestamptz
      );
      create index reindex_runs_org on reindex_runs (org_id, id);
    `);
  }
}
