/**
 * The one ordered list of migrations, for every owner: each migration lives with the module that owns
 * its tables (`src/platform/db/migrations/` for the platform's, `src/features/<name>/migrations/` for a
 * feature's; the first ones, which span owners, stay in the platform's folder). Each is a numbered file
 * (claim the number as the team brief says); the list is explicit so a packaged build needs no
 * filesystem globbing. Append, never edit or reorder a migration that has shipped: its `name` is what
 * the migrations table records.
 */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration0018Artifacts } from './features/artifacts/migrations/0018-artifacts.js';
import { Migration0014Connectors } from './features/connectors/migrations/0014-connectors.js';
import { Migration0020Missions } from './features/missions/migrations/0020-missions.js';
import { Migration0015ExternalIds } from './features/objects/migrations/0015-external-ids.js';
import { Migration0024RecordPages } from './features/objects/migrations/0024-record-pages.js';
import { Migration0025RecordProjection } from './features/objects/migrations/0025-record-projection.js';
import { Migration0026RecordTerms } from './features/objects/migrations/0026-record-terms.js';
import { Migration0019Proposals } from './features/proposals/migrations/0019-proposals.js';
import { Migration0004Reviews } from './features/reviews/migrations/0004-reviews.js';
import { Migration0009RunEventsCascade } from './features/runs/migrations/0009-run-events-cascade.js';
import { Migration0022ToolCalls } from './features/runs/migrations/0022-tool-calls.js';
import { Migration0021WorkflowTriggers } from './features/triggers/migrations/0021-workflow-triggers.js';
import { Migration0023ScheduleDueIndex } from './features/triggers/migrations/0023-schedule-due-index.js';
import { Migration0017WebSessions } from './features/web/migrations/0017-web-sessions.js';
import { Migration0005Webhooks } from './features/webhooks/migrations/0005-webhooks.js';
import { Migration0002Resources } from './features/workspace/migrations/0002-resources.js';
import { Migration0001Foundation } from './platform/db/migrations/0001-foundation.js';
import { Migration0003Actors } from './platform/db/migrations/0003-actors.js';
import { Migration0006QueueTables } from './platform/db/migrations/0006-queue-tables.js';
import { Migration0007BatchedAuth } from './platform/db/migrations/0007-batched-auth.js';
import { Migration0008OutboxDelete } from './platform/db/migrations/0008-outbox-delete.js';
import { Migration0010AuthEpoch } from './platform/db/migrations/0010-auth-epoch.js';
import { Migration0011OutboxOneIndex } from './platform/db/migrations/0011-outbox-one-index.js';
import { Migration0012OutboxBatches } from './platform/db/migrations/0012-outbox-batches.js';
import { Migration0016Workers } from './platform/db/migrations/0016-workers.js';
import { Migration0027JobPriority } from './platform/db/migrations/0027-job-priority.js';

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
  { name: '0014-connectors', class: Migration0014Connectors },
  { name: '0015-external-ids', class: Migration0015ExternalIds },
  { name: '0016-workers', class: Migration0016Workers },
  { name: '0017-web-sessions', class: Migration0017WebSessions },
  { name: '0018-artifacts', class: Migration0018Artifacts },
  { name: '0019-proposals', class: Migration0019Proposals },
  { name: '0020-missions', class: Migration0020Missions },
  { name: '0021-workflow-triggers', class: Migration0021WorkflowTriggers },
  { name: '0022-tool-calls', class: Migration0022ToolCalls },
  { name: '0023-schedule-due-index', class: Migration0023ScheduleDueIndex },
  { name: '0024-record-pages', class: Migration0024RecordPages },
  { name: '0025-record-projection', class: Migration0025RecordProjection },
  { name: '0026-record-terms', class: Migration0026RecordTerms },
  { name: '0027-job-priority', class: Migration0027JobPriority },
];
