// Seeding the bench's databases: one prepared statement, big transactions.
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { migrateToLatest, openStore, insertVault } from '../src/store';
import { devnetMigrations } from '../src/devnet/migrations';
import { guardianMigrations } from '../src/cosign';
import { CLOSE_INTERVALS } from '../src/store/prices';

const DAY = 86_400;
const TICK_SECONDS = 30;
export const VAULT_ID = 'be'.repeat(32);
/** The seeded vault's key, which GET /api/vaults?pubkey= finds it by. */
export const VAULT_PUBKEY = 'bf'.repeat(32);

export async function migratedDatabase(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'unit.db');
  const store = await openStore({ file });
  await migrateToLatest(store.db, { ...devnetMigrations, ...guardianMigrations });
  await insertVault(store.db, {
    vault_id: VAULT_ID,
    vault_tag: 'bench',
    vault_pubkey: VAULT_PUBKEY,
    name: 'Bench vault',
    creation_account: 'tb1qbench',
    runes_account: 'tb1pbench',
    btc_locked: 100_000_000,
    unit_borrowed: 1_000_000,
    vault_txid: 'bd'.repeat(32),
    vault_vout: 0,
    threshold_cents: 0,
    stamp: 0,
    status: 'active',
    created_at: 0,
  });
  await store.close();
  return file;
}

/** `count` records spread evenly over the last year, all confirmed. */
export function seedHistory(file: string, count: number, now: number): void {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const insert = db.prepare(
    `insert into vault_history (vault_id, timestamp, action, btc_amt, unit_amt, vault_amount,
       amount_borrowed, oracle_price, transaction_id, utxo, utxo_script, liquidation_hash,
       liquidation_threshold, confirmed)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, 1)`,
  );
  const start = now - 365 * DAY;
  const step = (365 * DAY) / count;
  const script = '5120' + 'ab'.repeat(32);
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const txid = i.toString(16).padStart(64, '0');
      insert.run(
        VAULT_ID,
        Math.floor(start + i * step),
        i === 0 ? 'o' : i % 2 ? 'd' : 'b',
        10_000 + (i % 1000),
        i % 2 ? 0 : 100 + (i % 50),
        100_000_000 + i,
        1_000_000 + i,
        95_000 + (i % 1000),
        txid,
        `${txid}:0`,
        script,
      );
    }
  });
  for (let i = 0; i < count; i += 100_000) batch(i, Math.min(count, i + 100_000));
  db.close();
}

/** A year of 30 s ticks ending now, with their bucket closes, as a year of the oracle leaves them. */
export function seedPrices(file: string, now: number): number {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const point = db.prepare('insert into price_points (timestamp, price_cents) values (?, ?)');
  const close = db.prepare(
    `insert into price_closes (interval_seconds, bucket, timestamp, price_cents)
     values (?, ?, ?, ?)
     on conflict (interval_seconds, bucket) do update
       set timestamp = excluded.timestamp, price_cents = excluded.price_cents`,
  );
  const end = Math.floor(now / TICK_SECONDS) * TICK_SECONDS;
  let cents = 9_500_000;
  let count = 0;
  const batch = db.transaction((from: number, to: number) => {
    for (let t = from; t < to && t <= end; t += TICK_SECONDS) {
      cents = Math.max(100_000, cents + ((t * 7919) % 2001) - 1000);
      point.run(t, cents);
      count++;
      for (const seconds of CLOSE_INTERVALS) close.run(seconds, t - (t % seconds), t, cents);
    }
  });
  const start = end - 365 * DAY;
  for (let t = start; t <= end; t += 100_000 * TICK_SECONDS) batch(t, t + 100_000 * TICK_SECONDS);
  db.close();
  return count;
}
