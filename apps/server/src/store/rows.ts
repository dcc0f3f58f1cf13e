// The lookup every table has: the one row whose key column holds a value, or null.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema';

/** Tables as Kysely sees them when the table is a parameter rather than known at the call. */
type AnyTables = Record<string, Record<string, unknown>>;

export async function rowWhere<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  column: keyof Database[T] & string,
  value: string,
): Promise<Selectable<Database[T]> | null> {
  const row = await (db as unknown as Kysely<AnyTables>)
    .selectFrom(table)
    .selectAll()
    .where(column as string, '=', value)
    .executeTakeFirst();
  return (row as Selectable<Database[T]> | undefined) ?? null;
}
