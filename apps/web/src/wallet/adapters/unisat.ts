// Unisat through its injected window.unisat API. Unisat shares one address per account, so that
// address is both the sats and the runes address, spent with the one key; its key (x-only) is the
// vault key.
import type { Network } from '@unit/protocol';
import { WalletError, toWalletError, walletMessages } from '../errors';
import { spendingKeyHex, xOnlyKeyHex } from '../keys';
import { addressNetwork } from '../network';
import { inputOwners, psbtBase64ToHex, psbtHexToBase64 } from '../psbt-signing';
import type { WalletAccount, WalletAdapter, WalletNetwork } from '../types';
import { EXTENSION_FACTS } from './on-demand';

export { UNISAT_DOWNLOAD_URL } from './on-demand';

/** The part of window.unisat we use (docs.unisat.io, "UniSat Wallet API"). */
export interface UnisatApi {
  requestAccounts(): Promise<string[]>;
  getAccounts(): Promise<string[]>;
  getPublicKey(): Promise<string>;
  getBalance(): Promise<{ confirmed: number; unconfirmed: number; total: number }>;
  getChain?(): Promise<{ enum: string; name: string; network: string }>;
  switchChain?(chain: string): Promise<unknown>;
  getNetwork?(): Promise<string>;
  switchNetwork?(network: string): Promise<unknown>;
  signPsbt(
    psbtHex: string,
    options: {
      autoFinalized: boolean;
      toSignInputs: { index: number; publicKey: string; disableTweakSigner?: boolean }[];
    },
  ): Promise<string>;
  signMessage(message: string, type?: 'ecdsa' | 'bip322-simple'): Promise<string>;
  on(event: 'accountsChanged' | 'networkChanged' | 'chainChanged', handler: () => void): void;
  removeListener(
    event: 'accountsChanged' | 'networkChanged' | 'chainChanged',
    handler: () => void,
  ): void;
}

declare global {
  interface Window {
    unisat?: UnisatApi;
  }
}

const UNISAT_REJECTED = 4001;

/** Unisat chain enums (getChain / switchChain) against our networks. */
function chainToNetwork(chain: string): WalletNetwork {
  if (chain === 'BITCOIN_MAINNET') return 'mainnet';
  if (chain === 'BITCOIN_SIGNET') return 'signet';
  if (chain.startsWith('BITCOIN_TESTNET')) return 'testnet';
  return 'unknown';
}

const networkToChain = (network: Network) =>
  network === 'mainnet'
    ? 'BITCOIN_MAINNET'
    : network === 'devnet'
      ? 'BITCOIN_TESTNET'
      : 'BITCOIN_SIGNET';

function mapUnisatError(error: unknown): WalletError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === UNISAT_REJECTED) return new WalletError('rejected', walletMessages.rejected);
  return toWalletError(error, 'Unisat could not complete the request.');
}

export function createUnisatAdapter(
  getApi: () => UnisatApi | undefined = () => window.unisat,
): WalletAdapter {
  let account: WalletAccount | null = null;

  const api = () => {
    const found = getApi();
    if (!found) throw new WalletError('not_installed', walletMessages.notInstalled('Unisat'));
    return found;
  };

  const accountOf = async (unisat: UnisatApi, addresses: string[]) => {
    const address = addresses[0];
    if (!address) return null;
    const publicKey = (await unisat.getPublicKey()).toLowerCase();
    const next: WalletAccount = {
      satsAddress: address,
      satsPublicKey: publicKey,
      vaultPubkey: xOnlyKeyHex(publicKey),
      runesAddress: address,
      runesPublicKey: spendingKeyHex(address, publicKey),
    };
    return next;
  };

  return {
    id: 'unisat',
    reconnectsSilently: EXTENSION_FACTS.unisat.reconnectsSilently,
    isInstalled: () => getApi() !== undefined,
    async connect(opts) {
      const unisat = api();
      try {
        // Silent reconnect reads the accounts already granted; it never opens a prompt.
        const addresses = opts?.silent
          ? await unisat.getAccounts()
          : await unisat.requestAccounts();
        const next = await accountOf(unisat, addresses);
        if (!next) throw new WalletError('no_accounts', walletMessages.noAccounts);
        account = next;
        return next;
      } catch (error) {
        throw mapUnisatError(error);
      }
    },
    async disconnect() {
      // Unisat has no revoke call: forgetting the account is all a dapp can do.
      account = null;
    },
    async accounts() {
      const unisat = getApi();
      if (!unisat) return null;
      const addresses = await unisat.getAccounts().catch(() => []);
      account = await accountOf(unisat, addresses);
      return account;
    },
    async network() {
      const unisat = api();
      if (unisat.getChain) return chainToNetwork((await unisat.getChain()).enum);
      if (unisat.getNetwork) {
        const name = await unisat.getNetwork();
        return name === 'livenet' ? 'mainnet' : name === 'testnet' ? 'testnet' : 'unknown';
      }
      return account ? addressNetwork(account.satsAddress) : 'unknown';
    },
    async switchNetwork(target) {
      const unisat = api();
      try {
        if (unisat.switchChain) await unisat.switchChain(networkToChain(target));
        else if (unisat.switchNetwork)
          await unisat.switchNetwork(target === 'mainnet' ? 'livenet' : 'testnet');
        else throw new WalletError('unsupported', walletMessages.wrongNetworkNoSwitch(target));
      } catch (error) {
        throw mapUnisatError(error);
      }
    },
    async balance() {
      const { total } = await api().getBalance();
      return BigInt(total);
    },
    async signPsbt(psbtBase64, { signInputs }) {
      const unisat = api();
      if (!account) throw new WalletError('failed', 'Connect Unisat first.');
      const owners = await inputOwners(psbtBase64, signInputs, account);
      // One key signs every input (payment, UNIT, vault); Unisat wants it as it reported it.
      const toSignInputs = signInputs.map((index) => ({
        index,
        publicKey: account!.satsPublicKey,
        // A vault input is a script-path spend: sign with the untweaked key.
        ...(owners.get(index) === 'vault' ? { disableTweakSigner: true } : {}),
      }));
      try {
        const signed = await unisat.signPsbt(psbtBase64ToHex(psbtBase64), {
          autoFinalized: false,
          toSignInputs,
        });
        return psbtHexToBase64(signed);
      } catch (error) {
        throw mapUnisatError(error);
      }
    },
    async signMessage(message) {
      try {
        // BIP-322 simple: what the server verifies for every address type Unisat uses.
        return await api().signMessage(message, 'bip322-simple');
      } catch (error) {
        throw mapUnisatError(error);
      }
    },
    subscribe(events) {
      const unisat = getApi();
      if (!unisat) return () => undefined;
      const onAccounts = () => events.onAccountsChanged?.();
      const onNetwork = () => events.onNetworkChanged?.();
      unisat.on('accountsChanged', onAccounts);
      unisat.on('networkChanged', onNetwork);
      unisat.on('chainChanged', onNetwork);
      return () => {
        unisat.removeListener('accountsChanged', onAccounts);
        unisat.removeListener('networkChanged', onNetwork);
        unisat.removeListener('chainChanged', onNetwork);
      };
    },
  };
}
