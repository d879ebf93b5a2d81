import { Migration } from '@mikro-orm/migrations';

/**
 * Persisted actors and the machinery around them: runs and review items (actor rows with a snapshot
 * and a version), the transition log, per-run events, the transactional outbox, durable timers, the
 * job queue, step executions and idempotency keys.
 *
 * Every timestamp is written by the application from its clock (never `now()`), so tests can drive
 * time; the defaults below only serve hand-written rows.
 */
export class Migration0003Actors extends Migration {
  override async up(): Promise<void> {
    // Documents the API returns (input, output, step results, events, snapshots) are `json`, not
    // `jsonb`: json keeps their key order as written (jsonb sorts keys), and r3 never queries inside them.
    this.addSql(`
      -- A skill or workflow run. The id comes from runs_id_seq (the host allocates ids in blocks).
      create table runs (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        kind text not null check (kind in ('skill', 'workflow')),
        slug text not null,
        -- The skill's or workflow's display name at creation (review titles, lists).
        name text not null,
        agent_slug text,
        -- Projections of the snapshot, for filters and the run object.
        status text not null,
        paused_at text,
        review_state text check (review_state in ('auto', 'pending', 'approved', 'rejected')),
        output json,
        error json,
        review json,
        step_results json not null default '{}',
        completed_at timestamptz,
        -- Feedback is not a state of the run: plain columns, written by the feedback endpoint.
        rating text check (rating in ('up', 'down')),
        feedback_note text,
        feedback_at timestamptz,
        -- Who and what: fixed at creation.
        created_by text not null,
        api_token_id text,
        workspace_sha text,
        trace_id text not null,
        input json not null,
        -- The manifests the run executes (skill + prompt, or workflow + its skills, + agent), as of creation.
        manifest json not null,
        -- The actor: persisted xstate snapshot, optimistic-lock version, last run-event sequence.
        snapshot json not null,
        version integer not null,
        last_seq integer not null default 0,
        created_at timestamptz not null,
        updated_at timestamptz not null
      ) with (fillfactor = 70);
      -- No index contains a column a transition changes (status, output, …), so transitions are HOT
      -- updates (no index writes) when the page has room, which fillfactor 70 leaves. A status filter
      -- walks runs_org_created newest first.
      create index runs_org_created on runs (org_id, created_at desc, id desc);
      create index runs_org_slug on runs (org_id, kind, slug, created_at desc, id desc);
      create index runs_org_agent on runs (org_id, agent_slug, created_at desc, id desc)
        where agent_slug is not null;

      -- One entry of the review queue (a pending skill run, a paused workflow run, later a mission).
      create table review_items (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        kind text not null check (kind in ('skill', 'workflow', 'mission')),
        run_id bigint not null,
        title text not null,
        status text not null,
        open boolean not null,
        assigned_to text,
        snoozed_until timestamptz,
        note text,
        decision json,
        closed_at timestamptz,
        snapshot json not null,
        version integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      -- A run waits for at most one decision at a time.
      create unique index review_items_open_run on review_items (org_id, kind, run_id) where open;
      create index review_items_queue on review_items (org_id, created_at, id) where open;

      -- Every transition of every actor: from, event, to, who, when.
      create table actor_transitions (
        id bigserial not null,
        org_id bigint not null,
        actor_kind text not null,
        actor_id bigint not null,
        from_state text,
        event_type text not null,
        event json not null,
        to_state text not null,
        actor text not null,
        api_token_id text,
        at timestamptz not null,
        -- One index serves both identity and "the log of one actor, in order".
        primary key (actor_kind, actor_id, id)
      );

      -- A run's event log (what SSE replays); seq is per run, from runs.last_seq.
      create table run_events (
        run_id bigint not null references runs (id) on delete cascade,
        seq integer not null,
        org_id bigint not null,
        event text not null,
        status text not null,
        step text,
        output json,
        at timestamptz not null,
        primary key (run_id, seq)
      );

      -- The transactional outbox: rows written with the transition, published to the bus after commit.
      create table outbox (
        id bigserial primary key,
        org_id bigint not null,
        subject text not null,
        event_id uuid not null,
        payload json not null,
        created_at timestamptz not null,
        published_at timestamptz
      ) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
      create index outbox_unpublished on outbox (id) where published_at is null;
      create index outbox_published on outbox (published_at) where published_at is not null;

      -- Durable timers: one per (actor, timer id); scheduling the same id again replaces it.
      create table timers (
        actor_kind text not null,
        actor_id bigint not null,
        timer_id text not null,
        org_id bigint not null,
        event jsonb not null,
        due_at timestamptz not null,
        created_at timestamptz not null,
        primary key (actor_kind, actor_id, timer_id)
      );
      create index timers_due on timers (due_at);

      -- The job queue. A job is ready when run_at has passed and no live lease holds it; a finished
      -- job is deleted; a job out of attempts stays with dead_at set.
      create table jobs (
        id bigserial primary key,
        org_id bigint,
        kind text not null,
        payload jsonb not null default '{}',
        key text,
        run_at timestamptz not null,
        attempts integer not null default 0,
        max_attempts integer not null default 5 check (max_attempts >= 1),
        locked_by text,
        locked_until timestamptz,
        last_error text,
        created_at timestamptz not null,
        dead_at timestamptz
      ) with (fillfactor = 80, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
      -- A queue table: rows come and go all the time. Vacuum after every 1000 dead rows (not after 20%
      -- of the table), so claims do not wade through dead index entries; claims are HOT updates.
      create unique index jobs_key on jobs (key) where key is not null;
      create index jobs_ready on jobs (run_at, id) where dead_at is null;

      -- One execution of one step of one run; the first recorded result is the only result.
      create table step_executions (
        run_id bigint not null references runs (id) on delete cascade,
        step text not null,
        attempt integer not null,
        org_id bigint not null,
        output json,
        error json,
        meta json not null default '{}',
        started_at timestamptz not null,
        finished_at timestamptz,
        primary key (run_id, step, attempt)
      );

      -- Idempotency keys of run triggers, per token (the principal's actor when it has no token).
      create table idempotency_keys (
        token_id text not null,
        key text not null,
        org_id bigint not null,
        request_hash text not null,
        run_id bigint,
        response json,
        created_at timestamptz not null,
        primary key (token_id, key)
      );
      create index idempotency_keys_created on idempotency_keys (created_at);
    `);
  }
}
