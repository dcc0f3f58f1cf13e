// The guardian's own columns. `raw_hex` (the co-signed transaction) is already in the core schema;
// what a restart still lacks is what the request was meant to store once broadcast, so the effects
// are kept beside it (see effects.ts and recover.ts). Names carry the 'guardian_' prefix so they
// never collide with the core's or the devnet's migrations in `migrateToLatest`.
import type { Kysely, Migration } from 'kysely';
import { speedUpMigrations } from './speedup';

export const guardianMigrations: Record<string, Migration> = {
  guardian_0001_request_effects: {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('guardian_requests').addColumn('effects', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('guardian_requests').dropColumn('effects').execute();
    },
  },
  ...speedUpMigrations,
};
