// Migrations for a year of data: keyset paging of vault history and per-bucket price
// closes. Each builds its rows from the data already there, so an upgrade keeps history and prices.
import { type Kysely, type Migration, sql } from 'kysely';
import { columns, createIndexOn } from './columns';

export const scaleMigrations: Record<string, Migration> = {
  '0300_history_keyset': {
    async up(db: Kysely<unknown>) {
      // History pages walk (vault_id, timestamp, id) newest first; the old (vault_id, timestamp)
      // index is a prefix of it and goes.
      await createIndexOn(db, 'vault_history_vault_time_id', 'vault_history', [
        'vault_id',
        'timestamp',
        'id',
      ]);
      await db.schema.dropIndex('vault_history_vault_time').ifExists().execute();
      // The guardian looks for unconfirmed records on every block: without this it reads every
      // record ever written. Partial indexes exist on both SQLite and PostgreSQL.
      await db.schema
        .createIndex('vault_history_unconfirmed')
        .on('vault_history')
        .column('transaction_id')
        .where(sql.ref('confirmed'), '=', 0)
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('vault_history_unconfirmed').ifExists().execute();
      await createIndexOn(db, 'vault_history_vault_time', 'vault_history', [
        'vault_id',
        'timestamp',
      ]);
      await db.schema.dropIndex('vault_history_vault_time_id').ifExists().execute();
    },
  },
  '0300_price_closes': {
    async up(db: Kysely<unknown>) {
      // One row per chart bucket (SPEC §9 intervals): the last price of the bucket, kept as ticks
      // arrive, so a period's answer reads at most its bucket count of rows.
      await db.schema
        .createTable('price_closes')
        .$call(
          columns(`
            interval_seconds integer not null, bucket bigint not null, timestamp bigint not null,
            price_cents bigint not null`),
        )
        .addPrimaryKeyConstraint('price_closes_pk', ['interval_seconds', 'bucket'])
        .execute();
      // Built from the stored points: each bucket's close is its latest point. Integer division
      // on integer columns truncates on both databases (timestamps are positive).
      // The SPEC §9 bucket widths as they were when this ran (a migration does not follow later
      // changes of oracle/intervals.ts).
      for (const seconds of [300, 3600, 21_600, 86_400]) {
        await sql`
          insert into price_closes (interval_seconds, bucket, timestamp, price_cents)
          select ${sql.lit(seconds)}, p.timestamp / ${sql.lit(seconds)} * ${sql.lit(seconds)},
                 p.timestamp, p.price_cents
          from price_points p
          join (select max(timestamp) as t from price_points
                group by timestamp / ${sql.lit(seconds)}) last on last.t = p.timestamp
        `.execute(db);
      }
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('price_closes').ifExists().execute();
    },
  },
};
