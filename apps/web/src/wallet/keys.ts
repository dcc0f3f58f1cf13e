// Public keys as wallets hand them out. Some report a Taproot key compressed (33 bytes, Leather),
// others x-only (32 bytes, Xverse); BIP340 and the PSBT's tapInternalKey want it x-only.

/** The x-only (32-byte) form of a hex public key, lower case. */
export function xOnlyKeyHex(publicKey: string): string {
  const key = publicKey.toLowerCase();
  return key.length === 66 ? key.slice(2) : key;
}

/** Taproot (segwit v1) addresses of every network: bc1p…, tb1p…, bcrt1p…. */
export const isTaprootAddress = (address: string): boolean => /^(bc1p|tb1p|bcrt1p)/i.test(address);

/**
 * The key that spends an address, in the form its inputs need: x-only for Taproot (the
 * tapInternalKey), the compressed key as the wallet gave it otherwise (P2WPKH).
 */
export const spendingKeyHex = (address: string, publicKey: string): string =>
  isTaprootAddress(address) ? xOnlyKeyHex(publicKey) : publicKey.toLowerCase();
