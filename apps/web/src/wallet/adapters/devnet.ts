// Devnet wallet: a key kept in this browser, offered only when the app runs on the devnet
// network. It signs like a real wallet would, so the whole vault flow runs without an extension.
import type { Network } from '@unit/protocol';
import { callApi } from '../../api/call';
import { keepDevnetAccount, keptDevnetAccount } from '../devnet-account-cache';
import { DEVNET_FUNDED_STORAGE, DEVNET_KEY_STORAGE } from '../devnet-storage';
import { WalletError, walletMessages } from '../errors';
import type { WalletAccount, WalletAdapter, WalletNetwork } from '../types';

/** What the faucet gives a new devnet wallet: 1 BTC (CONSTANTS.md, devnet defaults). */
export const DEVNET_FAUCET_SATS = 100_000_000;

export interface DevnetAdapterOptions {
  network: Network;
  storage?: Storage;
  /** POST /api/devnet/faucet; a test hands in its own */
  requestFaucet?: (address: string, sats: number) => Promise<void>;
}

export interface DevnetAdapter extends WalletAdapter {
  fund(): Promise<void>;
  exportKey(): Promise<{ hex: string; wif: string } | null>;
  /** true once the faucet paid this key (the first use funds it automatically) */
  isFunded(): boolean;
}

const postFaucet = async (address: string, sats: number) => {
  await callApi('devnetFaucet', { body: { address, sats } });
};

// The key and curve code load on first use, keeping them out of every page's first download.
const keyModule = () => import('../devnet-key');

/** Derives the account of a devnet secret: addresses need btc-signer, loaded on first connect. */
export async function devnetAccountOf(secret: Uint8Array): Promise<WalletAccount> {
  // One round trip for the three, not one each.
  const [btc, { secp256k1, schnorr }, { deriveDevnetKeys }, { hex }] = await Promise.all([
    import('@scure/btc-signer'),
    import('@noble/curves/secp256k1.js'),
    keyModule(),
    import('@scure/base'),
  ]);
  const { paymentKey, vaultKey } = deriveDevnetKeys(secret);
  const paymentPub = secp256k1.getPublicKey(paymentKey, true);
  return {
    satsAddress: btc.p2wpkh(paymentPub, btc.TEST_NETWORK).address!,
    satsPublicKey: hex.encode(paymentPub),
    vaultPubkey: hex.encode(schnorr.getPublicKey(vaultKey)),
    // The runes address is the payment key's Taproot output (key path).
    runesAddress: btc.p2tr(paymentPub.subarray(1), undefined, btc.TEST_NETWORK).address!,
    runesPublicKey: hex.encode(paymentPub.subarray(1)),
  };
}

export function createDevnetAdapter(options: DevnetAdapterOptions): DevnetAdapter {
  const storage = options.storage ?? window.localStorage;
  const requestFaucet = options.requestFaucet ?? postFaucet;
  let connected: WalletAccount | null = null;

  const fund = async () => {
    const { readDevnetSecret } = await keyModule();
    const secret = readDevnetSecret(storage);
    if (!secret) throw new WalletError('failed', 'Connect the devnet wallet first.');
    const account = connected ?? (await devnetAccountOf(secret));
    await requestFaucet(account.satsAddress, DEVNET_FAUCET_SATS);
    storage.setItem(DEVNET_FUNDED_STORAGE, '1');
  };

  return {
    id: 'devnet',
    reconnectsSilently: true,
    isInstalled: () => options.network === 'devnet',
    async connect() {
      if (options.network !== 'devnet')
        throw new WalletError(
          'unsupported',
          'The devnet wallet only exists on the devnet network.',
        );
      // A funded key's account as it was derived last time: no curve code to load and run.
      const kept =
        storage.getItem(DEVNET_FUNDED_STORAGE) === '1' ? await keptDevnetAccount(storage) : null;
      if (kept) return (connected = kept);
      // The address code downloads beside the key's, not after it (devnetAccountOf awaits it).
      void import('@scure/btc-signer').catch(() => undefined);
      const { loadOrCreateDevnetSecret } = await keyModule();
      const { secret } = loadOrCreateDevnetSecret(storage);
      connected = await devnetAccountOf(secret);
      await keepDevnetAccount(storage, connected);
      // First use of a key: ask the faucet once, so the wallet can open a vault right away.
      // A failing faucet is no reason to refuse the connection; the Fund action retries.
      if (storage.getItem(DEVNET_FUNDED_STORAGE) !== '1') await fund().catch(() => undefined);
      return connected;
    },
    async disconnect() {
      connected = null;
    },
    async accounts() {
      if (connected) return connected;
      const { readDevnetSecret } = await keyModule();
      const secret = readDevnetSecret(storage);
      return secret ? devnetAccountOf(secret) : null;
    },
    async network(): Promise<WalletNetwork> {
      return 'devnet';
    },
    async signPsbt(psbtBase64, { signInputs }) {
      const [{ deriveDevnetKeys, readDevnetSecret }, { signPsbtWithKeys }] = await Promise.all([
        keyModule(),
        import('../psbt-signing'),
      ]);
      const secret = readDevnetSecret(storage);
      if (!secret) throw new WalletError('failed', walletMessages.noSigner);
      const { paymentKey, vaultKey } = deriveDevnetKeys(secret);
      return signPsbtWithKeys(psbtBase64, signInputs, [paymentKey, vaultKey]);
    },
    async signMessage(message) {
      const { deriveDevnetKeys, readDevnetSecret } = await keyModule();
      const secret = readDevnetSecret(storage);
      if (!secret) throw new WalletError('failed', walletMessages.noSigner);
      // BIP-322 simple by the sats (P2WPKH) address, the identity the app signs in with.
      const [btc, { secp256k1 }, { signBip322Simple }] = await Promise.all([
        import('@scure/btc-signer'),
        import('@noble/curves/secp256k1.js'),
        import('@unit/bitcoin'),
      ]);
      const { paymentKey } = deriveDevnetKeys(secret);
      const script = btc.p2wpkh(secp256k1.getPublicKey(paymentKey, true), btc.TEST_NETWORK).script;
      return signBip322Simple({ message, script, secretKey: paymentKey });
    },
    subscribe(events) {
      // Another tab replacing the key is the devnet wallet's "account changed".
      const onStorage = (event: StorageEvent) => {
        if (event.key === DEVNET_KEY_STORAGE) events.onAccountsChanged?.();
      };
      window.addEventListener('storage', onStorage);
      return () => window.removeEventListener('storage', onStorage);
    },
    fund,
    async exportKey() {
      const { exportDevnetSecret, readDevnetSecret } = await keyModule();
      const secret = readDevnetSecret(storage);
      return secret ? exportDevnetSecret(secret) : null;
    },
    isFunded: () => storage.getItem(DEVNET_FUNDED_STORAGE) === '1',
  };
}
