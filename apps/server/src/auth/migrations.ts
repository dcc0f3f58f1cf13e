// Tables of sign-in, sessions, Telegram links and account links. Named 0400_* so they
// never collide with another module's migrations; the table types live beside their queries
// (store/users.ts, store/telegram.ts).
import { sql, type Kysely, type Migration } from 'kysely';
import { columns, createIndexOn, createTableOf } from '../store/columns';

export const accountMigrations: Record<string, Migration> = {
  '0400_accounts': {
    async up(db: Kysely<unknown>) {
      // One row per challenge handed out; used_at set once, by the verify that wins the race.
      await createTableOf(
        db,
        'auth_challenges',
        `
            nonce text primary key, address text not null, message text not null,
            expires_at bigint not null, used_at bigint`,
      );
      await createIndexOn(db, 'auth_challenges_expiry', 'auth_challenges', ['expires_at']);

      // The cookie holds a random token; only its SHA-256 is stored, so a leaked table signs no one in.
      await createTableOf(
        db,
        'sessions',
        `
            token_hash text primary key, address text not null, created_at bigint not null,
            expires_at bigint not null`,
      );
      await createIndexOn(db, 'sessions_address', 'sessions', ['address']);

      await createTableOf(
        db,
        'telegram_link_codes',
        `
            code text primary key, address text not null, expires_at bigint not null,
            used_at bigint`,
      );

      // OAuth2 state of a Discord or Twitter link in progress (PKCE verifier kept server-side).
      await createTableOf(
        db,
        'oauth_states',
        `
            state text primary key, provider text not null, address text not null,
            code_verifier text not null, expires_at bigint not null`,
      );

      // A message the server composes itself carries a key, so a restart or a second path (the
      // browser's POST /api/notify) never queues it twice.
      await db.schema.alterTable('telegram_outbox').addColumn('dedupe_key', 'text').execute();
      await db.schema
        .createIndex('telegram_outbox_dedupe')
        .on('telegram_outbox')
        .column('dedupe_key')
        .unique()
        .execute();
      await db.schema
        .alterTable('telegram_subscriptions')
        .addColumn('risk_alerts', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await createIndexOn(db, 'telegram_subscriptions_chat', 'telegram_subscriptions', ['chat_id']);

      // History records of followed vaults whose confirmation is still to be announced.
      await db.schema
        .createTable('telegram_watch')
        .addColumn('history_id', 'integer', (c) => c.primaryKey())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      // The last health band announced per chat and vault: a restart compares with it and sends
      // nothing new.
      await db.schema
        .createTable('telegram_alert_bands')
        .$call(
          columns(`
            chat_id text not null, vault_id text not null, band text not null,
            updated_at bigint not null`),
        )
        .addPrimaryKeyConstraint('telegram_alert_bands_pk', ['chat_id', 'vault_id'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of [
        'telegram_alert_bands',
        'telegram_watch',
        'oauth_states',
        'telegram_link_codes',
        'sessions',
        'auth_challenges',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
      await db.schema.dropIndex('telegram_subscriptions_chat').ifExists().execute();
      await db.schema.alterTable('telegram_subscriptions').dropColumn('risk_alerts').execute();
      await db.schema.dropIndex('telegram_outbox_dedupe').ifExists().execute();
      await db.schema.alterTable('telegram_outbox').dropColumn('dedupe_key').execute();
    },
  },
  // One address per Discord or Twitter account: a second address linking the same
  // account would earn its badges twice. Where that happened already, the earliest registered
  // address keeps the link and the others lose it (they can link another account), then a unique
  // index (NULLs apart, on SQLite and PostgreSQL alike) holds the rule, also under a race.
  '0410_one_address_per_social_account': {
    async up(db: Kysely<unknown>) {
      for (const column of ['discord_id', 'twitter_id'] as const) {
        await sql`
          update users set ${sql.ref(column)} = null
          where ${sql.ref(column)} is not null and exists (
            select 1 from users earlier
            where earlier.${sql.ref(column)} = users.${sql.ref(column)}
              and (earlier.created_at < users.created_at
                or (earlier.created_at = users.created_at and earlier.address < users.address)))
        `.execute(db);
        await db.schema
          .createIndex(`users_${column}_unique`)
          .on('users')
          .column(column)
          .unique()
          .execute();
      }
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('users_discord_id_unique').ifExists().execute();
      await db.schema.dropIndex('users_twitter_id_unique').ifExists().execute();
    },
  },
  // Link codes and OAuth states are kept hashed from now on (store/telegram.ts, oauth.ts): those
  // stored before in the clear are dropped (each lives minutes; the user asks again), so none
  // stays readable.
  '0420_hashed_link_codes': {
    async up(db: Kysely<unknown>) {
      await sql`delete from telegram_link_codes`.execute(db);
      await sql`delete from oauth_states`.execute(db);
    },
    async down() {},
  },
};
