// A test's own store on each dialect: SQLite (in memory, or a file in a temp folder) always, and
// PostgreSQL when TEST_DATABASE_URL is set, in a schema of its own dropped with all it holds.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Migration } from 'kysely';
import { afterEach } from 'vitest';
import { migrateToLatest, openStore, type Store } from '../src/store';

export const pgUrl = process.env.TEST_DATABASE_URL;

/** A store, and how to drop what it made. */
export interface OpenedStore {
  store: Store;
  cleanup: () => Promise<void>;
}

export async function memoryStore(): Promise<OpenedStore> {
  return { store: await openStore({ file: ':memory:' }), cleanup: () => Promise.resolve() };
}

/** SQLite in a file of a temp folder (WAL, the checkpointer: as the server runs it). */
export async function fileStore(prefix: string): Promise<OpenedStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `unit-${prefix}-`));
  const store = await openStore({ file: path.join(dir, 'unit.db') });
  return { store, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A schema of its own on TEST_DATABASE_URL (which must be set). */
export async function postgresStore(prefix: string): Promise<OpenedStore> {
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  return {
    store: await openStore({ databaseUrl: pgUrl!, schema }),
    cleanup: async () => {
      const admin = await openStore({ databaseUrl: pgUrl! });
      await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
      await admin.close();
    },
  };
}

/** `describe.each` rows: SQLite in memory, and PostgreSQL when it is configured. */
export function storeDialects(prefix: string) {
  return [
    ['SQLite', memoryStore] as const,
    ...(pgUrl ? [['PostgreSQL', () => postgresStore(prefix)] as const] : []),
  ];
}

/** Opens a store migrated with `migrations` for a test, closed and dropped after it. */
export function storePerTest(
  open: () => Promise<OpenedStore>,
  migrations: Record<string, Migration> = {},
): () => Promise<Store> {
  let opened: OpenedStore | null = null;
  afterEach(async () => {
    await opened?.store.close();
    await opened?.cleanup();
    opened = null;
  });
  return async () => {
    opened = await open();
    await migrateToLatest(opened.store.db, migrations);
    return opened.store;
  };
}

/**
 * An active vault row of layout 2 numbered `n`: its term at `settle` (100 + n unless given; null
 * for layout 1), its exit 20 blocks later.
 */
export function termedVaultRow(
  n: number,
  over: {
    status?: 'active' | 'liquidated' | 'repossessed' | 'settled' | 'exited';
    settle?: number | null;
    pubkey?: string;
  } = {},
) {
  const id = n.toString(16).padStart(64, '0');
  const settle = over.settle === undefined ? 100 + n : over.settle;
  return {
    ...{ vault_id: id, vault_tag: id.slice(0, 8), vault_pubkey: over.pubkey ?? id, name: 'v' },
    ...{ creation_account: 'tb1q', runes_account: 'tb1q', btc_locked: 1_000, unit_borrowed: 0 },
    ...{ vault_txid: id, vault_vout: 0, threshold_cents: 0, stamp: 1, created_at: 1 },
    settle_height: settle,
    exit_height: settle === null ? null : settle + 20,
    status: over.status ?? 'active',
  };
}
