// MetaMask is an Ethereum wallet: we detect it (EIP-6963) only to tell its users plainly that it
// cannot hold a Bitcoin vault here, instead of leaving them wondering why it is missing.
import { WalletError, walletMessages } from '../errors';
import type { WalletAdapter } from '../types';

export const METAMASK_RDNS = 'io.metamask';

interface Eip6963Detail {
  info: { uuid: string; name: string; icon: string; rdns: string };
  provider: unknown;
}

/**
 * Listens for EIP-6963 announcements and asks wallets to announce themselves; calls `onFound` once
 * MetaMask answers (also when it injects itself later and announces on its own).
 */
export function watchMetaMask(onFound: () => void): () => void {
  const onAnnounce = (event: Event) => {
    const detail = (event as CustomEvent<Eip6963Detail>).detail;
    if (detail?.info?.rdns === METAMASK_RDNS || /metamask/i.test(detail?.info?.name ?? ''))
      onFound();
  };
  window.addEventListener('eip6963:announceProvider', onAnnounce);
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  return () => window.removeEventListener('eip6963:announceProvider', onAnnounce);
}

export function createMetaMaskAdapter(isDetected: () => boolean): WalletAdapter {
  const refuse = async (): Promise<never> => {
    throw new WalletError('unsupported', walletMessages.metamask);
  };
  return {
    id: 'metamask',
    reconnectsSilently: false,
    isInstalled: isDetected,
    connect: refuse,
    async disconnect() {},
    async accounts() {
      return null;
    },
    async network() {
      return 'unknown';
    },
    signPsbt: refuse,
    signMessage: refuse,
    subscribe: () => () => undefined,
  };
}
