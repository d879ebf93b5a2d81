/**
 * Every migration, in the order they apply: the platform's (src/platform/db/migrations/index.ts) and
 * each feature's (`defineFeature`'s `migrations`), ordered by their numbers (`migrationsOf`, which
 * also refuses a number taken twice). The list is explicit (no filesystem globbing), so a packaged
 * build finds them all. Append, never edit or renumber a migration that has shipped: its `name` is
 * what the migrations table records.
 */
import type { MigrationObject } from '@mikro-orm/core';
import { FEATURES } from './features.js';
import { platformMigrations } from './platform/db/migrations/index.js';
import { migrationsOf } from './platform/feature.js';

export const migrations: MigrationObject[] = migrationsOf(platformMigrations, FEATURES);
