// A vault its owner leaves through the exit leaf, as the app, an open validator and a reindex see
// it (docs/protocol.md, "Leaving without the guardians"). The real guardian opens a vault of
// layout 2 on a real devnet (the settlement job is not running: the guardians are gone); once the
// chain passes the exit height, the owner signs the exit with the vault key alone and sends it.
// Only once it is mined does the block watcher's pass close the vault: `exited`, nothing left in
// it, history `e`. A validator started from nothing rebuilds it as `exited` with the same digest
// as the app's /api/ledger; a reindex on an empty database writes the same row and record; and the
// owner's key may open a new vault. A vault that was liquidated and that no one repossessed before
// its exit height is left the same way: closed `exited` with history `e`, its liquidation ended
// `exited` (no longer offered, a repossess of it refused), its owner told on Telegram, and the
// validator and a reindex see it as the app does (/network's comparison: they agree). Runs on SQLite, and on PostgreSQL with
// FLOW_DATABASE_URL.
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { hex } from '@scure/base';
import { p2tr, TEST_NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuneId } from '@unit/bitcoin';
import { signedExit } from '../guardian/exit-fixtures';
import { registerEsploraRoutes } from '../../src/devnet/esplora-routes';
import { devnetMigrations } from '../../src/devnet/migrations';
import { guardianMigrations } from '../../src/cosign';
import { accountMigrations } from '../../src/auth/migrations';
import { EXITED_CLAIM } from '../../src/cosign/actions';
import { DomainError } from '../../src/errors';
import { registerLedgerRoute } from '../../src/http/ledger';
import { registerLiquidationRoutes } from '../../src/http/liquidation';
import { validatorAgreement } from '../../src/http/validator-agreement';
import { TelegramHistory } from '../../src/notify/telegram-history';
import { TelegramOutbox } from '../../src/notify/telegram-outbox';
import { reindexFromChain, timedFetch } from '../../src/operator/reindex';
import { ownLeaves } from '../../src/operator/vault-leaves';
import {
  getLiquidation,
  getVault,
  getVaultByPubkey,
  listLiquidations,
  migrateToLatest,
  openStore,
  type VaultRow,
} from '../../src/store';
import { subscribeTelegram } from '../../src/store/telegram';
import { runValidator } from '../../src/validator/cli';
import { serveLedger } from '../../src/validator/serve';
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

/** The history `e` as both sides write it. */
const exitRecords = (db: Harness['store']['db'], vaultId: string) =>
  db
    .selectFrom('vault_history')
    .select(['action', 'timestamp', 'btc_amt', 'unit_amt', 'vault_amount', 'amount_borrowed'])
    .select(['oracle_price', 'transaction_id', 'utxo', 'utxo_script', 'confirmed'])
    .where('vault_id', '=', vaultId)
    .where('action', '=', 'e')
    .execute();

/** The code and words a guardian refused a request with. */
async function refusalOf(request: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await request;
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the request was not refused');
}

describe("an owner's exit, as the app, a validator and a reindex see it", () => {
  let h: Harness;
  let owner: TestWallet;
  let vault: VaultRow;
  /** Liquidated before its exit height, and repossessed by no one. */
  let debtor: TestWallet;
  let liquidated: VaultRow;
  let claimant: TestWallet;
  let exitTxid: string;
  let server: FastifyInstance;
  let ledgerAt: (height: number) => Promise<{ digest: string }>;
  let base: string;

  beforeAll(async () => {
    h = await startHarness();
    // The Telegram outbox's dedupe keys, which the owner's one message is queued under.
    await migrateToLatest(h.store.db, {
      ...{ ...devnetMigrations, ...guardianMigrations, ...accountMigrations },
    });
    owner = await h.wallet('exiting owner');
    debtor = await h.wallet('debtor');
    claimant = await h.wallet('claimant');
    await call(h.guardian, 'vault.open', (await owner.open(COLLATERAL, DEBT)).request);
    // At 161%: liquidated once the price falls to 79,000.00 USD, which leaves the others be.
    await call(h.guardian, 'vault.open', (await debtor.open(COLLATERAL, 59_000n)).request);
    await call(h.guardian, 'vault.open', (await claimant.open(5_000_000n, 10_000n)).request);
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    vault = (await getVaultByPubkey(h.store.db, owner.vaultPubkey))!;
    liquidated = (await getVaultByPubkey(h.store.db, debtor.vaultPubkey))!;
    h.clock.now += 10;
    const drop = await h.oracle.setPrice(7_900_000);
    expect(await h.guardian.onPriceTick(drop.priceCents, drop.timestamp)).toEqual([
      liquidated.vault_id,
    ]);
    server = Fastify();
    registerEsploraRoutes(server, h.devnet, '/esplora', () => true);
    ledgerAt = registerLedgerRoute(server, { db: h.store.db, chain: h.chain });
    registerLiquidationRoutes(server, h.store.db);
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
    while ((await h.chain.tip()).height < exitHeight) await h.devnet.mine(1);
    // Past its exit height and unspent: the pass leaves it as it is, and a liquidated one too.
    await h.guardian.onBlock();
    expect((await getVault(h.store.db, vault.vault_id))?.status).toBe('active');
    expect((await getVault(h.store.db, liquidated.vault_id))?.status).toBe('liquidated');

    const exit = await signedExit(h, owner, vault);
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

  it('closes a liquidated vault no one repossessed once its owner exits: no claim is left', async () => {
    expect(liquidated.exit_height).toBeLessThanOrEqual((await h.chain.tip()).height);
    const telegram = new TelegramHistory({
      ...{ db: h.store.db, network: 'devnet', explorerUrl: 'https://mempool.example' },
      outbox: new TelegramOutbox(null as never, h.store.db, pino({ level: 'silent' }), 10),
    });
    await subscribeTelegram(h.store.db, {
      ...{ address: liquidated.creation_account, chat_id: '7', network: 'devnet' },
    });
    await telegram.begin();
    const exit = await signedExit(h, debtor, liquidated);
    const txid = await h.chain.broadcast(exit.hex);
    // Waiting in the mempool, the exit already took the output from any claimant.
    const early = await claimant.repossess(debtor.vaultPubkey, liquidated.vault_id);
    expect(await refusalOf(call(h.guardian, 'vault.repossess', early.request))).toEqual({
      code: 'not_liquidated',
      message: EXITED_CLAIM,
    });
    expect((await getVault(h.store.db, liquidated.vault_id))?.status).toBe('liquidated');
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    expect(await getVault(h.store.db, liquidated.vault_id)).toMatchObject({
      ...{ status: 'exited', btc_locked: 0, unit_borrowed: 0 },
    });
    expect(await getLiquidation(h.store.db, liquidated.vault_id)).toMatchObject({
      ...{ status: 'exited', claimed_by: null, claim_txid: txid },
    });
    // The same record an active vault's exit writes: what it held, nothing left.
    expect(await exitRecords(h.store.db, liquidated.vault_id)).toEqual([
      {
        ...{ action: 'e', timestamp: (await h.chain.txStatus(txid))!.block_time! },
        ...{ btc_amt: Number(COLLATERAL), unit_amt: 59_000, vault_amount: 0, amount_borrowed: 0 },
        ...{ oracle_price: 0, transaction_id: txid, utxo: `${txid}:0`, confirmed: 1 },
        utxo_script: hex.encode(debtor.vaultWallet.satsScript),
      },
    ]);
    // No longer offered: listed as ended by the exit, and a repossess of it is refused.
    expect(
      (await listLiquidations(h.store.db)).find((l) => l.vault_id === liquidated.vault_id)?.status,
    ).toBe('exited');
    const { request } = await claimant.repossess(debtor.vaultPubkey, liquidated.vault_id);
    expect(await refusalOf(call(h.guardian, 'vault.repossess', request))).toEqual({
      code: 'not_liquidated',
      message: EXITED_CLAIM,
    });
    const record = await fetch(`${base}/api/vaults/${liquidated.vault_id}/liquidation`);
    expect(await record.json()).toMatchObject({
      status: 'exited',
      claimant: null,
      claim_txid: txid,
    });
    // Its owner is told once, in the words an active vault's exit gets.
    await telegram.scan();
    await telegram.scan();
    const texts = await h.store.db
      .selectFrom('telegram_outbox')
      .select(['chat_id', 'text'])
      .execute();
    expect(texts).toHaveLength(1);
    expect(texts[0]?.text.split('\n').slice(0, 2)).toEqual([
      'Vault exit confirmed',
      'This vault was closed by its exit.',
    ]);
    expect(texts[0]?.text).toContain(`Vault: ${liquidated.vault_id}`);
    // Back up, so the owner's next vault opens at the usual price.
    h.clock.now += 10;
    await h.oracle.setPrice(9_500_000);
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
    for (const { vault_id } of [vault, liquidated])
      expect(validator.ledgerAt(tip)?.find((v) => v.vaultId === vault_id)).toEqual({
        ...{ vaultId: vault_id, collateralSats: 0n, debt: 0n },
        status: 'exited',
      });
    const app = (await (await fetch(`${base}/api/ledger/${tip}`)).json()) as {
      digest: string;
      vaults: { vault_id: string; status: string }[];
    };
    expect(app.vaults.find((v) => v.vault_id === vault.vault_id)?.status).toBe('exited');
    expect(app.vaults.find((v) => v.vault_id === liquidated.vault_id)?.status).toBe('exited');
    expect(validator.digestAt(tip)).toBe(app.digest);
    // The exit's block too: the app and the validator agreed there, with no broken rule.
    const exitHeight = (await h.chain.txStatus(exitTxid))!.block_height!;
    const before = (await (await fetch(`${base}/api/ledger/${exitHeight - 1}`)).json()) as {
      digest: string;
    };
    expect(validator.digestAt(exitHeight - 1)).toBe(before.digest);
    expect(lines.filter((l) => /DISAGREES|broken-rule|unparseable/.test(l))).toEqual([]);
    // What /network says of a validator serving that ledger: it agrees with the app.
    const served = serveLedger(validator, 0);
    try {
      await new Promise<void>((r) => served.once('listening', () => r()));
      const url = `http://127.0.0.1:${(served.address() as AddressInfo).port}`;
      const agreement = validatorAgreement(
        [url],
        {
          tip: async () => (await h.chain.tip()).height,
          digestAt: async (at) => (await ledgerAt(at)).digest,
        },
        { cacheMs: 0, timeoutMs: 5_000 },
      );
      expect(await agreement()).toEqual([
        expect.objectContaining({ url, state: 'agrees', height: tip, problem: null }),
      ]);
    } finally {
      served.closeAllConnections();
      served.close();
    }
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
      // What the chain holds of the row (the label the owner typed, say, never was on it).
      const chainFacts = (row: VaultRow | null) => ({
        ...{ status: row?.status, btc_locked: row?.btc_locked, unit_borrowed: row?.unit_borrowed },
        ...{ vault_txid: row?.vault_txid, vault_vout: row?.vault_vout, stamp: row?.stamp },
        ...{ vault_pubkey: row?.vault_pubkey, threshold_cents: row?.threshold_cents },
        ...{ settle_height: row?.settle_height, exit_height: row?.exit_height },
      });
      // The liquidated one too: the liquidation is not on the chain, its owner's exit is.
      for (const { vault_id } of [vault, liquidated]) {
        expect(result.restored).toContain(vault_id);
        expect(chainFacts(await getVault(store.db, vault_id))).toEqual(
          chainFacts(await getVault(h.store.db, vault_id)),
        );
        expect(chainFacts(await getVault(store.db, vault_id)).status).toBe('exited');
        expect(await exitRecords(store.db, vault_id)).toEqual(
          await exitRecords(h.store.db, vault_id),
        );
      }
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
