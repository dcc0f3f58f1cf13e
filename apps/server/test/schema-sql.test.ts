// The migrations are frozen: a database migrated once must never see its schema differ from one
// migrated later. Every statement they send is recorded, on SQLite and on PostgreSQL (when
// TEST_DATABASE_URL is set), with the schema it leaves, and compared with the files recorded
// beside this test; a change to how a migration is written must leave both byte for byte alike.
import { randomBytes } from 'node:crypto';
import { sql, type KyselyPlugin, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { accountMigrations } from '../src/auth/migrations';
import { guardianMigrations } from '../src/cosign/migrations';
import { devnetMigrations } from '../src/devnet/migrations';
import { rateLimitMigrations } from '../src/http/shared-rate-limits';
import { migrateToLatest } from '../src/store/migrations';
import { openStore, type Store } from '../src/store/open';
import type { Database } from '../src/store/schema';
import { dropSchema } from './guardian/harness';

const pgUrl = process.env.TEST_DATABASE_URL;

/** Every module's migrations, as the server's first start runs them. */
const everyMigration = {
  ...devnetMigrations,
  ...guardianMigrations,
  ...accountMigrations,
  ...rateLimitMigrations,
};

/** Migrates `store` and returns each statement's SQL text, in the order sent. */
async function migrationSql(store: Store): Promise<string> {
  const statements: string[] = [];
  const executor = store.db.getExecutor();
  const recorder: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      statements.push(executor.compileQuery(node, queryId).sql);
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  await migrateToLatest(store.db.withPlugin(recorder), everyMigration);
  return `${statements.join(';\n')};\n`;
}

async function sqliteSchema(db: Kysely<Database>): Promise<string> {
  const rows = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master order by type, name`.execute(db);
  return rows.rows.map((r) => `${r.type} ${r.name}: ${r.sql ?? ''}`).join('\n') + '\n';
}

async function postgresSchema(db: Kysely<Database>, schema: string): Promise<string> {
  const columns = await sql<Record<string, unknown>>`
    select table_name, ordinal_position, column_name, data_type, is_nullable, column_default,
           is_identity, identity_generation
      from information_schema.columns where table_schema = current_schema()
     order by table_name, ordinal_position`.execute(db);
  const constraints = await sql<Record<string, unknown>>`
    select conrelid::regclass::text as table_name, conname, pg_get_constraintdef(oid) as def
      from pg_constraint where connamespace = current_schema()::regnamespace
     order by 1, 2`.execute(db);
  const indexes = await sql<Record<string, unknown>>`
    select tablename, indexname, indexdef from pg_indexes where schemaname = current_schema()
     order by 1, 2`.execute(db);
  const lines = [...columns.rows, ...constraints.rows, ...indexes.rows].map((r) =>
    Object.values(r).map(String).join(' | '),
  );
  return lines.join('\n').replaceAll(schema, '<schema>') + '\n';
}

describe('the migrations send the recorded SQL', () => {
  it('on SQLite', async () => {
    const store = await openStore();
    try {
      await expect(await migrationSql(store)).toMatchFileSnapshot('./schema/sqlite-migrations.txt');
      await expect(await sqliteSchema(store.db)).toMatchFileSnapshot('./schema/sqlite-schema.txt');
    } finally {
      await store.close();
    }
  });

  describe.runIf(pgUrl)('on PostgreSQL (needs TEST_DATABASE_URL)', () => {
    const schema = `schema_sql_${randomBytes(6).toString('hex')}`;
    afterAll(() => dropSchema(pgUrl!, schema));

    it('on PostgreSQL', async () => {
      const store = await openStore({ databaseUrl: pgUrl!, schema });
      try {
        const sent = (await migrationSql(store)).replaceAll(schema, '<schema>');
        await expect(sent).toMatchFileSnapshot('./schema/postgres-migrations.txt');
        await expect(await postgresSchema(store.db, schema)).toMatchFileSnapshot(
          './schema/postgres-schema.txt',
        );
      } finally {
        await store.close();
      }
    });
  });
});
