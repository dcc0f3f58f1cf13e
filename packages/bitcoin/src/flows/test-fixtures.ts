// Keys, UTXOs and vaults for the flow tests, derived from fixed 32-byte secrets so every run signs
// the same transactions. Test support only: not exported from the package.
import { sha256 } from '@noble/hashes/sha2.js';
import { p2sh, p2tr, p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import { pubECDSA, pubSchnorr } from '@scure/btc-signer/utils.js';
import { thresholdHash, thresholdSecret, vaultOutput, type RuneId } from '../core';
import type { TreasuryUtxo, VaultStateFields, VaultUtxo, VaultWallet } from './builders';
import type { PaymentUtxo } from './coin-select';

export const network = TEST_NETWORK;

export function secretKey(label: string): Uint8Array {
  return sha256(new TextEncoder().encode(`unit flows test key: ${label}`));
}

export const keys = {
  payment: secretKey('payment'),
  runes: secretKey('runes'),
  vault: secretKey('vault'),
  guardian: secretKey('guardian'),
  treasury: secretKey('treasury'),
  claimantVault: secretKey('claimant vault'),
};
export const oracleSecret = secretKey('oracle');

export const paymentPub = pubECDSA(keys.payment);
export const runesPub = pubSchnorr(keys.runes);
export const vaultPub = pubSchnorr(keys.vault);
export const guardPub = pubSchnorr(keys.guardian);
export const treasuryPub = pubSchnorr(keys.treasury);

export const wallet: VaultWallet = {
  satsScript: p2wpkh(paymentPub, network).script,
  paymentPublicKey: paymentPub,
  runesScript: p2tr(runesPub, undefined, network).script,
  runesPublicKey: runesPub,
};

/** The same wallet paying from a P2SH-P2WPKH address (Xverse's payment address). */
export const nestedWallet: VaultWallet = {
  ...wallet,
  satsScript: p2sh(p2wpkh(paymentPub, network), network).script,
};

export const treasuryScript = p2tr(treasuryPub, undefined, network).script;
export const unitRuneId: RuneId = { block: 1n, tx: 0 };

let txCounter = 0;
/** A fresh, distinct txid for each test UTXO. */
export function txid(): string {
  txCounter++;
  return Array.from(sha256(new Uint8Array([txCounter & 0xff, txCounter >> 8])), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
}

export function paymentUtxo(value: bigint, script = wallet.satsScript): PaymentUtxo {
  return { txid: txid(), vout: 0, value, script };
}

export function vaultAt(thCents: bigint, stamp: number, pubkey = vaultPub) {
  const secret = thresholdSecret(oracleSecret, thCents, stamp);
  return {
    secret,
    output: vaultOutput({
      vaultPubkey: pubkey,
      guardPubkey: guardPub,
      thresholdHash: thresholdHash(secret),
      network,
    }),
  };
}

export function vaultUtxo(
  value: bigint,
  unitDebt: bigint,
  thCents = 5_000_000n,
  pubkey = vaultPub,
): VaultUtxo & {
  secret: Uint8Array;
} {
  const { output, secret } = vaultAt(thCents, 1_700_000_000, pubkey);
  return { txid: txid(), vout: 0, value, unitDebt, output, secret };
}

export function treasuryUtxo(unitAmount = 1_000_000_000n): TreasuryUtxo {
  return {
    txid: txid(),
    vout: 1,
    value: 10_000n,
    script: treasuryScript,
    unitAmount,
    internalKey: treasuryPub,
  };
}

export const stateFields: VaultStateFields = {
  quotePriceCents: 9_500_000n,
  thresholdCents: 4_000_000n,
  quoteStamp: 1_700_000_100,
  nonce: new Uint8Array(16).fill(7),
  expiry: 1_700_000_400,
  // As quotedVault gives it: only an opening's record carries it.
  vaultPubkey: vaultPub,
};

/** The vault output after an action, committing to the state's threshold. */
export const newVault = vaultAt(stateFields.thresholdCents, stateFields.quoteStamp).output;

/** What every built vault transaction of the tests carries: the payer's `utxos` at `feeRate`, to `newVault`. */
export const paidFrom = (utxos: PaymentUtxo[], feeRate: number, payer = wallet) => ({
  wallet: payer,
  utxos,
  feeRate,
  state: stateFields,
  newVault,
});
