// Xverse through sats-connect, loaded lazily: most visitors never pick Xverse, and the library pulls
// in its own dependencies. The payment address holds the sats, the ordinals (Taproot) address
// receives UNIT runes; its key, not the payment key, spends them and is the vault key.
import type { Network } from '@unit/protocol';
import { WalletError, toWalletError, walletMessages } from '../errors';
import { xOnlyKeyHex } from '../keys';
import { inputOwners } from '../psbt-signing';
import type { WalletAccount, WalletAdapter, WalletNetwork } from '../types';
import { EXTENSION_FACTS } from './on-demand';

export { XVERSE_DOWNLOAD_URL } from './on-demand';

type SatsConnect = typeof import('@sats-connect/core');
const loadSatsConnect = (): Promise<SatsConnect> => import('@sats-connect/core');

/** JSON-RPC error codes of sats-connect's RpcErrorCode (kept here to avoid loading it eagerly). */
const USER_REJECTION = -32000;
const ACCESS_DENIED = -32002;
const METHOD_NOT_FOUND = -32601;

interface RpcFailure {
  code: number;
  message: string;
}

function mapXverseError(error: RpcFailure): WalletError {
  if (error.code === USER_REJECTION) return new WalletError('rejected', walletMessages.rejected);
  if (error.code === ACCESS_DENIED)
    return new WalletError('no_accounts', 'Xverse has not shared an account with this app yet.');
  if (error.code === METHOD_NOT_FOUND)
    return new WalletError('unsupported', 'Update Xverse: this version cannot do that request.');
  return new WalletError('failed', error.message || 'Xverse could not complete the request.');
}

type RpcOutcome<T> = { status: 'success'; result: T } | { status: 'error'; error: RpcFailure };

function unwrap<T>(outcome: RpcOutcome<T>): T {
  if (outcome.status === 'error') throw mapXverseError(outcome.error);
  return outcome.result;
}

function networkOf(name: string): WalletNetwork {
  if (name === 'Mainnet') return 'mainnet';
  if (name === 'Signet') return 'signet';
  if (name === 'Testnet' || name === 'Testnet4' || name === 'Regtest') return 'testnet';
  return 'unknown';
}

interface XverseAddress {
  address: string;
  publicKey: string;
  purpose: string;
}

function accountOf(addresses: readonly XverseAddress[]): WalletAccount {
  const payment = addresses.find((a) => a.purpose === 'payment');
  const ordinals = addresses.find((a) => a.purpose === 'ordinals');
  if (!payment) throw new WalletError('no_accounts', walletMessages.noAccounts);
  if (!ordinals) throw new WalletError('no_accounts', walletMessages.taprootNeeded);
  // Xverse reports the ordinals key x-only already; older versions sent it compressed.
  const taprootKey = xOnlyKeyHex(ordinals.publicKey);
  return {
    satsAddress: payment.address,
    satsPublicKey: payment.publicKey.toLowerCase(),
    vaultPubkey: taprootKey,
    runesAddress: ordinals.address,
    runesPublicKey: taprootKey,
  };
}

export function createXverseAdapter(
  isPresent: () => boolean = EXTENSION_FACTS.xverse.isInstalled,
): WalletAdapter {
  let account: WalletAccount | null = null;
  let walletNetwork: WalletNetwork = 'unknown';

  const satsConnect = async () => {
    if (!isPresent()) throw new WalletError('not_installed', walletMessages.notInstalled('Xverse'));
    return loadSatsConnect();
  };

  const call = async <T>(run: (sc: SatsConnect) => Promise<unknown>): Promise<T> => {
    const sc = await satsConnect();
    let outcome: unknown;
    try {
      outcome = await run(sc);
    } catch (error) {
      throw toWalletError(error, 'Xverse could not complete the request.');
    }
    return unwrap(outcome as RpcOutcome<T>);
  };

  return {
    id: 'xverse',
    reconnectsSilently: EXTENSION_FACTS.xverse.reconnectsSilently,
    isInstalled: isPresent,
    async connect(opts) {
      // wallet_getAccount answers only for an app Xverse already trusts: a silent reconnect.
      const result = opts?.silent
        ? await call<{ addresses: XverseAddress[]; network: { bitcoin: { name: string } } }>((sc) =>
            sc.request('wallet_getAccount', null),
          )
        : await call<{ addresses: XverseAddress[]; network: { bitcoin: { name: string } } }>((sc) =>
            sc.request('wallet_connect', {
              addresses: [sc.AddressPurpose.Payment, sc.AddressPurpose.Ordinals],
              message: 'Connect to open a UNIT vault.',
            }),
          );
      walletNetwork = networkOf(result.network.bitcoin.name);
      account = accountOf(result.addresses);
      return account;
    },
    async disconnect() {
      account = null;
      if (!isPresent()) return;
      // Best effort: a wallet that cannot revoke is still forgotten on our side.
      await call((sc) => sc.request('wallet_disconnect', null)).catch(() => undefined);
    },
    async accounts() {
      if (!isPresent()) return null;
      try {
        const result = await call<{ addresses: XverseAddress[] }>((sc) =>
          sc.request('wallet_getAccount', null),
        );
        account = accountOf(result.addresses);
        return account;
      } catch {
        return null;
      }
    },
    async network() {
      try {
        const result = await call<{ bitcoin: { name: string } }>((sc) =>
          sc.request('wallet_getNetwork', null),
        );
        walletNetwork = networkOf(result.bitcoin.name);
      } catch {
        // older Xverse versions: keep what wallet_connect said
      }
      return walletNetwork;
    },
    async switchNetwork(target: Network) {
      await call((sc) =>
        sc.request('wallet_changeNetwork', {
          name:
            target === 'mainnet'
              ? sc.BitcoinNetworkType.Mainnet
              : target === 'devnet'
                ? sc.BitcoinNetworkType.Testnet
                : sc.BitcoinNetworkType.Signet,
        }),
      );
      walletNetwork = target === 'devnet' ? 'testnet' : target;
    },
    async balance() {
      const result = await call<{ total: string }>((sc) => sc.request('getBalance', null));
      return BigInt(result.total);
    },
    async signPsbt(psbtBase64, { signInputs }) {
      if (!account) throw new WalletError('failed', 'Connect Xverse first.');
      const current = account;
      // sats-connect wants the inputs grouped by the address whose key signs them: the payment
      // address for payment inputs, the ordinals address for UNIT (runes) inputs and for the
      // vault's update leaf (the ordinals key is the vault key).
      const owners = await inputOwners(psbtBase64, signInputs, current);
      const byAddress: Record<string, number[]> = {};
      for (const index of signInputs) {
        const owner = owners.get(index);
        const address = owner === 'payment' ? current.satsAddress : current.runesAddress;
        (byAddress[address] ??= []).push(index);
      }
      const result = await call<{ psbt: string }>((sc) =>
        sc.request('signPsbt', { psbt: psbtBase64, signInputs: byAddress, broadcast: false }),
      );
      return result.psbt;
    },
    async signMessage(message) {
      if (!account) throw new WalletError('failed', 'Connect Xverse first.');
      const address = account.satsAddress;
      // BIP-322 explicitly: for a payment address Xverse would default to a legacy ECDSA signature.
      const result = await call<{ signature: string }>((sc) =>
        sc.request('signMessage', {
          address,
          message,
          protocol: sc.MessageSigningProtocols.BIP322,
        }),
      );
      return result.signature;
    },
    subscribe(events) {
      let off: Array<() => void> = [];
      let closed = false;
      if (isPresent())
        void loadSatsConnect().then((sc) => {
          if (closed) return;
          off = [
            sc.addListener('accountChange', () => events.onAccountsChanged?.()),
            sc.addListener('networkChange', () => events.onNetworkChanged?.()),
          ];
        });
      return () => {
        closed = true;
        off.forEach((unsubscribe) => unsubscribe());
      };
    },
  };
}
