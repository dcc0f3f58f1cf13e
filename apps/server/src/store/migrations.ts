// Versioned schema migrations run by Kysely's Migrator. Other modules (the devnet) bring their own
// migrations; `migrateToLatest` merges them, so one migration table records every module's history.
import {
  Migrator,
  PostgresAdapter,
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  type Migration,
  type MigrationResultSet,
  sql,
} from 'kysely';
import { liquidationMigrations } from './liquidation-migrations';
import { scaleMigrations } from './scale-migrations';

/** True on PostgreSQL: the few DDL differences (identity columns) branch on it. */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An auto-numbered integer primary key on either dialect. */
export function addSerialId<T extends string>(
  db: Kysely<unknown>,
  table: CreateTableBuilder<T, never>,
  name = 'id',
): CreateTableBuilder<T, never> {
  const pk = (c: ColumnDefinitionBuilder) => c.primaryKey().notNull();
  return isPostgres(db)
    ? table.addColumn(name, 'integer', (c) => pk(c).generatedByDefaultAsIdentity())
    : table.addColumn(name, 'integer', (c) => pk(c).autoIncrement());
}

/** 0001_core, first half: the settings, prices, vaults and their history, and the guardian's work. */
async function createVaultTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('price_points')
    .addColumn('timestamp', 'bigint', (c) => c.primaryKey())
    .addColumn('price_cents', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('vaults')
    .addColumn('vault_id', 'text', (c) => c.primaryKey())
    .addColumn('vault_tag', 'text', (c) => c.notNull())
    .addColumn('vault_pubkey', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('creation_account', 'text', (c) => c.notNull())
    .addColumn('runes_account', 'text', (c) => c.notNull())
    .addColumn('btc_locked', 'bigint', (c) => c.notNull())
    .addColumn('unit_borrowed', 'bigint', (c) => c.notNull())
    .addColumn('vault_txid', 'text', (c) => c.notNull())
    .addColumn('vault_vout', 'integer', (c) => c.notNull())
    .addColumn('threshold_cents', 'bigint', (c) => c.notNull())
    .addColumn('stamp', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The liquidation sweep asks "which vaults have threshold >= price" on every tick.
  await db.schema
    .createIndex('vaults_status_threshold')
    .on('vaults')
    .columns(['status', 'threshold_cents'])
    .execute();
  await db.schema
    .createIndex('vaults_creation_account')
    .on('vaults')
    .column('creation_account')
    .execute();

  await addSerialId(db, db.schema.createTable('vault_history'))
    .addColumn('vault_id', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('btc_amt', 'bigint', (c) => c.notNull())
    .addColumn('unit_amt', 'bigint', (c) => c.notNull())
    .addColumn('vault_amount', 'bigint', (c) => c.notNull())
    .addColumn('amount_borrowed', 'bigint', (c) => c.notNull())
    .addColumn('oracle_price', 'bigint', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('utxo', 'text', (c) => c.notNull())
    .addColumn('utxo_script', 'text', (c) => c.notNull())
    .addColumn('liquidation_hash', 'text')
    .addColumn('liquidation_threshold', 'bigint')
    .addColumn('confirmed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('vault_history_vault_time')
    .on('vault_history')
    .columns(['vault_id', 'timestamp'])
    .execute();
  await db.schema
    .createIndex('vault_history_txid')
    .on('vault_history')
    .column('transaction_id')
    .execute();

  await db.schema
    .createTable('guardian_requests')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('vault_id', 'text')
    .addColumn('vault_pubkey', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('txid', 'text')
    .addColumn('raw_hex', 'text')
    .addColumn('error', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('reservations')
    .addColumn('reservation_id', 'text', (c) => c.primaryKey())
    .addColumn('vault_pubkey', 'text', (c) => c.notNull())
    .addColumn('vault_action', 'text', (c) => c.notNull())
    .addColumn('unit_amount', 'bigint', (c) => c.notNull())
    .addColumn('treasury_txid', 'text')
    .addColumn('treasury_vout', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reservations_status_expiry')
    .on('reservations')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('liquidations')
    .addColumn('vault_id', 'text', (c) => c.primaryKey())
    .addColumn('liquidated_at', 'bigint', (c) => c.notNull())
    .addColumn('liquidation_hash', 'text', (c) => c.notNull())
    .addColumn('threshold_cents', 'bigint', (c) => c.notNull())
    .addColumn('price_cents', 'bigint', (c) => c.notNull())
    .addColumn('btc_locked', 'bigint', (c) => c.notNull())
    .addColumn('unit_borrowed', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claim_txid', 'text')
    .execute();
}

/** 0001_core, second half: Telegram's subscriptions and outbox, users and their missions. */
async function createCommunityTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('telegram_subscriptions')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('telegram_subscriptions_pk', ['address', 'chat_id'])
    .execute();

  await addSerialId(db, db.schema.createTable('telegram_outbox'))
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('retry_delay_ms', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('telegram_outbox_due')
    .on('telegram_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('discord_id', 'text')
    .addColumn('twitter_id', 'text')
    .addColumn('telegram_id', 'text')
    .addColumn('referral_code', 'text', (c) => c.notNull().unique())
    .addColumn('referred_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_referred_by').on('users').column('referred_by').execute();

  await db.schema
    .createTable('mission_completions')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('mission_id', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('mission_completions_pk', ['address', 'mission_id'])
    .execute();
}

export const coreMigrations: Record<string, Migration> = {
  '0001_core': {
    async up(db: Kysely<unknown>) {
      await createVaultTables(db);
      await createCommunityTables(db);
    },
    async down(db: Kysely<unknown>) {
      for (const table of [
        'mission_completions',
        'users',
        'telegram_outbox',
        'telegram_subscriptions',
        'liquidations',
        'reservations',
        'guardian_requests',
        'vault_history',
        'vaults',
        'price_points',
        'settings',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  },
  // docs/protocol.md, Vault keys: one LIVE vault per key. A key whose vault was liquidated and
  // repossessed may open a new one; the old row stays (its history and outcome), so the column-wide
  // unique constraint becomes a unique index over the vaults not yet closed, and lookups by key
  // take the newest (store/vaults.ts). Existing rows all satisfy the narrower rule.
  '0500_one_live_vault_per_key': {
    async up(db: Kysely<unknown>) {
      if (isPostgres(db)) {
        await sql`alter table vaults drop constraint if exists vaults_vault_pubkey_key`.execute(db);
      } else {
        await rebuildSqliteTableWithout(
          db,
          'vaults',
          /(vault_pubkey"?\s+text\s+not null)\s+unique/i,
        );
      }
      await sql`create unique index vaults_live_pubkey on vaults (vault_pubkey) where status <> 'repossessed'`.execute(
        db,
      );
      await db.schema
        .createIndex('vaults_pubkey_created')
        .on('vaults')
        .columns(['vault_pubkey', 'created_at'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      // Only possible while no key has had two vaults.
      await db.schema.dropIndex('vaults_pubkey_created').execute();
      await db.schema.dropIndex('vaults_live_pubkey').execute();
      await sql`create unique index vaults_vault_pubkey_key on vaults (vault_pubkey)`.execute(db);
    },
  },
  // docs/protocol.md, "Leaving without the guardians": a vault output of layout 2 commits to its
  // term, so the row keeps the heights its output was written with (null: layout 1, no term). The
  // exit's sibling hash is not kept: it is rebuilt with the output from the keys and the term.
  '0600_vault_term': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('vaults').addColumn('settle_height', 'integer').execute();
      await db.schema.alterTable('vaults').addColumn('exit_height', 'integer').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('vaults').dropColumn('exit_height').execute();
      await db.schema.alterTable('vaults').dropColumn('settle_height').execute();
    },
  },
  // docs/protocol.md, "Leaving without the guardians": each block's settlement round reads the
  // active vaults whose term the tip reached, oldest term first (store/settlements.ts); this index
  // answers it without a scan of every vault. A vault settled at its term is closed as a
  // repossessed one is, so its key may open a new vault: the one-live-vault index leaves both out.
  '0700_term_settlement': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('vaults_status_settle_height')
        .on('vaults')
        .columns(['status', 'settle_height'])
        .execute();
      // A name of its own: 0500 makes the narrower one (run after this only where a module's
      // migrations come unordered), which this replaces.
      await db.schema.dropIndex('vaults_live_pubkey').ifExists().execute();
      await sql`create unique index vaults_open_pubkey on vaults (vault_pubkey) where status not in ('repossessed', 'settled')`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      // Only possible while no key has a settled vault and a live one.
      await db.schema.dropIndex('vaults_open_pubkey').execute();
      await sql`create unique index vaults_live_pubkey on vaults (vault_pubkey) where status <> 'repossessed'`.execute(
        db,
      );
      await db.schema.dropIndex('vaults_status_settle_height').execute();
    },
  },
  // docs/protocol.md, "Leaving without the guardians": a vault its owner left through the exit
  // leaf is closed as a settled one is, so its key may open a new vault; each block's exit check
  // reads the active vaults whose exit height the tip reached (cosign/exits.ts) by this index.
  '0800_vault_exit': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('vaults_status_exit_height')
        .on('vaults')
        .columns(['status', 'exit_height'])
        .execute();
      await db.schema.dropIndex('vaults_open_pubkey').execute();
      await sql`create unique index vaults_open_pubkey on vaults (vault_pubkey) where status not in ('repossessed', 'settled', 'exited')`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      // Only possible while no key has an exited vault and a live one.
      await db.schema.dropIndex('vaults_open_pubkey').execute();
      await sql`create unique index vaults_open_pubkey on vaults (vault_pubkey) where status not in ('repossessed', 'settled')`.execute(
        db,
      );
      await db.schema.dropIndex('vaults_status_exit_height').execute();
    },
  },
};

/**
 * SQLite cannot drop a column's UNIQUE constraint: the table is rebuilt from its own definition
 * minus the constraint (so columns other modules added survive), its rows copied and its indexes
 * made again, in one transaction.
 */
async function rebuildSqliteTableWithout(
  db: Kysely<unknown>,
  table: string,
  constraint: RegExp,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const defs = (
      await sql<{ type: string; name: string; sql: string | null }>`
        select type, name, sql from sqlite_master where tbl_name = ${table}`.execute(trx)
    ).rows;
    const create = defs.find((d) => d.type === 'table')?.sql;
    if (!create || !constraint.test(create)) throw new Error(`${table}: nothing to rebuild`);
    const rebuilt = create
      .replace(constraint, '$1')
      .replace(/^create table\s+"?\w+"?/i, `create table "${table}_rebuilt"`);
    await sql.raw(rebuilt).execute(trx);
    await sql.raw(`insert into "${table}_rebuilt" select * from "${table}"`).execute(trx);
    await sql.raw(`drop table "${table}"`).execute(trx);
    await sql.raw(`alter table "${table}_rebuilt" rename to "${table}"`).execute(trx);
    for (const index of defs)
      if (index.type === 'index' && index.sql) await sql.raw(index.sql).execute(trx);
  });
}

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly results: MigrationResultSet['results'],
  ) {
    super(message);
    this.name = 'MigrationError';
  }
}

/**
 * Runs every pending migration, ours and `extraMigrations` (names must not collide). Unordered
 * migrations are allowed because modules add theirs independently of each other.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  extraMigrations: Record<string, Migration> = {},
): Promise<string[]> {
  const ours = { ...coreMigrations, ...scaleMigrations, ...liquidationMigrations };
  for (const name of Object.keys(extraMigrations)) {
    if (Object.hasOwn(ours, name)) throw new Error(`Migration name ${name} is used twice`);
  }
  const migrations = { ...ours, ...extraMigrations };
  // On PostgreSQL, Kysely looks its bookkeeping tables up in information_schema without a schema
  // filter unless told one: with several schemas in one database (instances side by side, tests)
  // it would find another schema's lock table and never create its own.
  const schema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined;
  const migrator = new Migrator({
    db: db as Kysely<unknown>,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === 'Error');
    throw new MigrationError(
      `Migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`,
      results,
    );
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
