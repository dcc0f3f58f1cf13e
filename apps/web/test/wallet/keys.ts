// Test wallet keys and the addresses they hold. Only @noble and @scure here, so the injected
// providers (fake-providers.ts) that use it can be bundled for a real browser as well
// (e2e/support/wallets/).
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import * as btc from '@scure/btc-signer';

export const keyFrom = (byte: number) => new Uint8Array(32).fill(byte);

/**
 * A wallet's keys: one for the payment (P2WPKH) address, one for the Taproot (ordinals, runes)
 * address. Xverse and Leather derive them on different paths, so they are different keys.
 */
export interface TestWalletKeys {
  paymentKey: Uint8Array;
  taprootKey: Uint8Array;
}

export const userKeys: TestWalletKeys = { paymentKey: keyFrom(0x11), taprootKey: keyFrom(0x22) };
export const guardKey = keyFrom(0x33);
export const treasuryKey = keyFrom(0x44);

/** Devnet, signet and testnet all use testnet addresses (tb1…). */
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
