// The devnet's tables. The server core runs these beside its own migrations, on SQLite by default
// and PostgreSQL when configured, so only portable SQL: amounts and heights as bigint, bytes as hex
// text. Names carry the 'devnet_' prefix so they sort apart from the core's migrations.
import type { Kysely, Migration } from 'kysely';
import { columns, createIndexOn, createTableOf } from '../store/columns';

export const devnetMigrations: Record<string, Migration> = {
  devnet_0001_chain: {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('devnet_meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      await createTableOf(
        db,
        'devnet_blocks',
        `
            height bigint primary key, hash text not null unique, prev_hash text not null,
            time bigint not null, tx_count integer not null`,
      );

      // block_height null = waiting in the mempool; seq keeps acceptance order, so a child is always
      // mined after its parent.
      await createTableOf(
        db,
        'devnet_txs',
        `
            txid text primary key, hex text not null, seq bigint not null unique,
            block_height bigint, block_index integer, fee bigint not null, vsize bigint not null,
            weight bigint not null, first_seen bigint not null`,
      );
      await createIndexOn(db, 'devnet_txs_block_height', 'devnet_txs', ['block_height']);

      // Every output ever created, with the UNIT it carries and who spent it: the UTXO set is the
      // rows with spent_txid null.
      await db.schema
        .createTable('devnet_outputs')
        .$call(
          columns(`
            txid text not null, vout integer not null, value bigint not null,
            script_hex text not null, address text, unit_amount bigint not null, spent_txid text,
            spent_vin integer`),
        )
        .addPrimaryKeyConstraint('devnet_outputs_pk', ['txid', 'vout'])
        .execute();
      await createIndexOn(db, 'devnet_outputs_address', 'devnet_outputs', ['address']);
      await createIndexOn(db, 'devnet_outputs_spent_txid', 'devnet_outputs', ['spent_txid']);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('devnet_outputs').execute();
      await db.schema.dropTable('devnet_txs').execute();
      await db.schema.dropTable('devnet_blocks').execute();
      await db.schema.dropTable('devnet_meta').execute();
    },
  },
  // BIP-125: a replaced transaction leaves the mempool; this remembers what replaced it, so the
  // explorer can send a reader of the old txid to the new one.
  devnet_0002_replacements: {
    async up(db: Kysely<unknown>): Promise<void> {
      await createTableOf(
        db,
        'devnet_replaced',
        'txid text primary key, replaced_by text not null, time bigint not null',
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('devnet_replaced').execute();
    },
  },
};
