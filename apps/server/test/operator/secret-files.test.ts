// Secrets only in files only their owner can read: a fresh start of the real server makes its data
// directory 0700 and every database and key file 0600, and no table holds a key; a database an
// older server left with its keys in rows is moved out into the files at start (the same keys, so
// the vaults made before still work), on SQLite and on PostgreSQL; a file holding another key, or
// one others can read, stops the start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { sql, type Kysely } from 'kysely';
import { consumeLinkCode, createLinkCode, getVaultByPubkey, openStore } from '../../src/store';
import type { OpenStoreOptions, Store } from '../../src/store/open';
import { startTestApp, type RunningApp } from '../support';
import { dropSchema, newSchema, pgUrl, prepareBorrow, prepareOpen } from '../cluster/instances';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

/** The data directory's key files, as a fresh devnet start makes them. */
const keyFiles = (dataDir: string) => ({
  guardian: path.join(dataDir, 'guardian.key'),
  oracle: path.join(dataDir, 'oracle.key'),
  faucet: path.join(dataDir, 'devnet-faucet.key'),
});

/** Every secret a devnet start keeps, hex, read from its files. */
function secretsIn(dataDir: string) {
  const files = keyFiles(dataDir);
  const oracle = JSON.parse(fs.readFileSync(files.oracle, 'utf8')) as {
    oracle_key: string;
    oracle_secret: string;
  };
  return {
    guardian: fs.readFileSync(files.guardian, 'utf8').trim(),
    oracleKey: oracle.oracle_key,
    oracleSecret: oracle.oracle_secret,
    faucet: fs.readFileSync(files.faucet, 'utf8').trim(),
  };
}

/** Each table of the database with its column names and every row, read as SQL sees them. */
async function everyTable(
  store: Store,
): Promise<Map<string, { columns: string[]; rows: unknown[] }>> {
  const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const names =
    store.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
      : await sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
          db,
        );
  const tables = new Map<string, { columns: string[]; rows: unknown[] }>();
  for (const { name } of names.rows) {
    const rows = (await sql`select * from ${sql.table(name)}`.execute(db)).rows;
    const columns =
      store.dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(db))
            .rows
        : (
            await sql<{
              name: string;
            }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${name}`.execute(
              db,
            )
          ).rows;
    tables.set(name, { columns: columns.map((c) => c.name), rows });
  }
  return tables;
}

/** What a table holds that should be in a file: a secret's value, a secret-named column or row. */
async function secretsInTables(store: Store, secrets: string[]): Promise<string[]> {
  const found: string[] = [];
  const tables = await everyTable(store);
  expect(tables.has('settings') && tables.has('devnet_meta') && tables.has('sessions')).toBe(true);
  for (const [table, { columns, rows }] of tables) {
    for (const column of columns)
      if (/secret|password|private|mnemonic|(^|_)token$/i.test(column))
        found.push(`${table}.${column}`);
    const text = JSON.stringify(rows).toLowerCase();
    for (const secret of secrets) if (text.includes(secret)) found.push(`${table} holds ${secret}`);
  }
  const keys = (rows: unknown[]) => rows.map((r) => (r as { key: string }).key);
  for (const key of keys(tables.get('settings')!.rows))
    if (/^(guardian_key|oracle_key|oracle_secret)$/.test(key)) found.push(`settings ${key}`);
  if (keys(tables.get('devnet_meta')!.rows).includes('faucet_secret'))
    found.push('devnet_meta faucet_secret');
  return found;
}

/** Puts the keys back into rows, as a server from before the key files left its database. */
async function asAnOlderServerLeftIt(store: Store, s: ReturnType<typeof secretsIn>) {
  const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const at = Math.floor(Date.now() / 1000);
  for (const [key, value] of [
    ['guardian_key', s.guardian],
    ['oracle_key', s.oracleKey],
    ['oracle_secret', s.oracleSecret],
  ])
    await db.insertInto('settings').values({ key, value, updated_at: at }).execute();
  await db.deleteFrom('devnet_meta').where('key', '=', 'faucet_pubkey').execute();
  await db.insertInto('devnet_meta').values({ key: 'faucet_secret', value: s.faucet }).execute();
}

interface Backend {
  label: string;
  env: Record<string, string>;
  schema?: string;
  store: OpenStoreOptions;
}

/** A vault opened, the database turned into an older server's, restarted: same keys, vault works. */
async function migratesAndKeepsTheVaults(
  backend: Backend,
  dataDir: string,
  removeOracleFile: boolean,
) {
  const start = () =>
    startTestApp(
      { DATA_DIR: dataDir, ...backend.env },
      {
        writeLimitPerMinute: 10_000,
        devnetWriteLimitPerMinute: 10_000,
        ...(backend.schema ? { databaseSchema: backend.schema } : {}),
      },
    );
  const first = await start();
  let owner;
  let before;
  try {
    const open = await prepareOpen(first, 2_000_000n, 20_000n);
    await open.submit();
    open.close();
    owner = open.owner;
    await first.devnet!.mine(1);
    const vault = (await getVaultByPubkey(first.store.db, owner.vaultPubkey))!;
    before = describeKeys(first, vault.threshold_cents, Number(vault.stamp));
  } finally {
    await first.stop();
  }
  const secrets = secretsIn(dataDir);
  const files = keyFiles(dataDir);
  const store = await openStore(backend.store);
  try {
    await asAnOlderServerLeftIt(store, secrets);
  } finally {
    await store.close();
  }
  // The older server kept the guardian and faucet keys in rows only, the oracle's in both.
  fs.rmSync(files.guardian);
  fs.rmSync(files.faucet);
  if (removeOracleFile) fs.rmSync(files.oracle);

  const second = await start();
  try {
    expect(secretsIn(dataDir)).toEqual(secrets);
    for (const file of Object.values(files)) expect(modeOf(file)).toBe('600');
    expect(await secretsInTables(second.store, Object.values(secrets))).toEqual([]);
    const vault = (await getVaultByPubkey(second.store.db, owner.vaultPubkey))!;
    expect(describeKeys(second, vault.threshold_cents, Number(vault.stamp))).toEqual(before);
    // The vault made before is spent under the same keys: a borrow is co-signed and recorded.
    const borrow = await prepareBorrow(second, owner, 5_000n);
    await borrow.submit();
    borrow.close();
    expect(
      Number((await getVaultByPubkey(second.store.db, owner.vaultPubkey))!.unit_borrowed),
    ).toBe(25_000);
  } finally {
    await second.stop();
  }
  return { start, files };
}

/** The public halves of every key and the oracle's threshold hash of a vault's (th, stamp). */
function describeKeys(unit: RunningApp, th: number, stamp: number) {
  return {
    thresholdHash: hex.encode(unit.oracle.thresholdHash(th, stamp)),
    otherHash: hex.encode(unit.oracle.thresholdHash(6_543_210, 1_700_000_000)),
    oracle: unit.oracle.pubkey,
    guard: unit.keys.guardPubkey,
    treasury: unit.keys.treasuryPubkey,
    faucet: unit.devnet!.faucetAddress,
  };
}

const newDir = (label: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `unit-secrets-${label}-`));
  dirs.push(dir);
  return dir;
};

describe('secrets in owner-only files (SQLite)', () => {
  const dataDir = path.join(newDir('sqlite'), 'data');
  const backend: Backend = {
    label: 'sqlite',
    env: {},
    store: { file: path.join(dataDir, 'unit.db') },
  };

  it('a fresh start: the data directory 0700, every database and key file 0600, no key in a table', async () => {
    // A data directory others can enter, as a shell's umask makes it: tightened at start.
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    const unit = await startTestApp({ DATA_DIR: dataDir });
    try {
      expect(modeOf(dataDir)).toBe('700');
      const database = path.join(dataDir, 'unit.db');
      // Running, in WAL mode: the main file, its log and shared memory are all there.
      for (const file of [database, `${database}-wal`, `${database}-shm`])
        expect(modeOf(file)).toBe('600');
      for (const file of Object.values(keyFiles(dataDir))) expect(modeOf(file)).toBe('600');
      const secrets = Object.values(secretsIn(dataDir));
      expect(secrets.every((s) => /^[0-9a-f]{64}$/.test(s))).toBe(true);
      expect(await secretsInTables(unit.store, secrets)).toEqual([]);
      // A Telegram link code is a bearer token for minutes: only its hash is stored.
      const code = 'ABCD1234';
      await createLinkCode(unit.store.db, {
        code,
        address: 'tb1qexample',
        expires_at: Math.floor(Date.now() / 1000) + 600,
      });
      const rows = await unit.store.db.selectFrom('telegram_link_codes').select('code').execute();
      expect(rows.map((r) => r.code)).not.toContain(code);
      expect(await consumeLinkCode(unit.store.db, code)).toBe('tb1qexample');
    } finally {
      await unit.stop();
    }
  });

  it("moves an older database's key rows into their files, keeping the vaults; refuses another key or an open file", async () => {
    const { start, files } = await migratesAndKeepsTheVaults(backend, dataDir, false);
    // A row that differs from its file: neither is dropped, the start stops and says what to do.
    const store = await openStore(backend.store);
    const other = 'ab'.repeat(32);
    try {
      await store.db
        .insertInto('settings')
        .values({ key: 'guardian_key', value: other, updated_at: 1 })
        .execute();
    } finally {
      await store.close();
    }
    const kept = fs.readFileSync(files.guardian, 'utf8');
    await expect(start()).rejects.toThrow(
      /guardian key file .*guardian\.key holds another key than the database's settings guardian_key.*start again/,
    );
    expect(fs.readFileSync(files.guardian, 'utf8')).toBe(kept);
    const again = await openStore(backend.store);
    try {
      const row = await again.db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', 'guardian_key')
        .executeTakeFirst();
      expect(row?.value).toBe(other);
      await again.db.deleteFrom('settings').where('key', '=', 'guardian_key').execute();
    } finally {
      await again.close();
    }
    // A key file others can read is refused, naming it and the fix.
    fs.chmodSync(files.faucet, 0o644);
    await expect(start()).rejects.toThrow(
      /faucet's key file .*devnet-faucet\.key can be read by others \(mode 644\); chmod 600 it/,
    );
    fs.chmodSync(files.guardian, 0o640);
    fs.chmodSync(files.faucet, 0o600);
    await expect(start()).rejects.toThrow(
      /guardian key file .* can be read by others \(mode 640\)/,
    );
  }, 120_000);
});

describe.runIf(pgUrl)('secrets in owner-only files (PostgreSQL)', () => {
  const schema = newSchema('secret_files');
  afterAll(() => dropSchema(schema));

  it("moves an older database's key rows into their files (the oracle's file written from its rows), keeping the vaults", async () => {
    const dataDir = path.join(newDir('pg'), 'data');
    const backend: Backend = {
      label: 'postgres',
      env: { DATABASE_URL: pgUrl! },
      schema,
      store: { databaseUrl: pgUrl!, schema },
    };
    await migratesAndKeepsTheVaults(backend, dataDir, true);
    expect(modeOf(dataDir)).toBe('700');
  }, 120_000);
});
