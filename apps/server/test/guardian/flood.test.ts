// Over the real server: an attacker with no key and no funds floods
// `unit.reserve` from many keys, sockets and loopback addresses, with the /guardian socket's default
// limits, while a funded user opens a vault through the devnet faucet and the WebSocket. The open
// takes one try. (`npm run probe` runs the same flood bigger and prints the count.)
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getVaultByPubkey } from '../../src/store';
import { floodWhileOpening } from '../../scripts/reserve-flood';
import { startTestApp, type RunningApp } from '../support';
import { dropSchema } from './harness';

describe('a reserve flood against a funded user’s open', () => {
  let unit: RunningApp;
  // The flow suite's database: PostgreSQL when FLOW_DATABASE_URL is set, else SQLite.
  const pg = process.env.FLOW_DATABASE_URL;
  const schema = `flood_${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    unit = await startTestApp(pg ? { DATABASE_URL: pg } : {}, pg ? { databaseSchema: schema } : {});
  });
  afterAll(async () => {
    await unit.stop();
    if (pg) await dropSchema(pg, schema);
  });

  it('opens the vault on the first try', async () => {
    const report = await floodWhileOpening({
      baseUrl: unit.url,
      attackerAddresses: 4,
      socketsPerAddress: 4,
      maxCalls: 400,
      maxTries: 3,
      deadlineMs: 45_000,
    });
    expect(report.failures).toEqual([]);
    expect(report.tries).toBe(1);
    // The flood was real: far more reservations than the treasury has outputs.
    expect(report.attackerReservations).toBeGreaterThan(8 * 4);
    const [vault] = await unit.store.db
      .selectFrom('vaults')
      .selectAll()
      .where('vault_txid', '=', report.vaultTxid!)
      .execute();
    expect(vault?.status).toBe('active');
    expect(await getVaultByPubkey(unit.store.db, vault!.vault_pubkey)).toMatchObject({
      btc_locked: 1_000_000,
      unit_borrowed: 50_000,
    });
  }, 60_000);
});
