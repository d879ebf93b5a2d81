/**
 * The platform's own migrations (its tables: orgs, tokens, actors' shared tables, jobs, outbox,
 * workers…), and the first ones, which span owners. A feature's migrations are its own
 * (`defineFeature`'s `migrations`); src/migrations.ts orders them all by number.
 */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001Foundation } from './0001-foundation.js';
import { Migration0003Actors } from './0003-actors.js';
import { Migration0006QueueTables } from './0006-queue-tables.js';
import { Migration0007BatchedAuth } from './0007-batched-auth.js';
import { Migration0008OutboxDelete } from './0008-outbox-delete.js';
import { Migration0010AuthEpoch } from './0010-auth-epoch.js';
import { Migration0011OutboxOneIndex } from './0011-outbox-one-index.js';
import { Migration0012OutboxBatches } from './0012-outbox-batches.js';
import { Migration0016Workers } from './0016-workers.js';
import { Migration0027JobPriority } from './0027-job-priority.js';

export const platformMigrations: readonly MigrationObject[] = [
  { name: '0001-foundation', class: Migration0001Foundation },
  { name: '0003-actors', class: Migration0003Actors },
  { name: '0006-queue-tables', class: Migration0006QueueTables },
  { name: '0007-batched-auth', class: Migration0007BatchedAuth },
  { name: '0008-outbox-delete', class: Migration0008OutboxDelete },
  { name: '0010-auth-epoch', class: Migration0010AuthEpoch },
  { name: '0011-outbox-one-index', class: Migration0011OutboxOneIndex },
  { name: '0012-outbox-batches', class: Migration0012OutboxBatches },
  { name: '0016-workers', class: Migration0016Workers },
  { name: '0027-job-priority', class: Migration0027JobPriority },
];
