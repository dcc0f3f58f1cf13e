// Lose the database, lose nothing: a signet server on the devnet playing the
// network, its keys from files; a vault is opened and borrowed on, a second only opened, the
// database is deleted, the server restarts on an empty one and rebuilds both vaults and their
// history from the chain's state records (the second's key from its opening's record, version 2),
// the second takes a deposit, and a liquidation still works, with the threshold secret re-derived
// from the key file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import { thresholdSecret, vaultOutput } from '@unit/bitcoin';
import type { Kysely } from 'kysely';
import { getVaultByPubkey, type Database } from '../../src/store';

/** A vault's history, oldest first. */
const listVaultHistory = (db: Kysely<Database>, vaultId: string) =>
  db
    .selectFrom('vault_history')
    .selectAll()
    .where('vault_id', '=', vaultId)
    .orderBy('id')
    .execute();
import { startTestApp, type RunningApp } from '../support';
import { startFakeFeed, type FakeFeed } from '../price-feeds';
import { dropSchema, newSchema, pgUrl, prepareBorrow, prepareOpen } from '../cluster/instances';
import { signetEnvFor } from './network';
import { runOperator } from '../../src/operator/cli';
import { deposit } from './deposit';

let network: RunningApp;
let feeds: FakeFeed[];
let env: Record<string, string>;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-reindex-'));

beforeAll(async () => {
  network = await startTestApp(
    {},
    { devnetWriteLimitPerMinute: 10_000, writeLimitPerMinute: 10_000 },
  );
  feeds = [
    await startFakeFeed('mempool', { answer: 'price', usd: '95000' }),
    await startFakeFeed('kraken', { answer: 'price', usd: '95000' }),
  ];
  env = {
    ...signetEnvFor(network.url, {
      unitRuneId: network.devnet!.unitRuneId,
      guardianKey: bytesToHex(network.keys.guardianSecretKey),
    }),
    DATA_DIR: dataDir,
    PRICE_FEEDS: feeds.map((f) => f.entry).join(','),
    PRICE_TICK: '1000',
  };
});

afterAll(async () => {
  await network.stop();
  for (const feed of feeds) await feed.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Where the signet server keeps its database, and how that database is lost. */
interface Backend {
  env: Record<string, string>;
  schema?: string;
  lose(): Promise<void>;
}

const sqlite: Backend = {
  env: {},
  lose: async () => {
    for (const suffix of ['', '-wal', '-shm'])
      fs.rmSync(path.join(dataDir, `unit.db${suffix}`), { force: true });
  },
};

let backend = sqlite;

/** The signet server; `devnet` borrowed from the network for the tests' faucet and blocks. */
async function startSignet() {
  const server = await startTestApp(
    { ...env, ...backend.env },
    { writeLimitPerMinute: 10_000, ...(backend.schema ? { databaseSchema: backend.schema } : {}) },
  );
  for (let i = 0; i < 100 && server.oracle.latest() === null; i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return { server, via: { ...server, devnet: network.devnet } as RunningApp };
}

async function loseTheDatabase() {
  let { server, via } = await startSignet();
  let vaultId: string;
  let vaultPubkey: string;
  let secondOwner: Awaited<ReturnType<typeof prepareOpen>>['owner'];
  let before: Awaited<ReturnType<typeof listVaultHistory>>;
  let secondBefore: NonNullable<Awaited<ReturnType<typeof getVaultByPubkey>>>;
  let secondHistory: Awaited<ReturnType<typeof listVaultHistory>>;
  try {
    const open = await prepareOpen(via, 2_000_000n, 20_000n);
    ({ vaultId } = await open.submit());
    open.close();
    vaultPubkey = open.owner.vaultPubkey;
    await network.devnet!.mine(1);
    const borrow = await prepareBorrow(via, open.owner, 30_000n);
    await borrow.submit();
    borrow.close();
    // A second vault, opened and never spent since: only its opening's record names its key.
    const unspent = await prepareOpen(via, 1_000_000n, 10_000n);
    await unspent.submit();
    unspent.close();
    secondOwner = unspent.owner;
    await network.devnet!.mine(1);
    await server.guardian.onBlock();
    before = await listVaultHistory(server.store.db, vaultId);
    secondBefore = (await getVaultByPubkey(server.store.db, secondOwner.vaultPubkey))!;
    secondHistory = await listVaultHistory(server.store.db, secondBefore.vault_id);
  } finally {
    await server.stop();
  }
  const row = { vaultId, vaultPubkey };
  expect(before.map((h) => h.action)).toEqual(['o', 'b']);
  expect(secondHistory.map((h) => h.action)).toEqual(['o']);

  // The database is gone; the key files are not.
  await backend.lose();
  ({ server, via } = await startSignet());
  try {
    const vault = (await getVaultByPubkey(server.store.db, row.vaultPubkey))!;
    expect(vault).toMatchObject({
      vault_id: row.vaultId,
      status: 'active',
      btc_locked: 2_000_000,
      unit_borrowed: 50_000,
      vault_vout: 0,
    });
    const history = await listVaultHistory(server.store.db, row.vaultId);
    const shape = (h: (typeof history)[number]) => ({
      action: h.action,
      btc_amt: h.btc_amt,
      unit_amt: h.unit_amt,
      vault_amount: h.vault_amount,
      amount_borrowed: h.amount_borrowed,
      oracle_price: h.oracle_price,
      transaction_id: h.transaction_id,
      utxo: h.utxo,
      utxo_script: h.utxo_script,
      confirmed: Boolean(h.confirmed),
    });
    expect(history.map(shape)).toEqual(before.map(shape));

    // The vault never spent since its opening is back as it was (its label excepted: never on
    // the chain), and acts: a deposit spends its output with the key its opening recorded.
    const second = (await getVaultByPubkey(server.store.db, secondOwner.vaultPubkey))!;
    const fields = (v: typeof second) => ({
      vault_id: v.vault_id,
      vault_pubkey: v.vault_pubkey,
      status: v.status,
      btc_locked: v.btc_locked,
      unit_borrowed: v.unit_borrowed,
      vault_txid: v.vault_txid,
      vault_vout: v.vault_vout,
      threshold_cents: v.threshold_cents,
      stamp: Number(v.stamp),
      creation_account: v.creation_account,
      runes_account: v.runes_account,
    });
    expect(fields(second)).toEqual(fields(secondBefore));
    expect((await listVaultHistory(server.store.db, second.vault_id)).map(shape)).toEqual(
      secondHistory.map(shape),
    );
    const deposited = await deposit(via, secondOwner, 50_000n);
    expect(await getVaultByPubkey(server.store.db, secondOwner.vaultPubkey)).toMatchObject({
      vault_id: second.vault_id,
      vault_txid: deposited.vault_txid,
      btc_locked: second.btc_locked + 50_000,
    });
    await network.devnet!.mine(1);

    // A liquidation at a price under its threshold: recorded with the hash the vault's
    // liquidation leaf commits to, from a secret the key file re-derives.
    const liquidated = await server.guardian.onPriceTick(
      Number(vault.threshold_cents) - 100,
      Math.floor(Date.now() / 1000),
    );
    expect(liquidated).toContain(row.vaultId);
    const after = (await getVaultByPubkey(server.store.db, row.vaultPubkey))!;
    expect(after.status).toBe('liquidated');
    const keyFile = JSON.parse(fs.readFileSync(env.ORACLE_KEY_FILE!, 'utf8')) as {
      oracle_secret: string;
    };
    const secret = thresholdSecret(
      hex.decode(keyFile.oracle_secret),
      BigInt(vault.threshold_cents),
      Number(vault.stamp),
    );
    const output = vaultOutput({
      vaultPubkey: hex.decode(row.vaultPubkey),
      guardPubkey: hex.decode(server.keys.guardPubkey),
      thresholdHash: hash160(secret),
      network: TEST_NETWORK,
    });
    const onChain = (await server.chain.output(vault.vault_txid, 0))!;
    expect(onChain.script_hex).toBe(hex.encode(output.script));
    const last = (await listVaultHistory(server.store.db, row.vaultId)).at(-1)!;
    expect(last.action).toBe('l');
    expect(last.liquidation_hash).toBe(hex.encode(hash160(secret)));
  } finally {
    await server.stop();
  }
}

describe('a server whose database is gone', () => {
  it('rebuilds the vaults and their history from the chain (one never spent since its opening, which then takes a deposit), and can still liquidate', async () => {
    backend = sqlite;
    await loseTheDatabase();
  }, 120_000);

  it('npm run reindex does the same before a start, and leaves known vaults alone', async () => {
    for (const suffix of ['', '-wal', '-shm'])
      fs.rmSync(path.join(dataDir, `unit.db${suffix}`), { force: true });
    const said: string[] = [];
    await runOperator(['reindex'], env, (line) => said.push(line), 50);
    expect(said).toEqual(['reindex: 2 vaults restored, 0 already known']);
    const again: string[] = [];
    await runOperator(['reindex'], env, (line) => again.push(line), 50);
    expect(again).toEqual(['reindex: 0 vaults restored, 2 already known']);
  });
});

describe.skipIf(!pgUrl)('a server whose PostgreSQL database is gone', () => {
  it('rebuilds the vaults and their history from the chain (one never spent since its opening, which then takes a deposit), and can still liquidate', async () => {
    const schema = newSchema('reindex');
    backend = { env: { DATABASE_URL: pgUrl! }, schema, lose: () => dropSchema(schema) };
    try {
      await loseTheDatabase();
    } finally {
      await dropSchema(schema);
    }
  }, 120_000);
});
