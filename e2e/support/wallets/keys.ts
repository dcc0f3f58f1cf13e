// The keys and addresses of an injected wallet, computed the same way in Node (to fund it from
// the devnet faucet) and in the page (where the injected provider signs with them).
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex, utf8 } from '@scure/base';
import { addressesOf, type TestWalletKeys } from '../../../apps/web/test/wallet/keys';

export type InjectedWalletKind = 'unisat' | 'xverse' | 'leather';

const ORDINALS_KEY_TAG = utf8.decode('unit/e2e/ordinals');

/**
 * The wallet's keys from one secret: it is the payment key; the Taproot account of Xverse
 * (ordinals) and Leather gets a key of its own, derived from it, as the real wallets derive it on
 * another path.
 */
export function injectedWalletKeys(privateKeyHex: string): TestWalletKeys {
  const paymentKey = hex.decode(privateKeyHex);
  if (!secp256k1.utils.isValidSecretKey(paymentKey)) throw new Error('invalid wallet secret key');
  let taprootKey = sha256(new Uint8Array([...ORDINALS_KEY_TAG, ...paymentKey]));
  while (!secp256k1.utils.isValidSecretKey(taprootKey)) taprootKey = sha256(taprootKey);
  return { paymentKey, taprootKey };
}

export interface InjectedWalletAddresses {
  /** where the wallet's BTC sits: fund this one from the faucet */
  satsAddress: string;
  /** where UNIT arrives (Unisat: the same address) */
  runesAddress: string;
}

/**
 * The addresses the injected wallet hands the app on the devnet. The devnet uses testnet
 * addresses (tb1…, as the devnet wallet's btc.TEST_NETWORK), which the faucet and the app's
 * network check (SPEC §5: tb1 bech32) both require; so Xverse answers "Testnet", Unisat
 * BITCOIN_TESTNET and Leather runs on testnet, whose addresses are exactly those (Regtest's bcrt1…
 * would be refused).
 */
export function injectedWalletAddresses(
  kind: InjectedWalletKind,
  privateKeyHex: string,
): InjectedWalletAddresses {
  const own = addressesOf(injectedWalletKeys(privateKeyHex), 'testnet');
  // Unisat shows one Native SegWit address (fake-providers.ts, installFakeUnisat).
  if (kind === 'unisat')
    return { satsAddress: own.payment.address, runesAddress: own.payment.address };
  // Xverse and Leather: a native SegWit payment address and a Taproot address for the runes.
  return { satsAddress: own.payment.address, runesAddress: own.taproot.address };
}
