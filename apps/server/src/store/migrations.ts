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
import { columns, createIndexOn, createTableOf } from './columns';

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
  await createTableOf(
    db,
    'settings',
    `
        key text primary key, value text not null, updated_at bigint not null default 0`,
  );

  await db.schema
    .createTable('price_points')
    .addColumn('timestamp', 'bigint', (c) => c.primaryKey())
    .addColumn('price_cents', 'bigint', (c) => c.notNull())
    .execute();

  await createTableOf(
    db,
    'vaults',
    `
        vault_id text primary key, vault_tag text not null, vault_pubkey text not null unique,
        name text not null, creation_account text not null, runes_account text not null,
        btc_locked bigint not null, unit_borrowed bigint not null, vault_txid text not null,
        vault_vout integer not null, threshold_cents bigint not null, stamp bigint not null,
        status text not null, created_at bigint not null, updated_at bigint not null`,
  );
  // The liquidation sweep asks "which vaults have threshold >= price" on every tick.
  await createIndexOn(db, 'vaults_status_threshold', 'vaults', ['status', 'threshold_cents']);
  await createIndexOn(db, 'vaults_creation_account', 'vaults', ['creation_account']);

  await addSerialId(db, db.schema.createTable('vault_history'))
    .$call(
      columns(`
        vault_id text not null, timestamp bigint not null, action text not null,
        btc_amt bigint not null, unit_amt bigint not null, vault_amount bigint not null,
        amount_borrowed bigint not null, oracle_price bigint not null, transaction_id text not null,
        utxo text not null, utxo_script text not null, liquidation_hash text,
        liquidation_threshold bigint, confirmed integer not null default 0`),
    )
    .execute();
  await createIndexOn(db, 'vault_history_vault_time', 'vault_history', ['vault_id', 'timestamp']);
  await createIndexOn(db, 'vault_history_txid', 'vault_history', ['transaction_id']);

  await createTableOf(
    db,
    'guardian_requests',
    `
        nonce text primary key, method text not null, vault_id text, vault_pubkey text not null,
        state text not null, txid text, raw_hex text, error text, expires_at bigint not null,
        created_at bigint not null, updated_at bigint not null`,
  );

  await createTableOf(
    db,
    'reservations',
    `
        reservation_id text primary key, vault_pubkey text not null, vault_action text not null,
        unit_amount bigint not null, treasury_txid text, treasury_vout integer,
        status text not null, expires_at bigint not null, created_at bigint not null`,
  );
  await createIndexOn(db, 'reservations_status_expiry', 'reservations', ['status', 'expires_at']);

  await createTableOf(
    db,
    'liquidations',
    `
        vault_id text primary key, liquidated_at bigint not null, liquidation_hash text not null,
        threshold_cents bigint not null, price_cents bigint not null, btc_locked bigint not null,
        unit_borrowed bigint not null, status text not null, claimed_by text, claim_txid text`,
  );
}

/** 0001_core, second half: Telegram's subscriptions and outbox, users and their missions. */
async function createCommunityTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('telegram_subscriptions')
    .$call(
      columns(`
        address text not null, chat_id text not null, network text not null,
        created_at bigint not null`),
    )
    .addPrimaryKeyConstraint('telegram_subscriptions_pk', ['address', 'chat_id'])
    .execute();

  await addSerialId(db, db.schema.createTable('telegram_outbox'))
    .$call(
      columns(`
        chat_id text not null, text text not null, status text not null,
        attempts integer not null default 0, max_attempts integer not null,
        retry_delay_ms bigint not null, next_attempt_at bigint not null, last_error text,
        created_at bigint not null`),
    )
    .execute();
  await createIndexOn(db, 'telegram_outbox_due', 'telegram_outbox', ['status', 'next_attempt_at']);

  await createTableOf(
    db,
    'users',
    `
        address text primary key, discord_id text, twitter_id text, telegram_id text,
        referral_code text not null unique, referred_by text, created_at bigint not null`,
  );
  await createIndexOn(db, 'users_referred_by', 'users', ['referred_by']);

  await db.schema
    .createTable('mission_completions')
    .$call(columns('address text not null, mission_id text not null, completed_at bigint not null'))
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
      await createIndexOn(db, 'vaults_pubkey_created', 'vaults', ['vault_pubkey', 'created_at']);
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
      await createIndexOn(db, 'vaults_status_settle_height', 'vaults', ['status', 'settle_height']);
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
      await createIndexOn(db, 'vaults_status_exit_height', 'vaults', ['status', 'exit_height']);
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
