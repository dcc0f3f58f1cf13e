// Deterministic keys for tests: the same name always gives the same key, so failures reproduce.
import { sha256 } from '@noble/hashes/sha2.js';
import { pubECDSA, pubSchnorr } from '@scure/btc-signer/utils.js';

export interface TestKey {
  /** 32-byte secret key. */
  privateKey: Uint8Array;
  /** 32-byte x-only key (Taproot, the vault leaves). */
  xOnly: Uint8Array;
  /** 33-byte compressed key (P2WPKH, P2SH-P2WPKH). */
  compressed: Uint8Array;
}

/** sha256("unit-test-key/" + name) as the secret key; valid for every name in practice. */
export function testKey(name: string): TestKey {
  const privateKey = sha256(new TextEncoder().encode(`unit-test-key/${name}`));
  return { privateKey, xOnly: pubSchnorr(privateKey), compressed: pubECDSA(privateKey, true) };
}

export const userKey = testKey('user');
export const guardianKey = testKey('guardian');
export const treasuryKey = testKey('treasury');
export const strangerKey = testKey('stranger');
export const oracleSecret = sha256(new TextEncoder().encode('unit-test-oracle-secret'));

/** A made-up previous txid (hex): test inputs spend outputs that need not exist. */
export function fakeTxid(n: number): string {
  return Array.from(sha256(Uint8Array.of(n)), (b) => b.toString(16).padStart(2, '0')).join('');
}
