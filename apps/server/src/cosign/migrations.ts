// The guardian's own columns. `raw_hex` (the co-signed transaction) is already in the core schema;
// what a restart still lacks is what the request was meant to store once broadcast, so the effects
// are kept beside it (see effects.ts and recover.ts). Names carry the 'guardian_' prefix so they
// never collide with the core's or the devnet's migrations in `migrateToLatest`.
import type { Kysely, Migration } from 'kysely';
import { speedUpMigrations } from './speedup';
import { unansweredReplacementMigrations } from './speedup-settle';
import { priceQuorumMigrations } from '../store/price-quorums';
import { createIndexOn, createTableOf } from '../store/columns';

export const guardianMigrations: Record<string, Migration> = {
  guardian_0001_request_effects: {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('guardian_requests').addColumn('effects', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('guardian_requests').dropColumn('effects').execute();
    },
  },
  // Locks live in the database, not in process memory, so several server instances over one
  // PostgreSQL exclude each other (locks.ts). A lock names what it holds ('vault:<pubkey>',
  // 'claim:<vault id>', 'treasury:<txid>:<vout>') and expires, so a crashed holder frees it.
  guardian_0002_locks: {
    async up(db: Kysely<unknown>): Promise<void> {
      await createTableOf(
        db,
        'guardian_locks',
        `
            lock_key text primary key, owner text not null, expires_at bigint not null`,
      );
      await createIndexOn(db, 'guardian_locks_owner', 'guardian_locks', ['owner']);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('guardian_locks').execute();
    },
  },
  // Who asked for a reservation: the caps per connection and the release when its socket closes
  // (reserve.ts).
  guardian_0003_reservation_client: {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('reservations').addColumn('connection_id', 'text').execute();
      await db.schema.alterTable('reservations').addColumn('client_address', 'text').execute();
      await createIndexOn(db, 'reservations_connection', 'reservations', [
        'connection_id',
        'status',
      ]);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('reservations_connection').execute();
      await db.schema.alterTable('reservations').dropColumn('client_address').execute();
      await db.schema.alterTable('reservations').dropColumn('connection_id').execute();
    },
  },
  ...speedUpMigrations,
  ...unansweredReplacementMigrations,
  // The instance working on a request (ownership.ts): recovery settles only the requests of
  // instances that are gone. Rows from before have none and count as left behind.
  guardian_0004_request_instance: {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('guardian_requests').addColumn('instance_id', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('guardian_requests').dropColumn('instance_id').execute();
    },
  },
  // The instance holding a lock: once it is gone its locks are freed at once (recover.ts), not
  // after their lease. Locks from before have none and wait for their lease.
  guardian_0005_lock_instance: {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('guardian_locks').addColumn('instance_id', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('guardian_locks').dropColumn('instance_id').execute();
    },
  },
  // The signed prices each network-mode record's commitment hashes, for auditors.
  ...priceQuorumMigrations,
};
