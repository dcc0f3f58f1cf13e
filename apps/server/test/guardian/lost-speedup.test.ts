// For vault.speedup: a replacement whose broadcast answer is lost is handed to the
// chain like any other lost answer (lost-answer.test.ts), through the same lossy proxy: the vault
// follows the replacement once the chain holds it, keeps the original when the network refuses the
// replacement (the original confirmed first), and is never left busy. Runs on SQLite, and on
// PostgreSQL with FLOW_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64, hex } from '@scure/base';
import { buildSpeedUpPsbt, parseTransaction, signUserInputs } from '@unit/bitcoin';
import type { Guardian } from '../../src/cosign';
import { getGuardianRequest, getVaultByPubkey, vaultHistory } from '../../src/store';
import { call, codeOf, type Harness, type TestWallet } from './harness';
import { startLossyGuardian, type LossySetup } from './lossy-setup';

describe('speed-ups whose answer is lost', () => {
  let setup: LossySetup;
  let h: Harness;
  let proxy: LossySetup['proxy'];
  let guardian: Guardian;
  let wallets = 0;

  beforeAll(async () => {
    setup = await startLossyGuardian();
    ({ h, proxy, guardian } = setup);
  });
  afterAll(() => setup.close());
  const lockOf = (wallet: TestWallet) => setup.lockOf(wallet);
  const depositsAgain = (wallet: TestWallet) => setup.depositsAgain(wallet);

  /** A vault with a deposit waiting in the mempool, sent while the network answers. */
  const pendingDeposit = async () => {
    proxy.state.mode = 'pass';
    const wallet = await h.wallet(`slow ${wallets++}`);
    await call(guardian, 'vault.open', (await wallet.open(2_000_000n, 50_000n)).request);
    await h.devnet.mine(1);
    await guardian.onBlock();
    const spent = await wallet.vault();
    const { request } = await wallet.deposit(100_000n);
    const { vault_txid: txid } = await call<{ vault_txid: string }>(
      guardian,
      'vault.deposit',
      request,
    );
    return { wallet, txid, spent, nonce: request.nonce };
  };

  /** The wallet's signed fee-only replacement of the pending deposit, at 10 sat/vB. */
  const replacementOf = async (pending: Awaited<ReturnType<typeof pendingDeposit>>) => {
    const rawHex = (await h.chain.txHex(pending.txid))!;
    const tx = parseTransaction(rawHex);
    const prevouts = [];
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      const output = (await h.chain.output(hex.encode(input.txid!), input.index!))!;
      prevouts.push({ script: hex.decode(output.script_hex), amount: BigInt(output.value) });
    }
    const { wallet } = pending;
    const built = buildSpeedUpPsbt({
      action: 'deposit',
      original: { hex: rawHex, prevouts },
      wallet: wallet.vaultWallet,
      vaults: [{ output: pending.spent.output, leaf: 'update' }],
      utxos: await wallet.paymentUtxos(),
      feeRate: 10,
    });
    let psbt = built.psbt;
    for (const index of built.signInputs.user)
      psbt = signUserInputs(psbt, index === 0 ? wallet.vaultKey : wallet.paymentKey, [index]);
    return {
      original_txid: pending.txid,
      vault_pubkey: wallet.vaultPubkey,
      psbt: base64.encode(psbt),
    };
  };

  /** The speed-up sent while the network loses its answer: refused as chain_unavailable. */
  const unanswered = async (
    pending: Awaited<ReturnType<typeof pendingDeposit>>,
    mode: 'swallow' | 'post-down',
  ) => {
    const params = await replacementOf(pending);
    proxy.state.mode = mode;
    expect(await codeOf(call(guardian, 'vault.speedup', params))).toBe('chain_unavailable');
    // Not taken for a refusal: kept for the chain to settle, the vault not locked meanwhile.
    const kept = await h.store.db
      .selectFrom('guardian_unanswered_replacements')
      .select('txid')
      .where('original_txid', '=', pending.txid)
      .executeTakeFirstOrThrow();
    expect(await lockOf(pending.wallet)).toBe(false);
    expect((await getVaultByPubkey(h.store.db, pending.wallet.vaultPubkey))?.vault_txid).toBe(
      pending.txid,
    );
    return kept.txid;
  };

  const nothingLeft = async () =>
    expect(
      await h.store.db.selectFrom('guardian_unanswered_replacements').select('txid').execute(),
    ).toEqual([]);

  it('follows a replacement the network took though its answer was lost, at the next request', async () => {
    const pending = await pendingDeposit();
    // Built on the original's output, as a page that has not heard of the speed-up would.
    const stale = await pending.wallet.deposit(5_000n);
    const txid = await unanswered(pending, 'swallow');
    expect(await h.devnet.mempoolTxids()).toEqual([txid]);
    // The network answers again: the deposit built on the original's output, gone from the chain,
    // is refused as changed (not busy), and the vault follows the replacement.
    proxy.state.mode = 'pass';
    expect(await codeOf(call(guardian, 'vault.deposit', stale.request))).toBe('vault_changed');
    const vault = (await getVaultByPubkey(h.store.db, pending.wallet.vaultPubkey))!;
    expect(vault).toMatchObject({ vault_txid: txid, btc_locked: 2_100_000 });
    expect(await getGuardianRequest(h.store.db, pending.nonce)).toMatchObject({
      state: 'broadcast',
      txid,
    });
    const history = await vaultHistory(h.store.db, vault.vault_id);
    expect(history[0]).toMatchObject({ action: 'd', transaction_id: txid, utxo: `${txid}:0` });
    await nothingLeft();
    await depositsAgain(pending.wallet);
  });

  it('settles on the next block a replacement the network confirmed while it was silent', async () => {
    const pending = await pendingDeposit();
    const txid = await unanswered(pending, 'swallow');
    // Mined while the service is silent; the next block's round finds it on the chain.
    await h.devnet.mine(1);
    proxy.state.mode = 'pass';
    await h.devnet.mine(1);
    expect(await guardian.onBlock()).toContain(txid);
    const vault = (await getVaultByPubkey(h.store.db, pending.wallet.vaultPubkey))!;
    expect(vault.vault_txid).toBe(txid);
    const history = await vaultHistory(h.store.db, vault.vault_id);
    expect(history[0]).toMatchObject({ transaction_id: txid, confirmed: 1 });
    expect(history.some((r) => r.transaction_id === pending.txid)).toBe(false);
    // Settled: the original is not waited for any more (guardian_replacements).
    expect(
      await h.store.db.selectFrom('guardian_replacements').select('txid').execute(),
    ).not.toContainEqual({ txid });
    await nothingLeft();
    await depositsAgain(pending.wallet);
  });

  it('sends a replacement that never reached the network once it answers, and follows it', async () => {
    const pending = await pendingDeposit();
    const posts = proxy.state.posts;
    const txid = await unanswered(pending, 'post-down');
    expect(await h.devnet.mempoolTxids()).toEqual([pending.txid]);
    proxy.state.mode = 'pass';
    await guardian.recover();
    expect(proxy.state.posts).toBe(posts + 1);
    expect(await h.devnet.mempoolTxids()).toEqual([txid]);
    expect((await getVaultByPubkey(h.store.db, pending.wallet.vaultPubkey))?.vault_txid).toBe(txid);
    await nothingLeft();
    await depositsAgain(pending.wallet);
  });

  it('keeps the original when it confirmed before the lost replacement could reach the network', async () => {
    const pending = await pendingDeposit();
    await unanswered(pending, 'post-down');
    // The original is mined while the service is down: the replacement now conflicts with it.
    await h.devnet.mine(1);
    expect((await h.chain.txStatus(pending.txid))?.confirmed).toBe(true);
    proxy.state.mode = 'pass';
    await guardian.recover();
    const vault = (await getVaultByPubkey(h.store.db, pending.wallet.vaultPubkey))!;
    expect(vault).toMatchObject({ vault_txid: pending.txid, btc_locked: 2_100_000 });
    expect(await getGuardianRequest(h.store.db, pending.nonce)).toMatchObject({
      state: 'broadcast',
      txid: pending.txid,
    });
    await nothingLeft();
    expect(await lockOf(pending.wallet)).toBe(false);
    await depositsAgain(pending.wallet);
  });
});
