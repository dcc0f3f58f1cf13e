// Addresses <-> output scripts for a given network (TEST_NETWORK gives the devnet's tb1 addresses).
import { Address, NETWORK, OutScript, TEST_NETWORK } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';

/** The output script an address pays to; throws on an address of another network or a bad checksum. */
export function addressToScript(address: string, network: BTC_NETWORK): Uint8Array {
  return OutScript.encode(Address(network).decode(address));
}

/** The address of an output script, or null when it has none (OP_RETURN, bare or unknown scripts). */
export function scriptToAddress(script: Uint8Array, network: BTC_NETWORK): string | null {
  try {
    return Address(network).encode(OutScript.decode(script));
  } catch {
    return null;
  }
}

/** True when the address parses for this network. */
export function isValidAddress(address: string, network: BTC_NETWORK): boolean {
  try {
    addressToScript(address, network);
    return true;
  } catch {
    return false;
  }
}

/** Regtest: testnet's base58 versions with its own bech32 prefix (bcrt1…). */
const REGTEST_NETWORK: BTC_NETWORK = {
  bech32: 'bcrt',
  pubKeyHash: 0x6f,
  scriptHash: 0xc4,
  wif: 0xef,
};

/** Which Bitcoin network an address is of, or null when it is none's (bad checksum, garbage). */
export type AddressNetwork = 'mainnet' | 'testnet' | 'regtest';

export function addressNetworkOf(address: string): AddressNetwork | null {
  const candidates: Array<[AddressNetwork, BTC_NETWORK]> = [
    ['mainnet', NETWORK],
    ['testnet', TEST_NETWORK],
    ['regtest', REGTEST_NETWORK],
  ];
  for (const [name, network] of candidates) if (isValidAddress(address, network)) return name;
  return null;
}
