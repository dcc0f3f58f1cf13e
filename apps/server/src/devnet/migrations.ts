// The devnet's tables. The server core runs these beside its own migrations, on SQLite by default
// and PostgreSQL when configured, so only portable SQL: amounts and heights as bigint, bytes as hex
// text. Names carry the 'devnet_' prefix so they sort apart from the core's migrations.
import type { Kysely, Migration } from 'kysely';

export const devnetMigrations: Record<string, Migration> = {
  devnet_0001_chain: {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('devnet_meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('devnet_blocks')
        .addColumn('height', 'bigint', (c) => c.primaryKey())
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('tx_count', 'integer', (c) => c.notNull())
        .execute();

      // block_height null = waiting in the mempool; seq keeps acceptance order, so a child is always
      // mined after its parent.
      await db.schema
        .createTable('devnet_txs')
        .addColumn('txid', 'text', (c) => c.primaryKey())
        .addColumn('hex', 'text', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull().unique())
        .addColumn('block_height', 'bigint')
        .addColumn('block_index', 'integer')
        .addColumn('fee', 'bigint', (c) => c.notNull())
        .addColumn('vsize', 'bigint', (c) => c.notNull())
        .addColumn('weight', 'bigint', (c) => c.notNull())
        .addColumn('first_seen', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('devnet_txs_block_height')
        .on('devnet_txs')
        .column('block_height')
        .execute();

      // Every output ever created, with the UNIT it carries and who spent it: the UTXO set is the
      // rows with spent_txid null.
      await db.schema
        .createTable('devnet_outputs')
        .addColumn('txid', 'text', (c) => c.notNull())
        .addColumn('vout', 'integer', (c) => c.notNull())
        .addColumn('value', 'bigint', (c) => c.notNull())
        .addColumn('script_hex', 'text', (c) => c.notNull())
        .addColumn('address', 'text')
        .addColumn('unit_amount', 'bigint', (c) => c.notNull())
        .addColumn('spent_txid', 'text')
        .addColumn('spent_vin', 'integer')
        .addPrimaryKeyConstraint('devnet_outputs_pk', ['txid', 'vout'])
        .execute();
      await db.schema
        .createIndex('devnet_outputs_address')
        .on('devnet_outputs')
        .column('address')
        .execute();
      await db.schema
        .createIndex('devnet_outputs_spent_txid')
        .on('devnet_outputs')
        .column('spent_txid')
        .execute();
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
      await db.schema
        .createTable('devnet_replaced')
        .addColumn('txid', 'text', (c) => c.primaryKey())
        .addColumn('replaced_by', 'text', (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('devnet_replaced').execute();
    },
  },
};
