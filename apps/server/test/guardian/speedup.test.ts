// vault.speedup on a real devnet: the guardian co-signs a BIP-125 replacement that only pays more
// fee, the store follows the new txid (one history record, confirmed with the replacement), and
// anything else — a moved amount, a rewritten state, too little fee, a confirmed original — is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64 } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { buildSpeedUpPsbt, signUserInputs, type VaultUtxo } from '@unit/bitcoin';
import type { SpeedUpResult } from '@unit/protocol';
import { getVaultByPubkey, vaultHistory } from '../../src/store';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { call, codeOf, startHarness, TREASURY_KEY, type Harness, type TestWallet } from './harness';
import { originalOf } from './original-tx';

const OPTS = { allowUnknownOutputs: true } as const;

/** The transaction with another lock time or version, inputs and outputs as they are. */
function rebuilt(tx: Transaction, header: { lockTime?: number; version?: number }): Transaction {
  const copy = new Transaction({
    ...OPTS,
    lockTime: header.lockTime ?? tx.lockTime,
    version: header.version ?? tx.version,
  });
  for (let i = 0; i < tx.inputsLength; i++) copy.addInput(tx.getInput(i));
  for (let i = 0; i < tx.outputsLength; i++) copy.addOutput(tx.getOutput(i));
  return copy;
}

describe('guardian speed-up (BIP-125 replacement)', () => {
  let h: Harness;
  let alice: TestWallet;
  let bob: TestWallet;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.wallet('speedy');
    bob = await h.wallet('bob');
    await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 50_000n)).request);
    await h.devnet.mine(1);
    await h.guardian.onBlock();
  });
  afterAll(() => h.close());

  /** A deposit left waiting in the mempool, and the vault output it spends. */
  async function pendingDeposit(): Promise<{ txid: string; spent: VaultUtxo }> {
    const spent = await alice.vault();
    const { request } = await alice.deposit(100_000n);
    const { vault_txid: txid } = await call<{ vault_txid: string }>(
      h.guardian,
      'vault.deposit',
      request,
    );
    return { txid, spent };
  }

  /** The wallet's replacement at `feeRate`, signed; `tamper` edits it before signing. */
  async function replacement(
    original: { txid: string; spent: VaultUtxo },
    feeRate: number,
    tamper?: (tx: Transaction) => unknown,
  ): Promise<string> {
    const originalTx = await originalOf(h.chain, original.txid);
    const built = buildSpeedUpPsbt({
      action: 'deposit',
      original: originalTx,
      wallet: alice.vaultWallet,
      vaults: [{ output: original.spent.output, leaf: 'update' }],
      utxos: await alice.paymentUtxos(),
      feeRate,
    });
    let psbt = built.psbt;
    if (tamper) {
      const draft = Transaction.fromPSBT(psbt, OPTS);
      const result = tamper(draft);
      psbt = (result instanceof Transaction ? result : draft).toPSBT(0);
    }
    for (const index of built.signInputs.user)
      psbt = signUserInputs(psbt, index === 0 ? alice.vaultKey : alice.paymentKey, [index]);
    return base64.encode(psbt);
  }

  const speedUp = (originalTxid: string, psbt: string, pubkey = alice.vaultPubkey) =>
    call<SpeedUpResult>(h.guardian, 'vault.speedup', {
      original_txid: originalTxid,
      vault_pubkey: pubkey,
      psbt,
    });

  /** The deposit each test tries to replace. */
  let original: { txid: string; spent: VaultUtxo };

  it('refuses a replacement that moves the vault amount or rewrites the state record', async () => {
    original = await pendingDeposit();
    const lessInVault = await replacement(original, 10, (tx) =>
      tx.updateOutput(0, { amount: tx.getOutput(0).amount! - 5_000n }),
    );
    expect(await codeOf(speedUp(original.txid, lessInVault))).toBe('bad_transaction');
    const otherState = await replacement(original, 10, (tx) => {
      const script = tx.getOutput(1).script!.slice();
      script[script.length - 1] = script[script.length - 1]! ^ 1;
      tx.updateOutput(1, { script });
    });
    expect(await codeOf(speedUp(original.txid, otherState))).toBe('bad_transaction');
    const changeElsewhere = await replacement(original, 10, (tx) =>
      tx.updateOutput(2, { script: alice.vaultWallet.runesScript }),
    );
    expect(await codeOf(speedUp(original.txid, changeElsewhere))).toBe('bad_transaction');
    // Nothing reached the network: the original still waits alone.
    expect(await h.devnet.mempoolTxids()).toEqual([original.txid]);
  });

  it('refuses a replacement that moves the lock time, the version or a sequence, saying which', async () => {
    const refusal = async (psbt: string) => {
      try {
        await speedUp(original.txid, psbt);
      } catch (error) {
        return error as Error & { code?: string };
      }
      throw new Error('the replacement was co-signed');
    };
    // nLockTime 1,900,000,000 (a time in 2030): co-signed, it could not be mined for years.
    const locked = await refusal(
      await replacement(original, 10, (tx) => rebuilt(tx, { lockTime: 1_900_000_000 })),
    );
    expect(locked.code).toBe('bad_transaction');
    expect(locked.message).toMatch(/lock time differs from the original \(1900000000, was 0\)/);
    const version = await refusal(
      await replacement(original, 10, (tx) => rebuilt(tx, { version: 1 })),
    );
    expect(version.message).toMatch(/version differs from the original \(1, was 2\)/);
    const relative = await refusal(
      await replacement(original, 10, (tx) => tx.updateInput(0, { sequence: 5 }, true)),
    );
    expect(relative.message).toMatch(/input 0's sequence differs from the original/);
    expect(await h.devnet.mempoolTxids()).toEqual([original.txid]);
  });

  it('refuses a replacement paying less than BIP-125 asks, and one for another key', async () => {
    // One sat more than the original: more fee, but not the incremental relay fee BIP-125 asks.
    const oneSatMore = await replacement(original, 2, (tx) =>
      tx.updateOutput(2, { amount: tx.getOutput(2).amount! - 1n }),
    );
    expect(await codeOf(speedUp(original.txid, oneSatMore))).toBe('fee_too_low');
    expect(
      await codeOf(speedUp(original.txid, await replacement(original, 10), bob.vaultPubkey)),
    ).toBe('not_found');
  });

  it('co-signs a fee-only replacement; the vault and its one history record follow the new txid', async () => {
    const vault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    const recordsBefore = (await vaultHistory(h.store.db, vault.vault_id)).length;
    const result = await speedUp(original.txid, await replacement(original, 10));
    expect(result.replaced_txid).toBe(original.txid);
    expect(result.vault_txid).not.toBe(original.txid);
    expect(await h.devnet.mempoolTxids()).toEqual([result.vault_txid]);
    const fee = (await h.devnet.getTx(result.vault_txid))!;
    expect(fee.fee / fee.vsize).toBeGreaterThanOrEqual(10);

    const after = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    expect(after).toMatchObject({ vault_txid: result.vault_txid, btc_locked: vault.btc_locked });
    const history = await vaultHistory(h.store.db, vault.vault_id);
    expect(history).toHaveLength(recordsBefore);
    expect(history[0]).toMatchObject({
      action: 'd',
      transaction_id: result.vault_txid,
      utxo: `${result.vault_txid}:0`,
      confirmed: 0,
    });
    expect(history.some((r) => r.transaction_id === original.txid)).toBe(false);

    await h.devnet.mine(1);
    expect(await h.guardian.onBlock()).toEqual([result.vault_txid]);
    expect((await vaultHistory(h.store.db, vault.vault_id))[0]?.confirmed).toBe(1);
    // The next action spends the replacement's vault output.
    original = await pendingDeposit();
    expect(await h.devnet.mempoolTxids()).toEqual([original.txid]);
    expect(original.spent.txid).toBe(result.vault_txid);
  });

  it('refuses once the original is confirmed', async () => {
    const psbt = await replacement(original, 10);
    await h.devnet.mine(1);
    expect(await codeOf(speedUp(original.txid, psbt))).toBe('not_replaceable');
  });

  it('speeds up an opening: the treasury input is signed again, the vault keeps its id', async () => {
    const { vault_id: vaultId, vault_txid: opening } = await call<{
      vault_id: string;
      vault_txid: string;
    }>(h.guardian, 'vault.open', (await bob.open(500_000n, 20_000n)).request);
    const originalTx = await originalOf(h.chain, opening);
    const built = buildSpeedUpPsbt({
      action: 'open',
      original: originalTx,
      wallet: bob.vaultWallet,
      treasury: { script: originalTx.prevouts[0]!.script, internalKey: pubSchnorr(TREASURY_KEY) },
      utxos: await bob.paymentUtxos(),
      feeRate: 10,
    });
    expect(built.signInputs.treasury).toEqual([0]);
    let psbt = built.psbt;
    for (const index of built.signInputs.user) psbt = signUserInputs(psbt, bob.paymentKey, [index]);
    const result = await speedUp(opening, base64.encode(psbt), bob.vaultPubkey);
    expect(await h.devnet.mempoolTxids()).toEqual([result.vault_txid]);
    // The UNIT issued and the vault output are the same, now in the replacement.
    expect((await h.chain.output(result.vault_txid, 0))?.value).toBe(500_000);
    expect((await h.chain.unitOutputs(bob.runesAddress)).map((o) => o.txid)).toEqual([
      result.vault_txid,
    ]);
    expect(await getVaultByPubkey(h.store.db, bob.vaultPubkey)).toMatchObject({
      vault_id: vaultId,
      vault_txid: result.vault_txid,
    });
    await h.devnet.mine(1);
    expect(await h.guardian.onBlock()).toContain(result.vault_txid);
    const [record] = await vaultHistory(h.store.db, vaultId);
    expect(record).toMatchObject({ action: 'o', transaction_id: result.vault_txid, confirmed: 1 });
  });
});

describe('a speed-up whose original is mined instead', () => {
  // The devnet's own mempool always evicts the original, so a miner that still held it is played
  // by the chain's answers about the two txids; everything else is the real devnet and store.
  const mined = new Set<string>();
  const dropped = new Set<string>();
  let h: Harness;
  let carol: TestWallet;
  beforeAll(async () => {
    h = await startHarness((chain) => ({
      tip: () => chain.tip(),
      addressStats: (a) => chain.addressStats(a),
      utxos: (a) => chain.utxos(a),
      paymentUtxos: (a) => chain.paymentUtxos(a),
      unitOutputs: (a) => chain.unitOutputs(a),
      output: (t, v) => chain.output(t, v),
      spender: (t, v) => chain.spender(t, v),
      txHex: (t) => chain.txHex(t),
      broadcast: (raw) => chain.broadcast(raw),
      fees: () => chain.fees(),
      onBlock: (l) => chain.onBlock(l),
      txStatus: async (txid) => {
        if (mined.has(txid))
          return { confirmed: true, block_height: 1, block_hash: '00'.repeat(32), block_time: 1 };
        if (dropped.has(txid)) return null;
        return chain.txStatus(txid);
      },
    }));
    carol = await h.wallet('carol');
    await call(h.guardian, 'vault.open', (await carol.open(1_000_000n, 50_000n)).request);
    await h.devnet.mine(1);
    await h.guardian.onBlock();
  });
  afterAll(() => h.close());

  it('points the vault and its history back at the original, which confirmed', async () => {
    const spent = await carol.vault();
    const { request } = await carol.deposit(100_000n);
    const { vault_txid: original } = await call<{ vault_txid: string }>(
      h.guardian,
      'vault.deposit',
      request,
    );
    const originalTx = await originalOf(h.chain, original);
    const built = buildSpeedUpPsbt({
      action: 'deposit',
      original: originalTx,
      wallet: carol.vaultWallet,
      vaults: [{ output: spent.output, leaf: 'update' }],
      utxos: await carol.paymentUtxos(),
      feeRate: 10,
    });
    let psbt = built.psbt;
    for (const index of built.signInputs.user)
      psbt = signUserInputs(psbt, index === 0 ? carol.vaultKey : carol.paymentKey, [index]);
    const { vault_txid: replacement } = await call<SpeedUpResult>(h.guardian, 'vault.speedup', {
      original_txid: original,
      vault_pubkey: carol.vaultPubkey,
      psbt: base64.encode(psbt),
    });
    const vault = (await getVaultByPubkey(h.store.db, carol.vaultPubkey))!;
    expect(vault.vault_txid).toBe(replacement);

    // A block holds the original; the replacement is gone.
    mined.add(original);
    dropped.add(replacement);
    expect(await h.guardian.onBlock()).toEqual([original]);
    expect((await getVaultByPubkey(h.store.db, carol.vaultPubkey))!.vault_txid).toBe(original);
    const [record] = await vaultHistory(h.store.db, vault.vault_id);
    expect(record).toMatchObject({
      action: 'd',
      transaction_id: original,
      utxo: `${original}:0`,
      confirmed: 1,
    });
    // Settled: the next block changes nothing.
    expect(await h.guardian.onBlock()).toEqual([]);
  });
});
