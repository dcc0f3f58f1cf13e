// Extension wallets whose code loads when first used. The page's first render needs only whether
// each wallet is there and whether it reconnects without a prompt; the code that talks to it (and
// the PSBT helpers it brings) loads on the first connect, reconnect or signature.
import type { WalletAdapter, WalletId } from '../types';

/** What the provider asks of a wallet before using it. */
export interface AdapterFacts {
  id: WalletId;
  reconnectsSilently: boolean;
  isInstalled(): boolean;
  /** the adapter can ask the wallet to change network (it has switchNetwork) */
  switches: boolean;
}

export const XVERSE_DOWNLOAD_URL = 'https://www.xverse.app/download';
export const UNISAT_DOWNLOAD_URL = 'https://unisat.io/download';
export const LEATHER_DOWNLOAD_URL = 'https://leather.io/install-extension';

/** Xverse's injected global, typed here: sats-connect's own global type loads with its adapter. */
const xverseGlobal = (): { BitcoinProvider?: unknown } | undefined =>
  (globalThis as { XverseProviders?: { BitcoinProvider?: unknown } }).XverseProviders;

/** Extensions' globals, read without their adapters' code. */
export const EXTENSION_FACTS = {
  xverse: {
    id: 'xverse',
    reconnectsSilently: true,
    isInstalled: () => Boolean(xverseGlobal()?.BitcoinProvider),
    switches: true,
  },
  unisat: {
    id: 'unisat',
    reconnectsSilently: true,
    isInstalled: () => window.unisat !== undefined,
    switches: true,
  },
  leather: {
    id: 'leather',
    reconnectsSilently: false,
    isInstalled: () => window.LeatherProvider !== undefined,
    switches: false,
  },
} as const satisfies Record<string, AdapterFacts>;

/** An adapter with the wallet's facts now and its code on first use. */
export function onDemand(facts: AdapterFacts, load: () => Promise<WalletAdapter>): WalletAdapter {
  let loading: Promise<WalletAdapter> | null = null;
  const real = () =>
    (loading ??= load().catch((error: unknown) => {
      // a failed download is tried again on the next use
      loading = null;
      throw error;
    }));
  const adapter: WalletAdapter = {
    id: facts.id,
    reconnectsSilently: facts.reconnectsSilently,
    isInstalled: () => facts.isInstalled(),
    connect: async (opts) => (await real()).connect(opts),
    // nothing loaded, nothing connected: nothing to let go of
    disconnect: async () => (loading ? (await real()).disconnect() : undefined),
    accounts: async () => (await real()).accounts(),
    network: async () => (await real()).network(),
    signPsbt: async (psbt, opts) => (await real()).signPsbt(psbt, opts),
    signMessage: async (message) => (await real()).signMessage(message),
    subscribe(events) {
      let stop: (() => void) | null = null;
      let ended = false;
      void real().then(
        (loaded) => {
          if (!ended) stop = loaded.subscribe(events);
        },
        () => undefined,
      );
      return () => {
        ended = true;
        stop?.();
      };
    },
  };
  if (facts.switches)
    adapter.switchNetwork = async (target) => (await real()).switchNetwork?.(target);
  return adapter;
}
