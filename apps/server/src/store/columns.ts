// A table's columns written as their SQL, `name type [primary key] [not null] [unique] [default N]`
// separated by commas, and added to a CREATE TABLE in that order: the migrations read as the
// schema they make rather than as one builder call per column. Only the words below are known; any
// other stops the migration at once, before a statement is sent, so a typo never makes a column
// other than the one written. Kysely compiles a column's constraints in its own fixed order, so
// the SQL is the same as the builder calls' (test/schema-sql.test.ts keeps it byte for byte).
import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';

const TYPES = ['text', 'bigint', 'integer'] as const;
type ColumnType = (typeof TYPES)[number];

/** The modifiers, in the one order a column may write them. */
const MODIFIERS: [
  RegExp,
  (c: ColumnDefinitionBuilder, match: RegExpExecArray) => ColumnDefinitionBuilder,
][] = [
  [/^primary key\b/, (c) => c.primaryKey()],
  [/^not null\b/, (c) => c.notNull()],
  [/^unique\b/, (c) => c.unique()],
  [/^default (0|[1-9][0-9]{0,8})\b/, (c, m) => c.defaultTo(Number(m[1]))],
];

interface Column {
  name: string;
  type: ColumnType;
  build: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
}

function parseColumn(text: string): Column {
  const match = /^([a-z_][a-z0-9_]*) ([a-z]+)(?: (.*))?$/.exec(text);
  const type = TYPES.find((t) => t === match?.[2]);
  if (!match || !type) throw new Error(`Column "${text}" is not "name type [modifiers]"`);
  const steps: ((c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder)[] = [];
  let rest = match[3] ?? '';
  for (const [pattern, apply] of MODIFIERS) {
    const found = pattern.exec(rest);
    if (!found) continue;
    steps.push((c) => apply(c, found));
    rest = rest.slice(found[0].length).trimStart();
  }
  if (rest) throw new Error(`Column "${text}": "${rest}" is not a known modifier in its place`);
  return { name: match[1]!, type, build: (c) => steps.reduce((b, step) => step(b), c) };
}

/** Adds the columns `spec` lists to a CREATE TABLE, for `.$call(columns(...))`. */
export function columns(spec: string) {
  const parsed = spec
    .split(',')
    .map((part) => part.trim().replace(/\s+/g, ' '))
    .map(parseColumn);
  return <T extends string, C extends string>(
    table: CreateTableBuilder<T, C>,
  ): CreateTableBuilder<T, string> =>
    parsed.reduce<CreateTableBuilder<T, string>>(
      (built, column) => built.addColumn(column.name, column.type, column.build),
      table,
    );
}

/** CREATE TABLE `name` with the columns `spec` lists, and nothing more. */
export async function createTableOf(
  db: Kysely<unknown>,
  name: string,
  spec: string,
): Promise<void> {
  await db.schema.createTable(name).$call(columns(spec)).execute();
}

/** CREATE INDEX `name` ON `table` (`on`, in that order). */
export async function createIndexOn(
  db: Kysely<unknown>,
  name: string,
  table: string,
  on: string[],
): Promise<void> {
  await db.schema.createIndex(name).on(table).columns(on).execute();
}
