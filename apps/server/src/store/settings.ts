// Key-value settings: once-per-install public values (the oracle's public key, the pinned group key,
// cursors). Never a key or secret: those live in their own files (secret-files.ts).
import type { Kysely } from 'kysely';
import type { Database } from './schema';

/**
 * The settings row of a (threshold, stamp)'s oracle commitment with the guardian network: the
 * guardians' threshold hashes a vault's liquidation leaves commit to (oracle/network-oracles.ts
 * writes it, the reindex restores it: operator/vault-leaves.ts).
 */
export const oracleHashesKey = (th: number | bigint, ts: number | bigint) =>
  `oracle_hashes:${th}:${ts}`;

export async function getSetting(db: Kysely<Database>, key: string): Promise<string | null> {
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.value ?? null;
}

export async function putSetting(db: Kysely<Database>, key: string, value: string): Promise<void> {
  const updated_at = Math.floor(Date.now() / 1000);
  await db
    .insertInto('settings')
    .values({ key, value, updated_at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at }))
    .execute();
}

/**
 * Returns the stored value, or stores `create()` and returns it. When two instances race, the
 * first writer wins and both return its value.
 */
export async function getOrCreateSetting(
  db: Kysely<Database>,
  key: string,
  create: () => string,
): Promise<string> {
  const existing = await getSetting(db, key);
  if (existing !== null) return existing;
  await db
    .insertInto('settings')
    .values({ key, value: create(), updated_at: Math.floor(Date.now() / 1000) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await getSetting(db, key);
  if (stored === null) throw new Error(`setting ${key} vanished`);
  return stored;
}
