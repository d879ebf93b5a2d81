/**
 * `object.created`: one outbox row per ingested instance, written in the ingest's transaction
 * (`evt.<org>.object.<id>.created`), so the event exists exactly when the instance does. The outbox
 * relay publishes it; the webhook dispatcher delivers it.
 */
import { randomUUID } from 'node:crypto';
import { objectEventSubject } from '../../platform/bus/subjects.js';
import type { Sql } from '../../platform/db/sql.js';

/** The payload of `object.created` on the bus. */
export interface ObjectCreatedPayload {
  eventId: string;
  orgId: number;
  objectId: number;
  slug: string;
  title: string;
  createdAt: string;
}

/** Inserts the `object.created` outbox rows of `objects` (one statement). */
export async function insertObjectCreatedEvents(
  sql: Sql,
  orgId: number,
  objects: ReadonlyArray<{ id: number; slug: string; title: string; createdAt: string }>,
): Promise<void> {
  if (objects.length === 0) return;
  const payloads: ObjectCreatedPayload[] = objects.map((o) => ({
    eventId: randomUUID(),
    orgId,
    objectId: o.id,
    slug: o.slug,
    title: o.title,
    createdAt: o.createdAt,
  }));
  await sql.query(
    `insert into outbox (org_id, subject, event_id, payload, created_at)
     select $1, e.subject, e.event_id, e.payload, $5
       from unnest($2::text[], $3::uuid[], $4::json[]) with ordinality as e (subject, event_id, payload, n)
      order by e.n`,
    [
      orgId,
      payloads.map((p) => objectEventSubject(String(orgId), p.objectId, 'created')),
      payloads.map((p) => p.eventId),
      payloads.map((p) => JSON.stringify(p)),
      objects[0]?.createdAt,
    ],
  );
}

/**
 * Work another feature does for new instances in the transaction that creates them (the workflow
 * triggers queue their runs' jobs), so it happens exactly when the instances exist; `afterCommit`
 * runs after such a transaction committed (wake-ups).
 */
export interface ObjectsCreatedListener {
  inTransaction(sql: Sql, orgId: number, typeSlug: string, ids: readonly number[]): Promise<void>;
  afterCommit?(): void;
}

/** What happens when instances are created: their `object.created` events and the listeners' work. */
export class CreatedObjects {
  private readonly listeners: ObjectsCreatedListener[] = [];

  listen(listener: ObjectsCreatedListener): void {
    this.listeners.push(listener);
  }

  /** Writes the events of new instances of `typeSlug` and the listeners' work, in the caller's transaction. */
  async record(
    sql: Sql,
    orgId: number,
    typeSlug: string,
    objects: ReadonlyArray<{ id: number; slug: string; title: string; createdAt: string }>,
  ): Promise<void> {
    if (objects.length === 0) return;
    await insertObjectCreatedEvents(sql, orgId, objects);
    const ids = objects.map((o) => o.id);
    for (const listener of this.listeners) await listener.inTransaction(sql, orgId, typeSlug, ids);
  }

  /** Call after a transaction that recorded instances committed. */
  committed(): void {
    for (const listener of this.listeners) listener.afterCommit?.();
  }
}
