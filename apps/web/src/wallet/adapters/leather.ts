// Leather through window.LeatherProvider's request(method, params) RPC. Leather hands out a native
// segwit address (sats) and a Taproot address (runes) with a key of its own, which is the vault key.
// Every request opens Leather's popup (getAddresses as well), so a reload cannot reconnect silently.
import type { Network } from '@unit/protocol';
import { WalletError, toWalletError, walletMessages } from '../errors';
import { xOnlyKeyHex } from '../keys';
import { addressNetwork } from '../network';
import { assertInputsSigned, psbtBase64ToHex, psbtHexToBase64 } from '../psbt-signing';
import type { WalletAccount, WalletAdapter, WalletNetwork } from '../types';
import { EXTENSION_FACTS } from './on-demand';

export { LEATHER_DOWNLOAD_URL } from './on-demand';

export interface LeatherAddress {
  symbol: string;
  type?: 'p2wpkh' | 'p2tr' | string;
  address: string;
  /** compressed (33 bytes), the Taproot one too */
  publicKey?: string;
  /** Taproot only: the same key x-only */
  tweakedPublicKey?: string;
  derivationPath?: string;
}

/**
 * The subset of Leather's RPC we call. It resolves the whole JSON-RPC response `{ jsonrpc, id,
 * result }` and rejects with the whole error response `{ jsonrpc, id, error: { code, message } }`.
 */
export interface LeatherApi {
  request(
    method: 'getAddresses',
  ): Promise<{ jsonrpc: '2.0'; id: string; result: { addresses: LeatherAddress[] } }>;
  request(
    method: 'signPsbt',
    params: { hex: string; signAtIndex?: number | number[]; network?: string; broadcast?: boolean },
  ): Promise<{ jsonrpc: '2.0'; id: string; result: { hex: string; txid?: string } }>;
  request(
    method: 'signMessage',
    params: { message: string; paymentType?: 'p2wpkh' | 'p2tr'; network?: string },
  ): Promise<{
    jsonrpc: '2.0';
    id: string;
    result: { signature: string; address: string; message?: string };
  }>;
}

declare global {
  interface Window {
    LeatherProvider?: LeatherApi;
  }
}

const LEATHER_REJECTED = 4001;
const JSON_RPC_USER_REJECTION = -32000;

function mapLeatherError(error: unknown): WalletError {
  const inner = (error as { error?: { code?: number; message?: string } } | null)?.error;
  const code = inner?.code ?? (error as { code?: number } | null)?.code;
  if (code === LEATHER_REJECTED || code === JSON_RPC_USER_REJECTION)
    return new WalletError('rejected', walletMessages.rejected);
  return toWalletError(inner ?? error, 'Leather could not complete the request.');
}

/** Leather's network names for its `network` parameter. */
const leatherNetwork = (network: Network) =>
  network === 'mainnet' ? 'mainnet' : network === 'devnet' ? 'testnet' : 'signet';

export function createLeatherAdapter(
  getApi: () => LeatherApi | undefined = () => window.LeatherProvider,
  appNetwork: Network = 'mainnet',
): WalletAdapter {
  let account: WalletAccount | null = null;

  const api = () => {
    const found = getApi();
    if (!found) throw new WalletError('not_installed', walletMessages.notInstalled('Leather'));
    return found;
  };

  return {
    id: 'leather',
    reconnectsSilently: EXTENSION_FACTS.leather.reconnectsSilently,
    isInstalled: () => getApi() !== undefined,
    async connect() {
      const leather = api();
      let addresses: LeatherAddress[];
      try {
        addresses = (await leather.request('getAddresses')).result.addresses;
      } catch (error) {
        throw mapLeatherError(error);
      }
      const btc = addresses.filter((a) => a.symbol === 'BTC');
      const payment = btc.find((a) => a.type === 'p2wpkh');
      const taproot = btc.find((a) => a.type === 'p2tr');
      if (!payment?.publicKey) throw new WalletError('no_accounts', walletMessages.noAccounts);
      if (!taproot?.publicKey) throw new WalletError('no_accounts', walletMessages.taprootNeeded);
      // Leather reports its Taproot key compressed (33 bytes).
      const taprootKey = xOnlyKeyHex(taproot.publicKey);
      account = {
        satsAddress: payment.address,
        satsPublicKey: payment.publicKey.toLowerCase(),
        vaultPubkey: taprootKey,
        runesAddress: taproot.address,
        runesPublicKey: taprootKey,
      };
      return account;
    },
    async disconnect() {
      account = null;
    },
    async accounts() {
      return account;
    },
    async network(): Promise<WalletNetwork> {
      // Leather has no network query in its RPC: its addresses tell.
      return account ? addressNetwork(account.satsAddress) : 'unknown';
    },
    async signPsbt(psbtBase64, { signInputs }) {
      const leather = api();
      // signAtIndex names inputs only: Leather signs each with whichever of its two keys (native
      // segwit, Taproot) the input needs, so payment, UNIT and vault inputs go in one list.
      let signed: string;
      try {
        const { result } = await leather.request('signPsbt', {
          hex: psbtBase64ToHex(psbtBase64),
          signAtIndex: signInputs,
          network: leatherNetwork(appNetwork),
          broadcast: false,
        });
        signed = psbtHexToBase64(result.hex);
      } catch (error) {
        throw mapLeatherError(error);
      }
      // Leather leaves an input neither of its keys can sign as it was, without a word (another
      // account selected in Leather since connecting): say so here, not as the guardian's refusal.
      await assertInputsSigned(psbtBase64, signed, signInputs);
      return signed;
    },
    async signMessage(message) {
      const leather = api();
      try {
        const { result } = await leather.request('signMessage', {
          message,
          paymentType: 'p2wpkh',
          network: leatherNetwork(appNetwork),
        });
        return result.signature;
      } catch (error) {
        throw mapLeatherError(error);
      }
    },
    subscribe() {
      // Leather emits no account or network events to web pages.
      return () => undefined;
    },
  };
}
