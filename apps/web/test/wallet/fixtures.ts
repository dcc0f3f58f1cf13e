// Vault-shaped PSBTs and the co-signing + verification a guardian would do, for the wallet unit
// tests. The keys live in keys.ts, which the injected providers of the browser tests share
// (e2e/support/wallets/ bundles fake-providers.ts).
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import * as btc from '@scure/btc-signer';
import type { ConfigDto, Network } from '@unit/protocol';
import {
  addressToScript,
  buildRepayPsbt,
  vaultOutput,
  verifyInputs,
  type Prevout,
  type VaultWallet,
} from '@unit/bitcoin';
import type { WalletAccount } from '../../src/wallet';
import { guardKey, treasuryKey } from './keys';

export {
  addressesOf,
  btcNetworkOf,
  guardKey,
  keyFrom,
  treasuryKey,
  userKeys,
  type TestWalletKeys,
} from './keys';

const TXID_A = 'aa'.repeat(32);
const TXID_B = 'bb'.repeat(32);
const TXID_C = 'cc'.repeat(32);

export interface VaultPsbt {
  psbt: string;
  prevouts: Prevout[];
  /** indices the user's wallet must sign */
  userInputs: number[];
  /** the treasury's input, which the wallet must leave alone */
  treasuryInput: number;
  vaultInput: number;
}

/**
 * A borrow-shaped PSBT (docs/protocol.md): the vault input (update leaf, user + guardian), the
 * treasury's UNIT input (key path, not the user's) and a user payment input.
 * `vaultKey` is the x-only vault pubkey's secret; `paymentScript` is what the user's coins pay.
 */
export function buildVaultPsbt(opts: {
  vaultKey: Uint8Array;
  paymentScript: Uint8Array;
  paymentTapInternalKey?: Uint8Array;
}): VaultPsbt {
  const vault = vaultOutput({
    vaultPubkey: schnorr.getPublicKey(opts.vaultKey),
    guardPubkey: schnorr.getPublicKey(guardKey),
    thresholdHash: new Uint8Array(20).fill(7),
    network: btc.TEST_NETWORK,
  });
  const treasury = btc.p2tr(schnorr.getPublicKey(treasuryKey), undefined, btc.TEST_NETWORK);
  const prevouts: Prevout[] = [
    { script: vault.script, amount: 200_000n },
    { script: treasury.script, amount: 50_000n },
    { script: opts.paymentScript, amount: 80_000n },
  ];
  const tx = new btc.Transaction({ allowUnknownOutputs: true });
  tx.addInput({
    txid: TXID_A,
    index: 0,
    witnessUtxo: prevouts[0]!,
    // only the update leaf: that is the one a user-signed spend goes through
    tapLeafScript: [vault.tapLeafScript[0]!],
  });
  tx.addInput({
    txid: TXID_B,
    index: 1,
    witnessUtxo: prevouts[1]!,
    tapInternalKey: treasury.tapInternalKey,
  });
  tx.addInput({
    txid: TXID_C,
    index: 2,
    witnessUtxo: prevouts[2]!,
    ...(opts.paymentTapInternalKey ? { tapInternalKey: opts.paymentTapInternalKey } : {}),
  });
  tx.addOutput({ script: vault.script, amount: 210_000n });
  tx.addOutput({ script: treasury.script, amount: 40_000n });
  tx.addOutput({ script: opts.paymentScript, amount: 70_000n });
  return {
    psbt: base64.encode(tx.toPSBT()),
    prevouts,
    userInputs: [0, 2],
    treasuryInput: 1,
    vaultInput: 0,
  };
}

export const parsePsbt = (psbt: string) =>
  btc.Transaction.fromPSBT(base64.decode(psbt), { allowUnknownOutputs: true });

/**
 * What the guardian does with a wallet-signed PSBT: co-signs the vault input, signs the treasury
 * input, finalizes every input and checks each witness against its prevout with the devnet's
 * verifier. Returns that verdict and the finalized transaction.
 */
export function cosignFinalizeAndVerify(signed: string, fixture: VaultPsbt) {
  const tx = parsePsbt(signed);
  tx.signIdx(guardKey, fixture.vaultInput);
  tx.signIdx(treasuryKey, fixture.treasuryInput);
  tx.finalize();
  return { verdict: verifyInputs(tx.extract(), fixture.prevouts), tx };
}

/**
 * The wallet half of a vault transaction as the browser's guardian client builds it from the
 * connected account (apps/web/src/flows/guardian-client.ts): UNIT inputs carry the runes key.
 */
export function vaultWalletOf(account: WalletAccount): VaultWallet {
  return {
    satsScript: addressToScript(account.satsAddress, btc.TEST_NETWORK),
    paymentPublicKey: hex.decode(account.satsPublicKey),
    runesScript: addressToScript(account.runesAddress, btc.TEST_NETWORK),
    runesPublicKey: hex.decode(account.runesPublicKey),
  };
}

export interface RepayPsbt {
  psbt: string;
  prevouts: Prevout[];
  /** what the wallet signs: the vault's update leaf, its UNIT input and its payment input */
  userInputs: number[];
  guardianInputs: number[];
  vaultInput: number;
  /** the UNIT output of the runes address being spent back to the treasury */
  unitInput: number;
  paymentInput: number;
}

/**
 * A real repay PSBT (@unit/bitcoin's builder, docs/protocol.md): the vault through its update leaf,
 * a UNIT output held at the account's runes address, and a payment UTXO of its sats address for
 * the fee. Signing it needs every key of the account: vault, runes and payment.
 */
export function buildRepayPsbtFor(account: WalletAccount): RepayPsbt {
  const wallet = vaultWalletOf(account);
  const vaultOf = (threshold: number) =>
    vaultOutput({
      vaultPubkey: hex.decode(account.vaultPubkey),
      guardPubkey: schnorr.getPublicKey(guardKey),
      thresholdHash: new Uint8Array(20).fill(threshold),
      network: btc.TEST_NETWORK,
    });
  const built = buildRepayPsbt({
    wallet,
    feeRate: 2,
    state: {
      quotePriceCents: 9_500_000n,
      thresholdCents: 4_000_000n,
      quoteStamp: 1_700_000_000,
      nonce: new Uint8Array(16).fill(9),
      expiry: 1_700_000_300,
    },
    newVault: vaultOf(8),
    vault: { txid: TXID_A, vout: 0, value: 1_000_000n, unitDebt: 30_000n, output: vaultOf(7) },
    repayAmount: 10_000n,
    unitUtxos: [
      { txid: TXID_B, vout: 1, value: 10_000n, script: wallet.runesScript, unitAmount: 30_000n },
    ],
    utxos: [{ txid: TXID_C, vout: 2, value: 200_000n, script: wallet.satsScript }],
    treasuryScript: btc.p2tr(schnorr.getPublicKey(treasuryKey), undefined, btc.TEST_NETWORK).script,
    unitRuneId: { block: 1n, tx: 0 },
  });
  const tx = btc.Transaction.fromPSBT(built.psbt, { allowUnknownOutputs: true });
  const prevouts = Array.from({ length: tx.inputsLength }, (_, i) => {
    const { script, amount } = tx.getInput(i).witnessUtxo!;
    return { script, amount };
  });
  return {
    psbt: base64.encode(built.psbt),
    prevouts,
    userInputs: built.signInputs.user,
    guardianInputs: built.signInputs.guardian,
    vaultInput: 0,
    unitInput: 1,
    paymentInput: 2,
  };
}

/** The guardian's co-signature on the vault, then finalisation and the devnet's witness checks. */
export function cosignRepayAndVerify(signed: string, fixture: RepayPsbt) {
  const tx = parsePsbt(signed);
  for (const index of fixture.guardianInputs) tx.signIdx(guardKey, index);
  tx.finalize();
  return verifyInputs(tx.extract(), fixture.prevouts);
}

export function testConfig(network: Network): ConfigDto {
  return {
    network,
    esploraUrl: '/esplora',
    mempoolUrl: '/mempool',
    ordinalsUrl: '/ordinals',
    runesUrl: '/runes',
    explorerUrl: '/explorer',
    guardianUrl: '/guardian',
    docsUrl: 'https://docs.example',
    social: { twitter: '#', discord: '#', telegram: '#' },
    guardPubkey: hex.encode(schnorr.getPublicKey(guardKey)),
    treasuryPubkey: hex.encode(schnorr.getPublicKey(treasuryKey)),
    treasuryAddress: btc.p2tr(
      schnorr.getPublicKey(treasuryKey),
      undefined,
      network === 'mainnet' ? btc.NETWORK : btc.TEST_NETWORK,
    ).address!,
    unitRuneId: '1:0',
    telegramBot: null,
    constants: {
      minBtcSats: 5_000,
      dustLimitSats: 546,
      minVaultBalanceSats: 10_000,
      collateralPercent: 160,
      liquidationThresholdPercent: 135,
      unitPostageSats: 10_000,
      speedUpAfterSeconds: 600,
      flowTimeoutMs: 65_000,
      amountIntDigits: { btc: 8, unit: 12, usd: 12 },
    },
  };
}
