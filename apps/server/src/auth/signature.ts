// Checks that `signature` is `address`'s signature of `message`: BIP-322 "simple" for P2WPKH and
// P2TR (what Xverse, Unisat, Leather and the devnet wallet produce), or a legacy BIP-137 signature
// for P2WPKH. bip322-js does both; we never implement the scheme ourselves.
import { Verifier } from 'bip322-js';

/** A base64 signature of a sane size: a BIP-137 one is 65 bytes, a BIP-322 witness up to ~110. */
const BASE64_SIGNATURE = /^[A-Za-z0-9+/]{40,400}={0,2}$/;

export function verifyAddressSignature(
  address: string,
  message: string,
  signature: string,
): boolean {
  if (!BASE64_SIGNATURE.test(signature)) return false;
  try {
    return Verifier.verifySignature(address, message, signature);
  } catch {
    // The library throws on malformed witnesses and unsupported address types: not a valid
    // signature either way.
    return false;
  }
}
