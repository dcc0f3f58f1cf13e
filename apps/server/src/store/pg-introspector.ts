// PostgreSQL introspection confined to the connection's own schema, for Kysely's Migrator.
//
// Kysely's PostgresIntrospector lists the columns of every schema in the database and, for each row,
// calls has_schema_privilege() and pg_get_serial_sequence() with the schema's and table's NAMES.
// The scan reads the catalog as of the statement's snapshot, but those functions resolve names
// against the catalog as it is now: a schema or table another session drops while the scan runs is
// still in the rows and no longer resolves, and the whole query fails with `schema "…" does not
// exist` (or `relation … does not exist`). The Migrator runs that query before it takes its lock,
// so an instance starting beside another one's migration (which drops tables of its own), or beside
// any other schema being dropped in the same database, failed to start. This one reads only the
// current schema and resolves nothing by name: a concurrent drop leaves it with its snapshot's rows.
import {
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

/** The bookkeeping tables Kysely's Migrator hides unless asked for them. */
const KYSELY_TABLES = ['kysely_migration', 'kysely_migration_lock'];

interface ColumnRow {
  schema: string;
  table: string;
  table_type: string;
  column: string;
  not_null: boolean;
  has_default: boolean;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: boolean;
}

export class OwnSchemaIntrospector<DB = unknown> implements DatabaseIntrospector {
  readonly #db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{
      name: string;
    }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.#db);
    return rows.map((row) => ({ name: row.name }));
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    // Serial columns own their sequence ('a'), identity columns theirs ('i'): what
    // pg_get_serial_sequence looks for, found by object id instead of by name.
    const { rows } = await sql<ColumnRow>`
      select ns.nspname as schema, c.relname as table, c.relkind as table_type,
        a.attname as column, a.attnotnull as not_null, a.atthasdef as has_default,
        typ.typname as type, dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        exists (
          select 1 from pg_catalog.pg_depend dep
          join pg_catalog.pg_class seq on seq.oid = dep.objid and seq.relkind = 'S'
          where dep.classid = 'pg_catalog.pg_class'::regclass and dep.refobjid = c.oid
            and dep.refobjsubid = a.attnum and dep.deptype in ('a', 'i')
        ) as auto_incrementing
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace dtns on dtns.oid = typ.typnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
        and a.attnum >= 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && KYSELY_TABLES.includes(row.table)) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = {
          name: row.table,
          schema: row.schema,
          isView: row.table_type === 'v',
          columns: [],
        };
        tables.set(row.table, table);
      }
      (table.columns as TableMetadata['columns'][number][]).push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        isAutoIncrementing: row.auto_incrementing,
        hasDefaultValue: row.has_default,
        ...(row.column_description === null ? {} : { comment: row.column_description }),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** Kysely's PostgreSQL dialect with the introspection above. */
export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}
