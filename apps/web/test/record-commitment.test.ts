// With the guardian network every state record commits to the quote's price quorum (32 bytes
// more, docs/protocol.md): a withdraw's fee comes out of the vault and is sized before the quote,
// so the web's placeholder (`sizingCommitment`, read from /api/config) must make the fee the real
// transaction pays, or the record's vault and threshold would not match the quote's.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { TEST_NETWORK, p2tr, p2wpkh } from '@scure/btc-signer';
import { buildWithdrawPsbt, quotedVault, vaultOutput, withdrawFee } from '@unit/bitcoin';
import { networkFeeSats } from '@unit/protocol';
import { sizingCommitment } from '../src/flows/max-deposit';
import { guardKey, keyFrom } from './wallet/keys';
import { testConfig } from './wallet/fixtures';

const vaultPubkey = schnorr.getPublicKey(keyFrom(0x55));
const keys = { vaultPubkey, guardPubkey: schnorr.getPublicKey(guardKey), network: TEST_NETWORK };
const paymentPub = new Uint8Array([2, ...schnorr.getPublicKey(keyFrom(0x11))]);
const wallet = {
  satsScript: p2wpkh(paymentPub, TEST_NETWORK).script,
  paymentPublicKey: paymentPub,
  runesScript: p2tr(vaultPubkey, undefined, TEST_NETWORK).script,
  runesPublicKey: vaultPubkey,
};
const current = vaultOutput({ ...keys, thresholdHash: new Uint8Array(20).fill(1) });
const vault = {
  txid: '11'.repeat(32),
  vout: 0,
  value: 500_000n,
  unitDebt: 60_000n,
  output: current,
};
const placeholder = {
  quotePriceCents: 0n,
  thresholdCents: 0n,
  quoteStamp: 0,
  nonce: new Uint8Array(16),
  expiry: 0,
};
const guardianPrice = (guardian: number) => ({
  guardian,
  setVersion: 1,
  priceCents: 9_500_000,
  time: 1_750_000_000,
  sig: 'ab'.repeat(64),
});
const quote = { price_cents: 9_500_000, ts: 1_750_000_000, threshold_hash: '22'.repeat(20) };

describe("the web's withdraw fee with the guardian network's committed record", () => {
  const network = testConfig('devnet');
  network.constants.priceQuorum = true;
  const off = testConfig('devnet');

  it('sizes the placeholder record as the real one in each mode', () => {
    expect(sizingCommitment(off)).toEqual({});
    expect(sizingCommitment(network)).toEqual({ quorumCommitment: new Uint8Array(32) });
    for (const [config, quorum] of [
      [off, undefined],
      [network, [guardianPrice(1), guardianPrice(2)]],
    ] as const) {
      const params = { wallet, feeRate: 3, vault, withdrawAmount: 100_000n, newVault: current };
      const fee = withdrawFee({
        ...params,
        state: { ...placeholder, ...sizingCommitment(config) },
      });
      const real = quotedVault({ ...quote, quorum }, 4_000_000, placeholder, keys);
      const built = buildWithdrawPsbt({ ...params, ...real });
      expect(built.state.quorumCommitment !== undefined).toBe(quorum !== undefined);
      expect(built.fee).toBe(fee);
      // The drawer's preview is the same figure (estimateVsize, +33 vB committed).
      const preview = networkFeeSats({
        action: 'withdraw',
        paymentInputs: 0,
        feeRate: 3,
        withdrawalScriptBytes: wallet.satsScript.length,
        quorumCommitment: config.constants.priceQuorum === true,
      });
      expect(preview).toBe(fee);
    }
    const committed = withdrawFee({
      wallet,
      feeRate: 3,
      vault,
      withdrawAmount: 100_000n,
      newVault: current,
      state: { ...placeholder, ...sizingCommitment(network) },
    });
    const plain = withdrawFee({
      wallet,
      feeRate: 3,
      vault,
      withdrawAmount: 100_000n,
      newVault: current,
      state: placeholder,
    });
    expect(committed - plain).toBe(99n); // 33 vB at 3 sat/vB
  });
});
