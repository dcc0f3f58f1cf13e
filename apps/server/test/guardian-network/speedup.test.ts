// A speed-up through a real 2-of-3 guardian network whose guardians validate it themselves
// (`--policy vault`, reading the app's devnet esplora): the app server sends the replacement as a
// request of its own (action 'speedup'); every guardian finds the original in its own mempool and
// checks the replacement changes nothing but the fee, and the group signs it. A replacement the
// server would never send (a changed output) is refused by each guardian on its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import {
  buildSpeedUpPsbt,
  declarationOf,
  parseTransaction,
  signUserInputs,
  TAPSCRIPT_LEAF_VERSION,
  updateLeafScript,
  verifyInputs,
  type VaultUtxo,
} from '@unit/bitcoin';
import type { SpeedUpResult } from '@unit/protocol';
import { getGuardianRequest } from '../../src/store';
import { loadGuardianNetwork, networkSigner } from '../../src/network-client/network-signer';
import { startTestApp, type RunningApp } from '../support';
import { call, type Harness, type TestWallet } from '../guardian/harness';
import { originalOf } from '../guardian/original-tx';
import { appHarness, startGuardianNetwork, type TestGuardianNetwork } from './signer-harness';

const OPTS = { allowUnknownOutputs: true } as const;

describe('a speed-up through guardians that validate it themselves (--policy vault)', () => {
  let network: TestGuardianNetwork;
  let unit: RunningApp;
  let h: Harness;
  let alice: TestWallet;
  let groupKey: Uint8Array;

  beforeAll(async () => {
    network = await startGuardianNetwork({ policy: 'vault', start: false });
    const set = JSON.parse(readFileSync(join(network.dir, 'guardian-set.json'), 'utf8')) as {
      groupKey: string;
    };
    groupKey = hex.decode(set.groupKey);
    unit = await startTestApp({ GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: network.dir });
    const url = unit.url;
    await network.startAll([
      '--chain',
      `${url}/esplora`,
      '--app',
      url,
      '--network',
      'devnet',
      '--feeds',
      `devnet@${url}`,
      '--price-tick',
      '500',
    ]);
    h = appHarness(unit, groupKey);
    alice = await h.wallet('alice');
    await call(unit.guardian, 'vault.open', (await alice.open(1_000_000n, 50_000n)).request);
    await unit.devnet!.mine(1);
    await unit.guardian.onBlock();
  }, 120_000);
  afterAll(async () => {
    await unit?.stop();
    await network?.close();
  });

  /** The original's raw hex and prevouts, as the chain has them. */
  const originalOfTx = (txid: string) => originalOf(unit.chain, txid);

  /** The wallet's replacement of a deposit at `feeRate`, signed; `tamper` edits it first. */
  async function replacement(
    txid: string,
    spent: VaultUtxo,
    feeRate: number,
    tamper?: (tx: Transaction) => void,
  ): Promise<string> {
    const built = buildSpeedUpPsbt({
      action: 'deposit',
      original: await originalOfTx(txid),
      wallet: alice.vaultWallet,
      vaults: [{ output: spent.output, leaf: 'update' }],
      utxos: await alice.paymentUtxos(),
      feeRate,
    });
    let psbt = built.psbt;
    if (tamper) {
      const draft = Transaction.fromPSBT(psbt, OPTS);
      tamper(draft);
      psbt = draft.toPSBT(0);
    }
    for (const index of built.signInputs.user)
      psbt = signUserInputs(psbt, index === 0 ? alice.vaultKey : alice.paymentKey, [index]);
    return base64.encode(psbt);
  }

  /** A deposit left waiting in the mempool, and the vault output it spends. */
  async function pendingDeposit(): Promise<{ txid: string; spent: VaultUtxo; nonce: string }> {
    const spent = await alice.vault();
    const { request } = await alice.deposit(100_000n);
    const { vault_txid: txid } = await call<{ vault_txid: string }>(
      unit.guardian,
      'vault.deposit',
      request,
    );
    return { txid, spent, nonce: request.nonce };
  }

  it('speeds up a deposit: each guardian checks the replacement against its own mempool', async () => {
    const original = await pendingDeposit();
    const psbt = await replacement(original.txid, original.spent, 10);
    const result = await call<SpeedUpResult>(unit.guardian, 'vault.speedup', {
      original_txid: original.txid,
      vault_pubkey: alice.vaultPubkey,
      psbt,
    });
    expect(result.replaced_txid).toBe(original.txid);
    expect(await unit.devnet!.mempoolTxids()).toEqual([result.vault_txid]);
    // The replacement's vault input carries the group's signature over its own sighash.
    const { hex: raw, prevouts } = await originalOfTx(result.vault_txid);
    expect(verifyInputs(raw, prevouts)).toEqual({ ok: true });
    const tx = parseTransaction(raw);
    const [signature, , leaf] = tx.getInput(0).finalScriptWitness!;
    expect(hex.encode(leaf!)).toBe(
      hex.encode(updateLeafScript(hex.decode(alice.vaultPubkey), groupKey)),
    );
    const sighash = tx.preimageWitnessV1(
      0,
      prevouts.map((p) => p.script),
      0,
      prevouts.map((p) => p.amount),
      -1,
      leaf!,
      TAPSCRIPT_LEAF_VERSION,
    );
    expect(schnorr.verify(signature!, sighash, groupKey)).toBe(true);
    // The store follows the replacement; it confirms as the deposit.
    expect((await getGuardianRequest(unit.store.db, original.nonce))!.txid).toBe(result.vault_txid);
    await unit.devnet!.mine(1);
    await unit.guardian.onBlock();
  }, 120_000);

  it('each guardian refuses, on its own, a replacement that changes an output', async () => {
    const original = await pendingDeposit();
    const lessInVault = await replacement(original.txid, original.spent, 10, (tx) =>
      tx.updateOutput(0, { amount: tx.getOutput(0).amount! - 5_000n }),
    );
    // Straight to the network, as a coordinator that skipped its own check would send it.
    const signer = networkSigner(loadGuardianNetwork(network.dir));
    const error = await signer
      .sign({
        action: 'speedup',
        request: {
          original_txid: original.txid,
          vault_pubkey: alice.vaultPubkey,
          psbt: lessInVault,
          action: 'deposit',
          original_nonce: original.nonce,
        },
        nonce: randomBytes(16).toString('hex'),
        spends: declarationOf('deposit').spends,
        psbt: base64.decode(lessInVault),
        secret: null,
      })
      .then(
        () => null,
        (e: unknown) => e as { code?: string; message: string },
      );
    expect(error?.code).toBe('guardians_refused');
    const reason =
      /^Invalid replacement: output 0's amount differs from the original \(\d+, was \d+\)$/;
    expect(error!.message).toMatch(/^3 of 3 guardians refused this request\. guardian-1: /);
    for (const part of error!.message.split(/guardian-\d: /).slice(1))
      expect(part.replace(/; $/, '')).toMatch(reason);
    // Nothing reached the network: the original still waits alone.
    expect(await unit.devnet!.mempoolTxids()).toEqual([original.txid]);
  }, 120_000);
});
