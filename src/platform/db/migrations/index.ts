/**
 * The ordered list of migrations. Each is a numbered file; the list is explicit so a packaged build
 * needs no filesystem globbing. Append, never edit a migration that has shipped.
 */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001Foundation } from './0001-foundation.js';
import { Migration0002Resources } from './0002-resources.js';
import { Migration0003Actors } from './0003-actors.js';
import { Migration0004Reviews } from './0004-reviews.js';
import { Migration0005Webhooks } from './0005-webhooks.js';
import { Migration0006QueueTables } from './0006-queue-tables.js';
import { Migration0007BatchedAuth } from './0007-batched-auth.js';
import { Migration0008OutboxDelete } from './0008-outbox-delete.js';
import { Migration0009RunEventsCascade } from './0009-run-events-cascade.js';
import { Migration0010AuthEpoch } from './0010-auth-epoch.js';
import { Migration0011OutboxOneIndex } from './0011-outbox-one-index.js';
import { Migration0012OutboxBatches } from './0012-outbox-batches.js';

export const migrations: MigrationObject[] = [
  { name: '0001-foundation', class: Migration0001Foundation },
  { name: '0002-resources', class: Migration0002Resources },
  { name: '0003-actors', class: Migration0003Actors },
  { name: '0004-reviews', class: Migration0004Reviews },
  { name: '0005-webhooks', class: Migration0005Webhooks },
  { name: '0006-queue-tables', class: Migration0006QueueTables },
  { name: '0007-batched-auth', class: Migration0007BatchedAuth },
  { name: '0008-outbox-delete', class: Migration0008OutboxDelete },
  { name: '0009-run-events-cascade', class: Migration0009RunEventsCascade },
  { name: '0010-auth-epoch', class: Migration0010AuthEpoch },
  { name: '0011-outbox-one-index', class: Migration0011OutboxOneIndex },
  { name: '0012-outbox-batches', class: Migration0012OutboxBatches },
];
