// The migrator's introspection on PostgreSQL while other sessions drop schemas and tables. The race
// is made certain: a repeatable-read transaction takes its snapshot, another session drops, then
// the introspection query runs on the old snapshot (a query that starts just before a drop sees
// the same).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Kysely, PostgresIntrospector, sql, type DatabaseIntrospector } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/open';
import type { Database } from '../src/store/schema';
import { OwnSchemaIntrospector } from '../src/store/pg-introspector';
import { dropSchema } from './guardian/harness';

const pgUrl = process.env.TEST_DATABASE_URL;

async function run(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Lists the tables on a snapshot taken before `drop` runs in another session. */
function tablesAfterDrop(
  store: Store,
  introspector: (db: Kysely<Database>) => DatabaseIntrospector,
  drop: () => Promise<void>,
): Promise<string[]> {
  return store.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await drop();
      const tables = await introspector(trx).getTables();
      return tables.map((table) => `${table.schema}.${table.name}`);
    });
}

describe.runIf(pgUrl)('migrator introspection on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  const url = pgUrl!;
  const own = `intro_${randomBytes(6).toString('hex')}`;
  const other = `intro_${randomBytes(6).toString('hex')}`;
  let store: Store;

  beforeEach(async () => {
    store = await openStore({ databaseUrl: url, schema: own });
    await sql`create table doomed (id serial primary key, note text)`.execute(store.db);
    await run(url, `create schema ${other}; create table ${other}.t (id serial primary key)`);
  });

  afterEach(async () => {
    await store.close();
    await dropSchema(url, own);
    await dropSchema(url, other);
  });

  it("Kysely's own introspector fails when another schema is dropped under it", async () => {
    await expect(
      tablesAfterDrop(
        store,
        (db) => new PostgresIntrospector(db),
        () => dropSchema(url, other),
      ),
    ).rejects.toThrow(`schema "${other}" does not exist`);
  });

  it('ours reads its own schema only and is not disturbed by another being dropped', async () => {
    const tables = await tablesAfterDrop(
      store,
      (db) => new OwnSchemaIntrospector(db),
      () => dropSchema(url, other),
    );
    expect(tables).toEqual([`${own}.doomed`]);
  });

  it('ours survives a table of its own schema dropped by another instance', async () => {
    const drop = () => run(url, `drop table ${own}.doomed`);
    await expect(
      tablesAfterDrop(store, (db) => new PostgresIntrospector(db), drop),
    ).rejects.toThrow(/does not exist/);
    await run(url, `create table ${own}.doomed (id serial primary key, note text)`);
    const tables = await tablesAfterDrop(store, (db) => new OwnSchemaIntrospector(db), drop);
    expect(tables).toEqual([`${own}.doomed`]);
  });

  it('describes columns as Kysely does', async () => {
    const [theirs] = (await new PostgresIntrospector(store.db).getTables()).filter(
      (table) => table.schema === own,
    );
    const ours = await new OwnSchemaIntrospector(store.db).getTables();
    expect(ours).toEqual([theirs]);
    expect(ours[0]?.columns.map((column) => column.isAutoIncrementing)).toEqual([true, false]);
  });
});
