// Lose the database, lose nothing (issue 21 item 4): a signet server on the devnet playing the
// network, its keys from files; a vault is opened and borrowed on, the database is deleted, the
// server restarts on an empty one and rebuilds the vault and its history from the chain's state
// records, and a liquidation still works, with the threshold secret re-derived from the key file.
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
  let secondPubkey: string;
  let before: Awaited<ReturnType<typeof listVaultHistory>>;
  try {
    const open = await prepareOpen(via, 2_000_000n, 20_000n);
    ({ vaultId } = await open.submit());
    open.close();
    vaultPubkey = open.owner.vaultPubkey;
    await network.devnet!.mine(1);
    const borrow = await prepareBorrow(via, open.owner, 30_000n);
    await borrow.submit();
    borrow.close();
    // A second vault, opened and never spent since: its key is not on the chain yet.
    const unspent = await prepareOpen(via, 1_000_000n, 10_000n);
    const second = await unspent.submit();
    unspent.close();
    secondPubkey = second.vaultPubkey;
    await network.devnet!.mine(1);
    await server.guardian.onBlock();
    before = await listVaultHistory(server.store.db, vaultId);
  } finally {
    await server.stop();
  }
  const row = { vaultId, vaultPubkey, secondPubkey };
  expect(before.map((h) => h.action)).toEqual(['o', 'b']);

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
    // Known limit: the vault whose key the chain does not show is reported, not restored.
    expect(await getVaultByPubkey(server.store.db, row.secondPubkey)).toBeNull();
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
  it('rebuilds the vault and its history from the chain, and can still liquidate it', async () => {
    backend = sqlite;
    await loseTheDatabase();
  }, 120_000);

  it('npm run reindex does the same before a start, and leaves known vaults alone', async () => {
    for (const suffix of ['', '-wal', '-shm'])
      fs.rmSync(path.join(dataDir, `unit.db${suffix}`), { force: true });
    const said: string[] = [];
    await runOperator(['reindex'], env, (line) => said.push(line), 50);
    expect(said[0]).toBe('reindex: 1 vaults restored, 0 already known');
    expect(said.slice(1)).toEqual([
      expect.stringMatching(
        /^ {2}[0-9a-f]{64}: opened, never spent since; its key is not on the chain yet$/,
      ),
    ]);
    const again: string[] = [];
    await runOperator(['reindex'], env, (line) => again.push(line), 50);
    expect(again[0]).toBe('reindex: 0 vaults restored, 1 already known');
  });
});

describe.skipIf(!pgUrl)('a server whose PostgreSQL database is gone', () => {
  it('rebuilds the vault and its history from the chain, and can still liquidate it', async () => {
    const schema = newSchema('reindex');
    backend = { env: { DATABASE_URL: pgUrl! }, schema, lose: () => dropSchema(schema) };
    try {
      await loseTheDatabase();
    } finally {
      await dropSchema(schema);
    }
  }, 120_000);
});
