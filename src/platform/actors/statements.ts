/**
 * The SQL of transitions, built once per actor kind. One statement writes one or more transitions of
 * a kind: the actor rows (inserted, or updated where `version` still matches) in a CTE `a`, and every
 * other row — transition log, run events, outbox, jobs, timers, audit — joined to `a` by actor id,
 * so a row is written only with its actor's: a version miss writes nothing for that actor, and a
 * failure anywhere fails the statement. Rows travel as one JSON array per table; actor rows are read
 * with `json_populate_recordset(null::<table>, …)`, so the table itself types them.
 *
 * A statement carries only the writes its rows need: creating a run writes no timers and completes
 * no job, and every CTE left out is executor set-up, a JSON parse and a join PostgreSQL does not
 * make. Each combination of non-empty arrays is built (and prepared) once, on first use.
 *
 * A statement writes all its outbox messages as one batch row (`outbox.messages`, see
 * outbox-lines.ts), and only when it wrote every actor it carries: one row in place of one per
 * message (two per run created) is a fraction of the work for the creation statement and the
 * relay's claim (docs/performance.md, "Choices in the code"). A creation writes every actor row or fails. An update may miss an actor's version: a single
 * transition that misses writes no message, and a batch that misses some of its actors fails
 * (`r3_outbox_partial_batch`), so that the batcher writes its transitions one at a time and only the
 * written ones publish. (Misses are rare: the batcher never puts two transitions of one actor in a
 * statement.)
 */
import { encodeOutboxLines } from '../outbox/lines.js';
import { type ActorKindDef, type ColumnLayout, columnLayout } from './kind.js';
import type { OutboxRow } from './writes.js';

/** The rows of one transition (or a batch of them), each side row naming its actor. */
export interface TransitionRows {
  /** Actor rows: insert = every column; update = id, org_id, version (the expected one), the written columns. */
  actors: Record<string, unknown>[];
  transitions: Record<string, unknown>[];
  events: Record<string, unknown>[];
  /** Messages to publish: all of a statement's go into one batch row, in order. */
  outbox: OutboxRow[];
  jobs: Record<string, unknown>[];
  timersSet: Record<string, unknown>[];
  timersDelete: Record<string, unknown>[];
  audit: Record<string, unknown>[];
  /** Jobs this transition completes: `{actor_id, job_id, locked_by}` (deleted while still held so). */
  jobsDone: Record<string, unknown>[];
  /** Rows of the kind's `extraWrites`, by name. */
  extra: Record<string, Record<string, unknown>[]>;
}

/** An array of `TransitionRows`: a built-in one, or `extra:<name>`. */
export type RowArray = Exclude<keyof TransitionRows, 'extra'> | `extra:${string}`;

/**
 * A statement parameter: an array as JSON; `outbox:lines`, the outbox array as one batch row's text;
 * `actors:count`, how many actor rows the statement writes; as PostgreSQL arrays (see `ids`):
 * `actors:ids`, the actors' ids, `jobsDone:ids`, the completed jobs', `timersDelete:actors`, the
 * actors whose timers are deleted.
 */
export type Param =
  | RowArray
  | 'outbox:lines'
  | 'actors:count'
  | 'actors:ids'
  | 'jobsDone:ids'
  | 'timersDelete:actors';

/** A statement and the arrays it takes, in `$n` order; `name` is unique per kind, mode and variant. */
export interface Statement {
  name: string;
  text: string;
  params: readonly Param[];
}

/** The statements of one mode (insert or update) of a kind, one per set of non-empty arrays. */
export interface StatementVariants {
  /** The statement that writes `rows` (built on first use). */
  for(rows: TransitionRows): Statement;
}

/** The statements of one kind. */
export interface KindStatements {
  load: string;
  /** The load that also locks the row until the transaction ends (`SendOptions.lock`). */
  lockedLoad: string;
  /** Its prepared statement's name: the table's, or the kind's when it reads values with the row. */
  lockedLoadName: string;
  insert: StatementVariants;
  update: StatementVariants;
}

/** The built-in row arrays of `TransitionRows`, in a fixed order. */
export const ROW_ARRAYS = [
  'actors',
  'transitions',
  'events',
  'outbox',
  'jobs',
  'timersSet',
  'timersDelete',
  'audit',
  'jobsDone',
] as const;

/** The rows of several transitions of one kind as one statement's (each array concatenated in order). */
export function mergeRows(list: readonly TransitionRows[]): TransitionRows {
  const merged = Object.fromEntries(
    ROW_ARRAYS.map((array) => [array, [] as Record<string, unknown>[]]),
  ) as unknown as TransitionRows;
  merged.extra = {};
  for (const rows of list) {
    // Each array keeps its own row type; only concatenated here.
    for (const array of ROW_ARRAYS) (merged[array] as unknown[]).push(...rows[array]);
    for (const [name, extra] of Object.entries(rows.extra)) {
      merged.extra[name] = [...(merged.extra[name] ?? []), ...extra];
    }
  }
  return merged;
}

/** The arrays besides the actor rows (a statement variant is the set of those that are non-empty). */
const SIDE_ARRAYS = ROW_ARRAYS.filter((array) => array !== 'actors');

const IDENT = /^[a-z_][a-z0-9_]*$/;

function ident(name: string): string {
  if (!IDENT.test(name)) throw new Error(`unsafe SQL identifier ${JSON.stringify(name)}`);
  return name;
}

function sideWrites(
  def: ActorKindDef,
  ref: (param: Param) => string,
  present: (array: RowArray) => boolean,
): string {
  const ctes: string[] = [];
  // A left-out array is never numbered: its CTE text is built but not used.
  const arg = (array: RowArray) => (present(array) ? ref(array) : '');
  const add = (array: RowArray, name: string, sql: string) => {
    if (present(array)) ctes.push(`, ${name} as (\n${sql}\n)`);
  };
  if (def.runEvents) {
    add(
      'events',
      'e',
      `  insert into ${ident(def.eventsTable ?? 'run_events')} (run_id, seq, org_id, event, status, step, output, at)
  select x.run_id, x.seq, x.org_id, x.event, x.status, x.step, x.output, x.at
    from json_to_recordset(${arg('events')}::json)
      as x(run_id bigint, seq integer, org_id bigint, event text, status text, step text, output json, at timestamptz)
    join a on a.id = x.run_id`,
    );
  }
  add(
    'transitions',
    'l',
    `  insert into actor_transitions (org_id, actor_kind, actor_id, from_state, event_type, event, to_state, actor, api_token_id, at)
  select x.org_id, x.actor_kind, x.actor_id, x.from_state, x.event_type, x.event, x.to_state, x.actor, x.api_token_id, x.at
    from json_to_recordset(${arg('transitions')}::json)
      as x(org_id bigint, actor_kind text, actor_id bigint, from_state text, event_type text, event json,
           to_state text, actor text, api_token_id text, at timestamptz)
    join a on a.id = x.actor_id`,
  );
  if (present('outbox')) {
    // Every actor written: the batch. None (a single transition's version miss): nothing. Some:
    // the statement fails, and the batcher writes its transitions one at a time.
    ctes.push(`, o as (
  insert into outbox (messages, created_at)
  select ${ref('outbox:lines')}::text, now()
   where case (select count(*) from a)
           when ${ref('actors:count')}::bigint then true
           when 0 then false
           else r3_outbox_partial_batch()
         end
)`);
  }
  add(
    'jobs',
    'j',
    `  insert into jobs (id, org_id, kind, payload, key, run_at, max_attempts, created_at, priority, attempts,
                    locked_by, locked_until)
  select coalesce(x.id, nextval('jobs_id_seq')), x.org_id, x.kind, x.payload, x.key, x.run_at,
         coalesce(x.max_attempts, 5), x.created_at, coalesce(x.priority, 0), coalesce(x.attempts, 0),
         x.locked_by, x.locked_until
    from json_to_recordset(${arg('jobs')}::json)
      as x(actor_id bigint, org_id bigint, kind text, payload jsonb, key text, run_at timestamptz,
           max_attempts integer, created_at timestamptz, priority smallint, id bigint, attempts integer,
           locked_by text, locked_until timestamptz)
    join a on a.id = x.actor_id
  on conflict (key) where key is not null do nothing`,
  );
  add(
    'timersSet',
    'ts',
    `  insert into timers (actor_kind, actor_id, timer_id, org_id, event, due_at, created_at)
  select x.actor_kind, x.actor_id, x.timer_id, x.org_id, x.event, x.due_at, x.created_at
    from json_to_recordset(${arg('timersSet')}::json)
      as x(actor_kind text, actor_id bigint, timer_id text, org_id bigint, event jsonb, due_at timestamptz,
           created_at timestamptz)
    join a on a.id = x.actor_id
  on conflict (actor_kind, actor_id, timer_id)
    do update set event = excluded.event, due_at = excluded.due_at, created_at = excluded.created_at`,
  );
  add(
    'timersDelete',
    'td',
    `  delete from timers t
   using json_to_recordset(${arg('timersDelete')}::json) as x(actor_kind text, actor_id bigint, timer_id text), a
   where t.actor_kind = '${def.name.replaceAll("'", "''")}'
     and t.actor_id = any(${present('timersDelete') ? ref('timersDelete:actors') : ''}::bigint[])
     and a.id = x.actor_id and t.actor_kind = x.actor_kind and t.actor_id = x.actor_id and t.timer_id = x.timer_id`,
  );
  add(
    'audit',
    'au',
    `  insert into audit_log (org_id, api_token_id, actor, action, target_kind, target_id, details, request_id, at)
  select x.org_id, x.api_token_id, x.actor, x.action, x.target_kind, x.target_id, coalesce(x.details, '{}'::jsonb),
         x.request_id, x.at
    from json_to_recordset(${arg('audit')}::json)
      as x(actor_id bigint, org_id bigint, api_token_id text, actor text, action text, target_kind text,
           target_id text, details jsonb, request_id text, at timestamptz)
    join a on a.id = x.actor_id`,
  );
  add(
    'jobsDone',
    'jd',
    `  delete from jobs j
   using json_to_recordset(${arg('jobsDone')}::json) as x(actor_id bigint, job_id bigint, locked_by text), a
   where j.id = any(${present('jobsDone') ? ref('jobsDone:ids') : ''}::bigint[])
     and a.id = x.actor_id and j.id = x.job_id and j.locked_by = x.locked_by`,
  );
  for (const [name, cte] of Object.entries(def.extraWrites ?? {})) {
    const array: RowArray = `extra:${name}`;
    add(array, ident(`x_${name}`), present(array) ? cte(`${ref(array)}::json`) : '');
  }
  return `${ctes.join('')}
select id from a`;
}

/** Numbers the arrays a statement uses in order of first use. */
function numbering(): { ref: (param: Param) => string; params: Param[] } {
  const params: Param[] = [];
  return {
    params,
    ref(param) {
      let index = params.indexOf(param);
      if (index < 0) index = params.push(param) - 1;
      return `$${index + 1}`;
    },
  };
}

/** Builds the load, insert and update statements of `def`. */
export function buildStatements(
  def: ActorKindDef,
  columns: ColumnLayout = columnLayout(def),
): KindStatements {
  const table = ident(def.table);
  const projected = columns.projected.map(ident);
  columns.created.forEach(ident);
  const loaded = columns.loaded.map(ident);
  const seqColumn = def.runEvents ? 'last_seq' : '0 as last_seq';
  const select = `select id, org_id, version, ${seqColumn}, snapshot${loaded.map((c) => `, ${c}`).join('')}`;
  const where = `from ${table} t where id = $1 and org_id = $2`;
  const load = `${select}\n  ${where}`;
  const extras = Object.entries(def.lockedWith ?? {}).map(([name, sql]) => `,\n  (${sql}) as ${ident(name)}`);
  const lockedLoad = `${select}${extras.join('')}\n  ${where} for update of t`;

  const insert = variants(
    `actor_insert_${def.name}`,
    (ref, present) => `with a as (
  insert into ${table}
  select * from json_populate_recordset(null::${table}, ${ref('actors')}::json)
  returning id
)${sideWrites(def, ref, present)}`,
  );

  const sets = ['snapshot = x.snapshot', 'version = r.version + 1', 'updated_at = x.updated_at'];
  if (def.runEvents) sets.push('last_seq = x.last_seq');
  for (const column of projected) sets.push(`${column} = x.${column}`);
  // The rows are found by their ids as an array besides the join (see `ids`).
  const update = variants(
    `actor_update_${def.name}`,
    (ref, present) => `with a as (
  update ${table} r set ${sets.join(', ')}
    from json_populate_recordset(null::${table}, ${ref('actors')}::json) x
   where r.id = any(${ref('actors:ids')}::bigint[])
     and r.id = x.id and r.org_id = x.org_id and r.version = x.version
  returning r.id
)${sideWrites(def, ref, present)}`,
  );

  const lockedLoadName = def.lockedWith ? `actor_lock_${def.name}` : `actor_lock_${def.table}`;
  return { load, lockedLoad, lockedLoadName, insert, update };
}

/** The arrays of `rows` that hold rows. */
function nonEmpty(rows: TransitionRows): RowArray[] {
  const arrays: RowArray[] = SIDE_ARRAYS.filter((array) => rows[array].length > 0);
  for (const [name, extra] of Object.entries(rows.extra)) {
    if (extra.length > 0) arrays.push(`extra:${name}`);
  }
  return arrays;
}

/** One statement per set of non-empty arrays, built by `build` on first use and named `base#<set>`. */
function variants(
  base: string,
  build: (ref: (param: Param) => string, present: (array: RowArray) => boolean) => string,
): StatementVariants {
  const built = new Map<string, Statement>();
  return {
    for(rows) {
      const arrays = nonEmpty(rows);
      const key = arrays.join(',');
      let statement = built.get(key);
      if (!statement) {
        const present = new Set(arrays);
        const { ref, params } = numbering();
        const text = build(ref, (array) => present.has(array));
        // Prepared-statement names must stay short and distinct: the set's index among those built.
        statement = { name: `${base}#${built.size}`, text, params };
        built.set(key, statement);
      }
      return statement;
    },
  };
}

/**
 * The `field` of `rows` as the text of a PostgreSQL bigint array. A statement finds the rows it updates
 * or deletes by such an array besides its join: each is planned generically, once per connection, and
 * a join alone was planned for its table as it was then — in a new database (a fresh install, every
 * benchmark) a hash join over a sequential scan of the whole table, kept while the table grew (101
 * buffers for one run's transition at 334 runs, a buffer for every three runs more; the jobs queue's
 * dead rows read by each completion). `= any(array)` is an index probe at any size.
 */
function ids(rows: readonly Record<string, unknown>[], field: string): string {
  return `{${rows.map((row) => Number(row[field])).join(',')}}`;
}

/** The text of each parameter `statement` takes, in order. */
export function statementParams(statement: Statement, rows: TransitionRows): string[] {
  return statement.params.map((param) => {
    if (param === 'outbox:lines') {
      return encodeOutboxLines(rows.outbox);
    }
    if (param === 'actors:count') return String(rows.actors.length);
    if (param === 'actors:ids') return ids(rows.actors, 'id');
    if (param === 'jobsDone:ids') return ids(rows.jobsDone, 'job_id');
    if (param === 'timersDelete:actors') return ids(rows.timersDelete, 'actor_id');
    return JSON.stringify(
      param.startsWith('extra:') ? (rows.extra[param.slice(6)] ?? []) : rows[param as keyof TransitionRows],
    );
  });
}
