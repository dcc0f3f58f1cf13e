// Runs inside the page, before the app's own scripts (bundled by inject.ts for
// page.addInitScript): stands an Unisat-, Xverse- or Leather-shaped extension on window with the
// wallet's real API, signing with real secp256k1 keys. The providers are the ones the wallet unit
// tests use (apps/web/test/wallet/fake-providers.ts), set to the devnet's testnet addresses.
import {
  installFakeLeather,
  installFakeUnisat,
  installFakeXverse,
} from '../../../apps/web/test/wallet/fake-providers';
import { injectedWalletKeys, type InjectedWalletKind } from './keys';
// The app's adapter declares window.unisat; its declarations come into this program with it.
import type {} from '../../../apps/web/src/wallet/adapters/unisat';

export interface InjectedWalletOptions {
  kind: InjectedWalletKind;
  privateKeyHex: string;
  /** Unisat only: the chain the extension starts on (the devnet's testnet addresses by default). */
  unisatChain?: 'BITCOIN_TESTNET' | 'BITCOIN_MAINNET';
  /** The user declines the first request the app makes (connect). */
  rejectFirst?: boolean;
}

/** A real extension remembers which sites it trusts; the injected one keeps that per origin. */
const GRANT_STORAGE = 'e2e.injected-wallet.granted';

function grantStore() {
  try {
    const storage = window.localStorage;
    return {
      granted: () => storage.getItem(GRANT_STORAGE) === '1',
      grant: () => storage.setItem(GRANT_STORAGE, '1'),
      revoke: () => storage.removeItem(GRANT_STORAGE),
    };
  } catch {
    // about:blank and other opaque origins have no storage: no memory there, and no app either.
    return { granted: () => false, grant: () => undefined, revoke: () => undefined };
  }
}

export function installInjectedWallet({
  kind,
  privateKeyHex,
  unisatChain = 'BITCOIN_TESTNET',
  rejectFirst = false,
}: InjectedWalletOptions): void {
  const keys = injectedWalletKeys(privateKeyHex);
  const grants = grantStore();
  if (kind === 'unisat') {
    const state = installFakeUnisat({ key: keys.paymentKey, chain: unisatChain });
    state.granted = grants.granted();
    state.rejectNext = rejectFirst;
    const unisat = window.unisat!;
    const requestAccounts = unisat.requestAccounts.bind(unisat);
    unisat.requestAccounts = async () => {
      const accounts = await requestAccounts();
      grants.grant();
      return accounts;
    };
    return;
  }
  if (kind === 'leather') {
    // Leather asks in its popup on every request, getAddresses too: nothing to remember here.
    const state = installFakeLeather({ keys, network: 'testnet' });
    state.rejectNext = rejectFirst;
    return;
  }
  const state = installFakeXverse({ keys, network: 'Testnet' });
  state.connected = grants.granted();
  state.rejectNext = rejectFirst;
  const provider = (
    window as unknown as {
      XverseProviders: { BitcoinProvider: { request(m: string, p: unknown): Promise<unknown> } };
    }
  ).XverseProviders.BitcoinProvider;
  const request = provider.request.bind(provider);
  provider.request = async (method, params) => {
    const reply = await request(method, params);
    if (method === 'wallet_connect' && state.connected) grants.grant();
    if (method === 'wallet_disconnect') grants.revoke();
    return reply;
  };
}
