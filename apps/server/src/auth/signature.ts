// Checks that `signature` is `address`'s signature of `message`: BIP-322 "simple" for P2WPKH and
// P2TR (what Xverse, Unisat, Leather and the devnet wallet produce), or a legacy BIP-137 signature
// for P2WPKH. bip322-js does both; we never implement the scheme ourselves. The finished BIP-322
// text has signers prefix the variant (`smp` simple, `ful` full, `pof` proof of funds) and lets
// verifiers read an unprefixed signature as simple: both forms of a simple signature verify here.
import { Verifier } from 'bip322-js';
import { addressNetworkOf } from '@unit/bitcoin';
import type { Network } from '@unit/protocol';

/** A base64 signature of a sane size: a BIP-137 one is 65 bytes, a BIP-322 witness up to ~110. */
const BASE64_SIGNATURE = /^[A-Za-z0-9+/]{40,400}={0,2}$/;
/** BIP-322's variant prefix of a simple signature. */
const SIMPLE_PREFIX = 'smp';

export function verifyAddressSignature(
  address: string,
  message: string,
  signature: string,
): boolean {
  // bip322-js 3 predates the prefix: it would read `smp` as three more base64 characters. An
  // unprefixed simple signature never starts so (its first byte, the witness item count, is 1
  // or 2: base64 `A…`), nor does a BIP-137 one (header 27–42: `G`–`K`). Full and proof-of-funds
  // signatures are not accepted for sign-in.
  const prefixed = signature.startsWith(SIMPLE_PREFIX);
  const encoded = prefixed ? signature.slice(SIMPLE_PREFIX.length) : signature;
  if (!BASE64_SIGNATURE.test(encoded)) return false;
  try {
    if (prefixed && Buffer.from(encoded, 'base64').length === 65) {
      // 65 bytes is what bip322-js takes for a BIP-137 signature; a simple signature (a witness
      // stack) is never that long, and `smp` never marks a legacy one.
      return false;
    }
    return Verifier.verifySignature(address, message, encoded);
  } catch {
    // The library throws on malformed witnesses and unsupported address types: not a valid
    // signature either way.
    return false;
  }
}

/** The address prefix people know each network's accounts by. */
const NETWORK_PREFIX: Record<Network, string> = {
  devnet: 'tb1',
  signet: 'tb1',
  mutinynet: 'tb1',
  mainnet: 'bc1',
};

/**
 * Why an address cannot sign in on this server's network, or null when it can: a mainnet address
 * on the devnet, or a testnet or regtest one on mainnet, would be a session for an account the
 * chain here never pays.
 */
export function addressNetworkProblem(address: string, network: Network): string | null {
  const of = addressNetworkOf(address);
  if (of === null) return 'This is not a Bitcoin address';
  const wanted = network === 'mainnet' ? 'mainnet' : 'testnet';
  if (of === wanted) return null;
  return `This is a ${of} address, but this server runs on ${network}: connect an account of ${network} (${NETWORK_PREFIX[network]}…) to sign in`;
}
