// A repossession and the liquidated vault's owner's exit race for the same output (docs/protocol.md,
// "Leaving without the guardians"). On a real devnet with the real guardian: two vaults are
// liquidated and the chain passes their exit height. A claimant repossesses the first, which the
// app records when the transaction is sent; its owner's exit, at a higher fee, replaces the
// repossession in the devnet's mempool (BIP-125) and is mined. The block watcher's pass then
// settles the race from the chain (not while the chain does not answer): the vault `exited` with
// history `e`, its liquidation `exited` with the exit and no claimant, the claimant's vault back on
// the output it still has. The claimant's repossession of the second vault is undone by its own
// wallet spending the coin that paid it: once that spend is mined the vault is offered again, and
// the claimant's next repossession of it, mined, stays. An open validator rebuilt from the chain
// agrees with the app's ledger. Runs on SQLite, and on PostgreSQL with FLOW_DATABASE_URL (the
// flows-postgres project).
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { hex } from '@scure/base';
import { p2tr, Transaction } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ExitEsplora,
  parseRuneId,
  parseTransaction,
  pendingClaimSentence,
  readVaultExit,
} from '@unit/bitcoin';
import type { VaultTxResult } from '@unit/protocol';
import { accountMigrations } from '../../src/auth/migrations';
import { ChainUnavailableError, type Chain } from '../../src/chain/port';
import { guardianMigrations } from '../../src/cosign';
import { devnetMigrations } from '../../src/devnet/migrations';
import { registerEsploraRoutes } from '../../src/devnet/esplora-routes';
import { registerLedgerRoute } from '../../src/http/ledger';
import { registerTransactionFateRoute } from '../../src/http/transaction-fate';
import { runExit } from '../../src/exit/run';
import { TelegramHistory } from '../../src/notify/telegram-history';
import { TelegramOutbox } from '../../src/notify/telegram-outbox';
import {
  EXIT_WON_REASON,
  getLiquidation,
  getVault,
  getVaultByPubkey,
  listLiquidations,
  migrateToLatest,
  vaultHistory,
  type VaultRow,
} from '../../src/store';
import { subscribeTelegram } from '../../src/store/telegram';
import { runValidator } from '../../src/validator/cli';
import { call, startHarness, TREASURY_KEY, type Harness, type TestWallet } from './harness';
import { signedExit } from './exit-fixtures';

const COLLATERAL = 1_000_000n;
const DEBT = 59_000n;

/** What the chain holds of a vault's row: its output, amounts and term. */
const onChain = (row: VaultRow | null) => ({
  ...{ status: row?.status, btc_locked: row?.btc_locked, unit_borrowed: row?.unit_borrowed },
  ...{ vault_txid: row?.vault_txid, vault_vout: row?.vault_vout, stamp: row?.stamp },
  ...{ threshold_cents: row?.threshold_cents },
  ...{ settle_height: row?.settle_height, exit_height: row?.exit_height },
});

/** Outputs whose spender the chain does not tell the guardian (a time-out of the outspend read). */
const unanswered = new Set<string>();
/** What the guardian logged, warnings and worse. */
const logs: string[] = [];

/** The devnet as the guardian reads it, but silent on the outspend of the outputs in `unanswered`. */
const silentOn = (chain: Chain): Chain =>
  new Proxy(chain, {
    get(target, prop, receiver) {
      if (prop === 'spender')
        return async (txid: string, vout: number) => {
          if (unanswered.has(`${txid}:${vout}`))
            throw new ChainUnavailableError(`GET /tx/${txid}/outspend/${vout}: timed out`);
          return target.spender(txid, vout);
        };
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });

/** A spend of the wallet's payment coin `txid:vout` back to itself at a high fee (BIP-125). */
async function spendCoin(h: Harness, wallet: TestWallet, txid: string, vout: number) {
  const coin = (await h.chain.output(txid, vout))!;
  const tx = new Transaction();
  tx.addInput({
    ...{ txid, index: vout, sequence: 0xfffffffd },
    witnessUtxo: { script: wallet.vaultWallet.satsScript, amount: BigInt(coin.value) },
  });
  tx.addOutput({ script: wallet.vaultWallet.satsScript, amount: BigInt(coin.value) - 100_000n });
  tx.signIdx(wallet.paymentKey, 0);
  tx.finalize();
  return h.chain.broadcast(tx.hex);
}

describe("a repossession and the owner's exit race for a liquidated vault", () => {
  let h: Harness;
  let raced: TestWallet;
  let kept: TestWallet;
  let claimant: TestWallet;
  let racedVault: VaultRow;
  let keptVault: VaultRow;
  let server: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    h = await startHarness(
      silentOn,
      undefined,
      pino({ level: 'warn' }, { write: (l) => logs.push(l) }),
    );
    await migrateToLatest(h.store.db, {
      ...{ ...devnetMigrations, ...guardianMigrations, ...accountMigrations },
    });
    raced = await h.wallet('raced debtor');
    kept = await h.wallet('kept debtor');
    claimant = await h.wallet('claimant');
    // At 161%: both liquidated once the price falls to 79,000.00 USD.
    await call(h.guardian, 'vault.open', (await raced.open(COLLATERAL, DEBT)).request);
    await call(h.guardian, 'vault.open', (await kept.open(COLLATERAL, DEBT)).request);
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    racedVault = (await getVaultByPubkey(h.store.db, raced.vaultPubkey))!;
    keptVault = (await getVaultByPubkey(h.store.db, kept.vaultPubkey))!;
    h.clock.now += 10;
    const drop = await h.oracle.setPrice(7_900_000);
    expect((await h.guardian.onPriceTick(drop.priceCents, drop.timestamp)).sort()).toEqual(
      [racedVault.vault_id, keptVault.vault_id].sort(),
    );
    // Past both exit heights: the owners may leave, and no one repossessed yet.
    const exitHeight = Math.max(racedVault.exit_height!, keptVault.exit_height!);
    while ((await h.chain.tip()).height < exitHeight) await h.devnet.mine(1);
    // The claimant's vault opens now, so its own term is far off.
    await call(h.guardian, 'vault.open', (await claimant.open(5_000_000n, 10_000n)).request);
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    server = Fastify();
    registerEsploraRoutes(server, h.devnet, '/esplora', () => true);
    registerLedgerRoute(server, { db: h.store.db, chain: h.chain });
    registerTransactionFateRoute(server, h.store.db);
    await server.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  }, 240_000);
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  it("settles the race the chain's way when the owner's exit replaced the repossession", async () => {
    const before = (await getVaultByPubkey(h.store.db, claimant.vaultPubkey))!;
    const { request } = await claimant.repossess(raced.vaultPubkey, racedVault.vault_id);
    const { vault_txid: claimTxid } = await call<VaultTxResult>(
      h.guardian,
      'vault.repossess',
      request,
    );
    // Recorded when sent: the app says repossessed while the chain has it in the mempool only.
    expect((await getVault(h.store.db, racedVault.vault_id))?.status).toBe('repossessed');
    expect((await getVault(h.store.db, before.vault_id))?.vault_txid).toBe(claimTxid);
    expect(await h.chain.txStatus(claimTxid)).toMatchObject({ confirmed: false });
    const fate = async () => (await fetch(`${base}/api/transactions/${claimTxid}`)).json();
    expect(await fate()).toMatchObject({ status: 'pending', cause: null });
    // The owner's exit tool stops at the vault's output and names the claim it must outbid.
    const read = await readVaultExit(new ExitEsplora(`${base}/esplora`), racedVault.vault_id);
    expect(read.utxo).toMatchObject({ txid: racedVault.vault_txid, vout: racedVault.vault_vout });
    expect(read.pendingClaim?.txid).toBe(claimTxid);
    // the exit below outbids it at 50 sat/vB
    expect(read.pendingClaim?.feeRate).toBeGreaterThan(0);
    expect(read.pendingClaim!.feeRate!).toBeLessThan(50);
    const byAddress = await readVaultExit(new ExitEsplora(`${base}/esplora`), read.address);
    expect(byAddress.pendingClaim?.txid).toBe(claimTxid);
    expect(byAddress.utxo.txid).toBe(racedVault.vault_txid);
    // The command says the claim waits, and that 2 sat/vB would not replace it.
    const { lines } = await runExit({
      ...{ chain: `${base}/esplora`, vault: racedVault.vault_id, pubkey: raced.vaultPubkey },
      to: raced.paymentAddress,
    });
    expect(lines).toContain(`claim          ${pendingClaimSentence(read.pendingClaim!)}`);
    expect(lines.at(-1)).toMatch(
      /^replaces {7}not the waiting claim at this fee rate: give --fee-rate \d+ or more, or the chain keeps the claim\.$/,
    );

    const telegram = new TelegramHistory({
      ...{ db: h.store.db, network: 'devnet', explorerUrl: 'https://mempool.example' },
      outbox: new TelegramOutbox(null as never, h.store.db, pino({ level: 'silent' }), 10),
    });
    await subscribeTelegram(h.store.db, {
      ...{ address: racedVault.creation_account, chat_id: '7', network: 'devnet' },
    });
    await telegram.begin();

    // The owner's exit at a higher fee takes the repossession's place in the mempool.
    const exit = await signedExit(h, raced, racedVault, 50);
    const exitTxid = await h.chain.broadcast(exit.hex);
    expect(await h.chain.txStatus(claimTxid)).toBeNull();
    // Only a mined exit counts: while it waits, nothing changes.
    await h.guardian.onBlock();
    expect((await getVault(h.store.db, racedVault.vault_id))?.status).toBe('repossessed');

    await h.devnet.mine(1);
    // The chain does not say who spent the output: nothing changes, the log says why.
    const output = `${racedVault.vault_txid}:${racedVault.vault_vout}`;
    unanswered.add(output);
    await h.guardian.onBlock();
    unanswered.delete(output);
    expect((await getVault(h.store.db, racedVault.vault_id))?.status).toBe('repossessed');
    const silent = logs.map((l) => JSON.parse(l) as Record<string, unknown>).at(-1)!;
    expect(silent).toMatchObject({ vault: racedVault.vault_id, claim: claimTxid });
    expect(silent.msg).toMatch(/did not answer, asked again next block/);
    for (const key of [claimant.vaultKey, claimant.paymentKey, raced.vaultKey])
      expect(logs.join('\n')).not.toContain(hex.encode(key));

    await h.guardian.onBlock();
    expect(await getVault(h.store.db, racedVault.vault_id)).toMatchObject({
      ...{ status: 'exited', btc_locked: 0, unit_borrowed: 0 },
    });
    expect(await getLiquidation(h.store.db, racedVault.vault_id)).toMatchObject({
      ...{ status: 'exited', claimed_by: null, claim_txid: exitTxid },
    });
    const history = await vaultHistory(h.store.db, racedVault.vault_id);
    expect(history.map((r) => [r.action, r.transaction_id, r.confirmed])).toEqual(
      expect.arrayContaining([['e', exitTxid, 1]]),
    );
    expect(history.filter((r) => r.action === 'x')).toEqual([]);
    expect(history.find((r) => r.action === 'e')).toMatchObject({
      ...{ btc_amt: Number(COLLATERAL), unit_amt: Number(DEBT), vault_amount: 0 },
      ...{ utxo: `${exitTxid}:0`, utxo_script: hex.encode(raced.vaultWallet.satsScript) },
    });
    // The claimant's vault is the one the chain holds, with nothing of the repossession left.
    expect(onChain(await getVault(h.store.db, before.vault_id))).toEqual(onChain(before));
    expect(await h.chain.spender(before.vault_txid, before.vault_vout)).toBeNull();
    const claimantHistory = await vaultHistory(h.store.db, before.vault_id);
    expect(claimantHistory.filter((r) => r.transaction_id === claimTxid)).toEqual([]);
    const requestRow = await h.store.db
      .selectFrom('guardian_requests')
      .select(['state', 'error'])
      .where('txid', '=', claimTxid)
      .executeTakeFirst();
    expect(requestRow).toEqual({ state: 'failed', error: EXIT_WON_REASON });
    // The claimant's browser learns it, and drops its pending entry.
    expect(await fate()).toEqual({
      ...{ txid: claimTxid, status: 'failed', cause: 'exit', reason: EXIT_WON_REASON },
    });
    // Listed as ended by the exit, not repossessed.
    expect(
      (await listLiquidations(h.store.db)).find((l) => l.vault_id === racedVault.vault_id),
    ).toMatchObject({ status: 'exited' });
    // Its owner is told once, in the words any exit gets.
    await telegram.scan();
    await telegram.scan();
    const texts = await h.store.db.selectFrom('telegram_outbox').select(['text']).execute();
    expect(texts.map((t) => t.text.split('\n')[0])).toEqual(['Vault exit confirmed']);
    // The next block changes nothing.
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    expect((await vaultHistory(h.store.db, racedVault.vault_id)).length).toBe(history.length);
  }, 120_000);

  it('offers the vault again when another mined spend of its input undid the repossession', async () => {
    const before = (await getVaultByPubkey(h.store.db, claimant.vaultPubkey))!;
    const { request } = await claimant.repossess(kept.vaultPubkey, keptVault.vault_id);
    const { vault_txid: claimTxid } = await call<VaultTxResult>(
      h.guardian,
      'vault.repossess',
      request,
    );
    // The claimant's wallet spends the coin that paid the repossession, at a higher fee.
    const sent = parseTransaction((await h.chain.txHex(claimTxid))!);
    const paid = [...Array(sent.inputsLength).keys()].map((i) => sent.getInput(i));
    const coins = await Promise.all(paid.map((i) => h.chain.output(hex.encode(i.txid!), i.index!)));
    const coin = paid[coins.findIndex((c) => c?.address === claimant.paymentAddress)]!;
    await spendCoin(h, claimant, hex.encode(coin.txid!), coin.index!);
    expect(await h.chain.txStatus(claimTxid)).toBeNull();
    // Waiting in the mempool, the spend may still go: the repossession is sent again, refused.
    await h.guardian.onBlock();
    expect((await getVault(h.store.db, keptVault.vault_id))?.status).toBe('repossessed');
    expect(JSON.parse(logs.at(-1)!)).toMatchObject({
      ...{ vault: keptVault.vault_id, claim: claimTxid, outcome: 'refused' },
      msg: expect.stringMatching(/gone from the mempool, none of its inputs spent in a block/),
    });

    await h.devnet.mine(1);
    await h.guardian.onBlock();
    expect(await getVault(h.store.db, keptVault.vault_id)).toMatchObject({
      ...{ status: 'liquidated', btc_locked: Number(COLLATERAL), unit_borrowed: Number(DEBT) },
      vault_txid: keptVault.vault_txid,
    });
    expect(await getLiquidation(h.store.db, keptVault.vault_id)).toMatchObject({
      ...{ status: 'liquidated', claimed_by: null, claim_txid: null },
    });
    expect(
      (await vaultHistory(h.store.db, keptVault.vault_id)).filter((r) => r.action === 'x'),
    ).toEqual([]);
    expect(onChain(await getVault(h.store.db, before.vault_id))).toEqual(onChain(before));
    // The next block changes nothing: the race is settled once.
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    expect((await getLiquidation(h.store.db, keptVault.vault_id))?.status).toBe('liquidated');
  }, 120_000);

  it('keeps a repossession that was mined, built on the output the chain holds', async () => {
    const { request } = await claimant.repossess(kept.vaultPubkey, keptVault.vault_id);
    const { vault_txid: txid } = await call<VaultTxResult>(h.guardian, 'vault.repossess', request);
    await h.guardian.onBlock();
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    expect(await h.chain.txStatus(txid)).toMatchObject({ confirmed: true });
    expect((await getVault(h.store.db, keptVault.vault_id))?.status).toBe('repossessed');
    expect(await getLiquidation(h.store.db, keptVault.vault_id)).toMatchObject({
      status: 'repossessed',
      claim_txid: txid,
    });
    const claimed = (await getVaultByPubkey(h.store.db, claimant.vaultPubkey))!;
    expect(claimed).toMatchObject({ status: 'active', vault_txid: txid });
    expect(
      (await vaultHistory(h.store.db, keptVault.vault_id)).find((r) => r.action === 'x'),
    ).toMatchObject({ transaction_id: txid, confirmed: 1 });
  }, 120_000);

  it("agrees with an open validator's ledger rebuilt from the chain", async () => {
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
    const app = (await (await fetch(`${base}/api/ledger/${tip}`)).json()) as { digest: string };
    expect(validator.ledgerAt(tip)?.find((v) => v.vaultId === racedVault.vault_id)?.status).toBe(
      'exited',
    );
    expect(validator.digestAt(tip)).toBe(app.digest);
    expect(lines.filter((l) => /DISAGREES|broken-rule|unparseable/.test(l))).toEqual([]);
  }, 120_000);
});
