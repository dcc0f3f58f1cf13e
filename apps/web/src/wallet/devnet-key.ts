// The devnet wallet's key: a random secp256k1 secret kept in this browser's localStorage. It only
// exists on the devnet network, where coins come from the faucet and are worth nothing.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check, hex, utf8 } from '@scure/base';

import { DEVNET_FUNDED_STORAGE, DEVNET_KEY_STORAGE } from './devnet-storage';

export { DEVNET_FUNDED_STORAGE, DEVNET_KEY_STORAGE };

/** Testnet WIF version byte: devnet addresses are testnet addresses (tb1…). */
const TESTNET_WIF_VERSION = 0xef;
const VAULT_KEY_TAG = utf8.decode('unit/devnet/vault');

export interface DevnetKeys {
  /** signs the P2WPKH sats address and the P2TR runes address (key path) */
  paymentKey: Uint8Array;
  /** a second key, derived from the first, whose x-only public key is the vault pubkey */
  vaultKey: Uint8Array;
}

/** The vault key is derived, so exporting the one secret is enough to restore the whole wallet. */
export function deriveDevnetKeys(secret: Uint8Array): DevnetKeys {
  if (!secp256k1.utils.isValidSecretKey(secret)) throw new Error('invalid devnet secret key');
  let vaultKey = sha256(new Uint8Array([...VAULT_KEY_TAG, ...secret]));
  // A hash outside the curve order is astronomically unlikely; rehash rather than fail.
  while (!secp256k1.utils.isValidSecretKey(vaultKey)) vaultKey = sha256(vaultKey);
  return { paymentKey: secret, vaultKey };
}

export function readDevnetSecret(storage: Storage): Uint8Array | null {
  const stored = storage.getItem(DEVNET_KEY_STORAGE);
  if (!stored || !/^[0-9a-f]{64}$/.test(stored)) return null;
  const secret = hex.decode(stored);
  return secp256k1.utils.isValidSecretKey(secret) ? secret : null;
}

/** Loads the stored secret, or generates and stores a new one (`created` tells which). */
export function loadOrCreateDevnetSecret(storage: Storage): {
  secret: Uint8Array;
  created: boolean;
} {
  const existing = readDevnetSecret(storage);
  if (existing) return { secret: existing, created: false };
  const secret = secp256k1.utils.randomSecretKey();
  storage.setItem(DEVNET_KEY_STORAGE, hex.encode(secret));
  storage.removeItem(DEVNET_FUNDED_STORAGE);
  return { secret, created: true };
}

/** WIF of a compressed-key testnet secret, importable into Bitcoin Core or Sparrow. */
export function devnetSecretToWif(secret: Uint8Array): string {
  return createBase58check(sha256).encode(new Uint8Array([TESTNET_WIF_VERSION, ...secret, 0x01]));
}

export function exportDevnetSecret(secret: Uint8Array): { hex: string; wif: string } {
  return { hex: hex.encode(secret), wif: devnetSecretToWif(secret) };
}
