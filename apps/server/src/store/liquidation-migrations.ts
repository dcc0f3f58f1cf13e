// The states of a liquidation (docs/protocol.md, "Leaving without the guardians"): waiting for a
// claimant (`liquidated`), taken by one (`repossessed`), or taken back by its owner through the
// exit leaf once the chain reached its exit height, before anyone repossessed it (`exited`). The
// column is free text on both databases; this makes the three states the only ones it takes, so a
// fourth written by mistake fails at the write, not at a reader.
import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

const STATES = sql.raw("('liquidated', 'repossessed', 'exited')");
const REFUSAL = "'a liquidation is liquidated, repossessed or exited'";

export const liquidationMigrations: Record<string, Migration> = {
  '0900_liquidation_exit': {
    async up(db: Kysely<unknown>) {
      if (db.getExecutor().adapter instanceof PostgresAdapter) {
        await sql`alter table liquidations add constraint liquidations_status check (status in ${STATES})`.execute(
          db,
        );
        return;
      }
      // SQLite adds no CHECK to an existing table: a trigger per write refuses the same.
      for (const write of ['insert', 'update'])
        await sql`create trigger ${sql.raw(`liquidations_status_${write}`)} before ${sql.raw(write)} on liquidations
          when new.status not in ${STATES}
          begin select raise(abort, ${sql.raw(REFUSAL)}); end`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      if (db.getExecutor().adapter instanceof PostgresAdapter) {
        await sql`alter table liquidations drop constraint liquidations_status`.execute(db);
        return;
      }
      for (const write of ['insert', 'update'])
        await sql`drop trigger if exists ${sql.raw(`liquidations_status_${write}`)}`.execute(db);
    },
  },
};
