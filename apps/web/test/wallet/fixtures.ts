// Keys, a vault-shaped PSBT and the co-signing + verification a guardian would do. Shared by the
// wallet unit tests and (later) the browser tests, which inject the fake providers beside this file.
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import * as btc from '@scure/btc-signer';
import type { ConfigDto, Network } from '@unit/protocol';
import { vaultOutput, verifyInputs, type Prevout } from '@unit/bitcoin';

export const keyFrom = (byte: number) => new Uint8Array(32).fill(byte);

/** A wallet's keys: one for the payment (P2WPKH) address, one for the Taproot (runes) address. */
export interface TestWalletKeys {
  paymentKey: Uint8Array;
  taprootKey: Uint8Array;
}

export const userKeys: TestWalletKeys = { paymentKey: keyFrom(0x11), taprootKey: keyFrom(0x22) };
export const guardKey = keyFrom(0x33);
export const treasuryKey = keyFrom(0x44);

export const btcNetworkOf = (network: 'mainnet' | 'testnet') =>
  network === 'mainnet' ? btc.NETWORK : btc.TEST_NETWORK;

export function addressesOf(keys: TestWalletKeys, network: 'mainnet' | 'testnet' = 'testnet') {
  const net = btcNetworkOf(network);
  const paymentPub = secp256k1.getPublicKey(keys.paymentKey, true);
  const taprootPub = schnorr.getPublicKey(keys.taprootKey);
  return {
    payment: { address: btc.p2wpkh(paymentPub, net).address!, publicKey: hex.encode(paymentPub) },
    taproot: {
      address: btc.p2tr(taprootPub, undefined, net).address!,
      publicKey: hex.encode(taprootPub),
    },
  };
}

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
    unitRuneId: '1:0',
    telegramBot: null,
    constants: {
      minBtcSats: 5_000,
      dustLimitSats: 546,
      minVaultBalanceSats: 10_000,
      collateralPercent: 160,
      liquidationThresholdPercent: 135,
      unitPostageSats: 10_000,
      flowTimeoutMs: 65_000,
      amountIntDigits: { btc: 8, unit: 12, usd: 12 },
    },
  };
}
