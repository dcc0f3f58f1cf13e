// A store of its own for one test: a fresh directory with the devnet's and the accounts' tables,
// closed and removed afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateToLatest, openStore, type Store } from '../src/store';
import { accountMigrations } from '../src/auth/migrations';
import { devnetMigrations } from '../src/devnet/migrations';

const dirs = new WeakMap<Store, string>();

/** A migrated store in a new directory under the system's temporary one, named from `prefix`. */
export async function openTempStore(prefix: string): Promise<Store> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const store = await openStore({ file: path.join(dir, 'unit.db') });
  dirs.set(store, dir);
  await migrateToLatest(store.db, { ...devnetMigrations, ...accountMigrations });
  return store;
}

/** Closes a store `openTempStore` opened and removes its directory. */
export async function closeTempStore(store: Store): Promise<void> {
  await store.close();
  const dir = dirs.get(store);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
