// A vault its owner leaves through the exit leaf, as the app, an open validator and a reindex see
// it (docs/protocol.md, "Leaving without the guardians"). The real guardian opens a vault of
// layout 2 on a real devnet (the settlement job is not running: the guardians are gone); once the
// chain passes the exit height, the owner signs the exit with the vault key alone and sends it.
// Only once it is mined does the block watcher's pass close the vault: `exited`, nothing left in
// it, history `e`. A validator started from nothing rebuilds it as `exited` with the same digest
// as the app's /api/ledger; a reindex on an empty database writes the same row and record; and the
// owner's key may open a new vault. Runs on SQLite, and on PostgreSQL with FLOW_DATABASE_URL.
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { hex } from '@scure/base';
import { p2tr, TEST_NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseRuneId,
  parseStateRecordScript,
  parseTransaction,
  planExit,
  signExit,
} from '@unit/bitcoin';
import { registerEsploraRoutes } from '../../src/devnet/esplora-routes';
import { devnetMigrations } from '../../src/devnet/migrations';
import { guardianMigrations } from '../../src/cosign';
import { registerLedgerRoute } from '../../src/http/ledger';
import { reindexFromChain, timedFetch } from '../../src/operator/reindex';
import { ownLeaves } from '../../src/operator/vault-leaves';
import {
  getVault,
  getVaultByPubkey,
  migrateToLatest,
  openStore,
  type VaultRow,
} from '../../src/store';
import { runValidator } from '../../src/validator/cli';
import {
  call,
  GUARDIAN_KEY,
  startHarness,
  TREASURY_KEY,
  type Harness,
  type TestWallet,
} from '../guardian/harness';

const COLLATERAL = 1_000_000n;
const DEBT = 50_000n;
const FEE_RATE = 2;

/** The history `e` as both sides write it. */
const exitRecords = (db: Harness['store']['db'], vaultId: string) =>
  db
    .selectFrom('vault_history')
    .select(['action', 'timestamp', 'btc_amt', 'unit_amt', 'vault_amount', 'amount_borrowed'])
    .select(['oracle_price', 'transaction_id', 'utxo', 'utxo_script', 'confirmed'])
    .where('vault_id', '=', vaultId)
    .where('action', '=', 'e')
    .execute();

describe("an owner's exit, as the app, a validator and a reindex see it", () => {
  let h: Harness;
  let owner: TestWallet;
  let vault: VaultRow;
  let exitTxid: string;
  let server: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    h = await startHarness();
    owner = await h.wallet('exiting owner');
    await call(h.guardian, 'vault.open', (await owner.open(COLLATERAL, DEBT)).request);
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    vault = (await getVaultByPubkey(h.store.db, owner.vaultPubkey))!;
    server = Fastify();
    registerEsploraRoutes(server, h.devnet, '/esplora', () => true);
    registerLedgerRoute(server, { db: h.store.db, chain: h.chain });
    await server.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  it('closes the vault once the exit is mined, not while it waits in the mempool', async () => {
    expect(vault).toMatchObject({ status: 'active', btc_locked: Number(COLLATERAL) });
    const exitHeight = vault.exit_height!;
    // The opening's record carries the exit leaf's sibling: the chain alone gives the exit.
    const opening = parseTransaction((await h.chain.txHex(vault.vault_txid))!);
    const record = [...Array(opening.outputsLength).keys()]
      .map((i) => parseStateRecordScript(opening.getOutput(i).script!))
      .find((r) => r !== null)!;
    while ((await h.chain.tip()).height < exitHeight) await h.devnet.mine(1);
    // Past its exit height and unspent: the pass leaves it as it is.
    await h.guardian.onBlock();
    expect((await getVault(h.store.db, vault.vault_id))?.status).toBe('active');

    const output = (await h.chain.output(vault.vault_txid, vault.vault_vout))!;
    const plan = planExit({
      vaultPubkey: pubSchnorr(owner.vaultKey),
      exitHeight,
      exitBranch: record.term!.exitBranch,
      utxo: {
        ...{ txid: vault.vault_txid, vout: vault.vault_vout },
        ...{ script: hex.decode(output.script_hex), amount: BigInt(output.value) },
      },
      toAddress: owner.paymentAddress,
      feeRate: FEE_RATE,
      tipHeight: (await h.chain.tip()).height,
      network: TEST_NETWORK,
    });
    const exit = signExit(plan, owner.vaultKey);
    exitTxid = await h.chain.broadcast(exit.hex);
    await h.guardian.onBlock();
    expect((await getVault(h.store.db, vault.vault_id))?.status).toBe('active');

    await h.devnet.mine(1);
    await h.guardian.onBlock();
    expect(await getVault(h.store.db, vault.vault_id)).toMatchObject({
      ...{ status: 'exited', btc_locked: 0, unit_borrowed: 0 },
      ...{ vault_txid: vault.vault_txid, exit_height: exitHeight },
    });
    const blockTime = (await h.chain.txStatus(exitTxid))!.block_time!;
    expect(await exitRecords(h.store.db, vault.vault_id)).toEqual([
      {
        ...{ action: 'e', timestamp: blockTime, btc_amt: Number(COLLATERAL) },
        ...{ unit_amt: Number(DEBT), vault_amount: 0, amount_borrowed: 0, oracle_price: 0 },
        ...{ transaction_id: exitTxid, utxo: `${exitTxid}:0`, confirmed: 1 },
        utxo_script: hex.encode(owner.vaultWallet.satsScript),
      },
    ]);
    // The next block changes nothing: the vault is closed once.
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    expect(await exitRecords(h.store.db, vault.vault_id)).toHaveLength(1);
  }, 120_000);

  it('is rebuilt as exited by an open validator, with the digest the app serves', async () => {
    const tip = (await h.chain.tip()).height;
    const lines: string[] = [];
    const validator = await runValidator(
      {
        chain: `${base}/esplora`,
        treasuryScripts: [p2tr(pubSchnorr(TREASURY_KEY)).script],
        unitRuneId: parseRuneId(h.devnet.unitRuneId),
        serve: null,
        compare: base,
        until: tip,
        pollMs: 0,
      },
      (line) => lines.push(line),
    );
    expect(validator.ledgerAt(tip)?.find((v) => v.vaultId === vault.vault_id)).toEqual({
      ...{ vaultId: vault.vault_id, collateralSats: 0n, debt: 0n },
      status: 'exited',
    });
    const app = (await (await fetch(`${base}/api/ledger/${tip}`)).json()) as {
      digest: string;
      vaults: { vault_id: string; status: string }[];
    };
    expect(app.vaults.find((v) => v.vault_id === vault.vault_id)?.status).toBe('exited');
    expect(validator.digestAt(tip)).toBe(app.digest);
    // The exit's block too: the app and the validator agreed there, with no broken rule.
    const exitHeight = (await h.chain.txStatus(exitTxid))!.block_height!;
    const before = (await (await fetch(`${base}/api/ledger/${exitHeight - 1}`)).json()) as {
      digest: string;
    };
    expect(validator.digestAt(exitHeight - 1)).toBe(before.digest);
    expect(lines.filter((l) => /DISAGREES|broken-rule|unparseable/.test(l))).toEqual([]);
  }, 120_000);

  it('is rebuilt as exited by a reindex from the chain on an empty database', async () => {
    const store = await openStore({ file: ':memory:' });
    try {
      await migrateToLatest(store.db, { ...devnetMigrations, ...guardianMigrations });
      const result = await reindexFromChain({
        db: store.db,
        esploraUrl: `${base}/esplora`,
        fetch: timedFetch,
        treasuryAddresses: [h.guardian.treasuryAddress],
        leaves: ownLeaves({
          guardPubkey: pubSchnorr(GUARDIAN_KEY),
          thresholdHash: (th, stamp) => h.oracle.thresholdHash(th, stamp),
          network: TEST_NETWORK,
        }),
        now: () => Math.floor(Date.now() / 1000),
        log: { info: () => undefined, warn: () => undefined },
      });
      expect(result.restored).toContain(vault.vault_id);
      // What the chain holds of the row (the label the owner typed, say, never was on it).
      const chainFacts = (row: VaultRow | null) => ({
        ...{ status: row?.status, btc_locked: row?.btc_locked, unit_borrowed: row?.unit_borrowed },
        ...{ vault_txid: row?.vault_txid, vault_vout: row?.vault_vout, stamp: row?.stamp },
        ...{ vault_pubkey: row?.vault_pubkey, threshold_cents: row?.threshold_cents },
        ...{ settle_height: row?.settle_height, exit_height: row?.exit_height },
      });
      expect(chainFacts(await getVault(store.db, vault.vault_id))).toEqual(
        chainFacts(await getVault(h.store.db, vault.vault_id)),
      );
      expect(chainFacts(await getVault(store.db, vault.vault_id)).status).toBe('exited');
      expect(await exitRecords(store.db, vault.vault_id)).toEqual(
        await exitRecords(h.store.db, vault.vault_id),
      );
    } finally {
      await store.close();
    }
  }, 120_000);

  it("frees the owner's key: it opens a new vault", async () => {
    await call(h.guardian, 'vault.open', (await owner.open(COLLATERAL, DEBT)).request);
    await h.devnet.mine(1);
    const next = (await getVaultByPubkey(h.store.db, owner.vaultPubkey))!;
    expect(next.vault_id).not.toBe(vault.vault_id);
    expect(next.status).toBe('active');
    expect((await getVault(h.store.db, vault.vault_id))?.status).toBe('exited');
  }, 120_000);
});
