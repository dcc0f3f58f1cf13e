// The keys and addresses of an injected wallet, computed the same way in Node (to fund it from
// the devnet faucet) and in the page (where the injected provider signs with them).
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex, utf8 } from '@scure/base';
import { addressesOf, type TestWalletKeys } from '../../../apps/web/test/wallet/keys';

export type InjectedWalletKind = 'unisat' | 'xverse';

const ORDINALS_KEY_TAG = utf8.decode('unit/e2e/ordinals');

/**
 * The wallet's keys from one secret: it is the payment key; Xverse's ordinals (Taproot) account
 * gets a key of its own, derived from it, as a real Xverse derives it on another path.
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
 * network check (SPEC §5: tb1 bech32) both require; so Xverse answers "Testnet" and Unisat
 * BITCOIN_TESTNET, whose addresses are exactly those (Regtest's bcrt1… would be refused).
 */
export function injectedWalletAddresses(
  kind: InjectedWalletKind,
  privateKeyHex: string,
): InjectedWalletAddresses {
  const own = addressesOf(injectedWalletKeys(privateKeyHex), 'testnet');
  // Unisat shows one Native SegWit address (fake-providers.ts, installFakeUnisat).
  if (kind === 'unisat')
    return { satsAddress: own.payment.address, runesAddress: own.payment.address };
  return { satsAddress: own.payment.address, runesAddress: own.taproot.address };
}
