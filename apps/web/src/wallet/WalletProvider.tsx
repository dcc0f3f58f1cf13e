import type { ConfigDto, Network } from '@unit/protocol';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { createDevnetAdapter, type DevnetAdapter } from './adapters/devnet';
import { createMetaMaskAdapter, watchMetaMask } from './adapters/metamask';
import { EXTENSION_FACTS, onDemand } from './adapters/on-demand';
import { availableWallets } from './catalog';
import { rememberVaultKey } from './vault-key-cookie';
import { WalletError, isRejection, toWalletError, walletMessages } from './errors';
import { assertAccountOnNetwork, networkLabel, networkMatches } from './network';
import type {
  SignPsbtOptions,
  WalletAccount,
  WalletAdapter,
  WalletContextValue,
  WalletId,
  WalletStatus,
  WrongNetwork,
} from './types';

/** Which wallet was connected last, so a reload reconnects it (where the wallet allows). */
export const REMEMBERED_WALLET_STORAGE = 'unit.wallet.last';
/** Extensions may inject after the page loads: look again for this long (ms). */
export const LATE_INJECTION_WINDOW_MS = 3_000;
export const LATE_INJECTION_POLL_MS = 250;

const WALLET_IDS: WalletId[] = ['xverse', 'unisat', 'leather', 'metamask', 'devnet'];

export interface WalletInternals extends WalletContextValue {
  /** re-reads which extensions are injected (the picker polls it while open) */
  refreshAvailable(): void;
  /** devnet only: the key as hex and WIF */
  exportDevnetKey?(): Promise<{ hex: string; wif: string } | null>;
}

const WalletContext = createContext<WalletInternals | null>(null);

interface State {
  status: WalletStatus;
  walletId: WalletId | null;
  account: WalletAccount | null;
  error: string | null;
  wrongNetwork: WrongNetwork | null;
}

const DISCONNECTED: State = {
  status: 'disconnected',
  walletId: null,
  account: null,
  error: null,
  wrongNetwork: null,
};

export interface WalletProviderProps {
  config: ConfigDto;
  children: ReactNode;
  /** tests hand in adapters driving their fake providers; the app uses the real ones */
  adapters?: Partial<Record<WalletId, WalletAdapter>>;
  storage?: Storage;
}

function useAdapters(
  network: Network,
  storage: Storage,
  metamaskSeen: () => boolean,
  overrides?: Partial<Record<WalletId, WalletAdapter>>,
): Record<WalletId, WalletAdapter> {
  return useMemo(
    () => ({
      // the extensions' code loads when one is used (on-demand.ts)
      xverse:
        overrides?.xverse ??
        onDemand(EXTENSION_FACTS.xverse, async () =>
          (await import('./adapters/xverse')).createXverseAdapter(),
        ),
      unisat:
        overrides?.unisat ??
        onDemand(EXTENSION_FACTS.unisat, async () =>
          (await import('./adapters/unisat')).createUnisatAdapter(),
        ),
      leather:
        overrides?.leather ??
        onDemand(EXTENSION_FACTS.leather, async () =>
          (await import('./adapters/leather')).createLeatherAdapter(undefined, network),
        ),
      metamask: overrides?.metamask ?? createMetaMaskAdapter(metamaskSeen),
      devnet: overrides?.devnet ?? createDevnetAdapter({ network, storage }),
    }),
    [network, storage, metamaskSeen, overrides],
  );
}

export function WalletProvider({
  config,
  children,
  adapters: overrides,
  storage,
}: WalletProviderProps) {
  const store = storage ?? window.localStorage;
  const appNetwork = config.network;
  const metamaskRef = useRef(false);
  const metamaskSeen = useCallback(() => metamaskRef.current, []);
  const adapters = useAdapters(appNetwork, store, metamaskSeen, overrides);
  const [state, setState] = useState<State>(DISCONNECTED);
  // Until the remembered wallet's silent reconnect settles, the page cannot tell a returning user
  // from a new one: it waits rather than flash the welcome screen.
  const [restoring, setRestoring] = useState(() => {
    const remembered = store.getItem(REMEMBERED_WALLET_STORAGE) as WalletId | null;
    return (
      remembered != null &&
      WALLET_IDS.includes(remembered) &&
      adapters[remembered].reconnectsSilently
    );
  });
  const [installed, setInstalled] = useState<Record<WalletId, boolean>>(() => detect(adapters));
  // A newer connect() supersedes an older one still waiting for its wallet.
  const attempt = useRef(0);

  const refreshAvailable = useCallback(() => {
    const next = detect(adapters);
    setInstalled((prev) => (WALLET_IDS.every((id) => prev[id] === next[id]) ? prev : next));
  }, [adapters]);

  useEffect(() => {
    // Adapters may have changed since the first detection: look again once mounted.
    const again = setTimeout(refreshAvailable, 0);
    const stopWatching = watchMetaMask(() => {
      metamaskRef.current = true;
      refreshAvailable();
    });
    return () => {
      clearTimeout(again);
      stopWatching();
    };
  }, [refreshAvailable]);

  /** Checks the wallet's network and addresses; only an account passing both is kept. */
  const accept = useCallback(
    async (adapter: WalletAdapter, account: WalletAccount) => {
      const walletNetwork = await adapter.network();
      if (!networkMatches(appNetwork, walletNetwork))
        throw new WalletError(
          'wrong_network',
          walletMessages.wrongNetwork(networkLabel[walletNetwork], networkLabel[appNetwork]),
        );
      assertAccountOnNetwork(account, appNetwork);
    },
    [appNetwork],
  );

  const fail = useCallback(
    (id: WalletId, error: unknown) => {
      if (isRejection(error)) {
        // The user said no in the wallet: back to the start, no error banner.
        setState(DISCONNECTED);
        return;
      }
      const walletError = toWalletError(error);
      const adapter = adapters[id];
      setState({
        ...DISCONNECTED,
        walletId: walletError.code === 'wrong_network' ? id : null,
        error: walletError.message,
        wrongNetwork:
          walletError.code === 'wrong_network'
            ? { message: walletError.message, canSwitch: Boolean(adapter.switchNetwork) }
            : null,
      });
    },
    [adapters],
  );

  const establish = useCallback(
    async (id: WalletId, silent: boolean) => {
      const adapter = adapters[id];
      const mine = ++attempt.current;
      if (!silent) setState({ ...DISCONNECTED, status: 'connecting', walletId: id });
      try {
        const account = await adapter.connect({ silent });
        await accept(adapter, account);
        if (mine !== attempt.current) return;
        store.setItem(REMEMBERED_WALLET_STORAGE, id);
        setState({ status: 'connected', walletId: id, account, error: null, wrongNetwork: null });
      } catch (error) {
        if (mine !== attempt.current) return;
        if (silent) {
          // A silent reconnect that fails just leaves the user disconnected.
          store.removeItem(REMEMBERED_WALLET_STORAGE);
          setState(DISCONNECTED);
          return;
        }
        fail(id, error);
      }
    },
    [adapters, accept, fail, store],
  );

  const connect = useCallback((id: WalletId) => establish(id, false), [establish]);

  const disconnect = useCallback(() => {
    attempt.current++;
    const id = state.walletId;
    store.removeItem(REMEMBERED_WALLET_STORAGE);
    setState(DISCONNECTED);
    if (id) void adapters[id].disconnect().catch(() => undefined);
  }, [adapters, state.walletId, store]);

  // Reconnect the remembered wallet once, waiting a little for a late-injected extension.
  useEffect(() => {
    const remembered = store.getItem(REMEMBERED_WALLET_STORAGE) as WalletId | null;
    if (!remembered || !WALLET_IDS.includes(remembered)) return;
    const adapter = adapters[remembered];
    if (!adapter.reconnectsSilently) return;
    let cancelled = false;
    const started = Date.now();
    const tryNow = () => {
      if (cancelled) return;
      if (adapter.isInstalled())
        void establish(remembered, true).finally(() => setRestoring(false));
      else if (Date.now() - started < LATE_INJECTION_WINDOW_MS)
        timer = setTimeout(tryNow, LATE_INJECTION_POLL_MS);
      else setRestoring(false);
    };
    let timer = setTimeout(tryNow, 0);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // Only on mount (and if the adapters themselves change).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [adapters]);

  // Follow account and network switches made inside the wallet.
  const connectedId = state.status === 'connected' ? state.walletId : null;
  useEffect(() => {
    if (!connectedId) return;
    const adapter = adapters[connectedId];
    const recheck = async () => {
      try {
        const account = await adapter.accounts();
        if (!account) {
          setState(DISCONNECTED);
          store.removeItem(REMEMBERED_WALLET_STORAGE);
          return;
        }
        await accept(adapter, account);
        setState({
          status: 'connected',
          walletId: connectedId,
          account,
          error: null,
          wrongNetwork: null,
        });
      } catch (error) {
        fail(connectedId, error);
      }
    };
    return adapter.subscribe({
      onAccountsChanged: () => void recheck(),
      onNetworkChanged: () => void recheck(),
    });
  }, [adapters, connectedId, accept, fail, store]);

  const signPsbt = useCallback(
    async (psbtBase64: string, opts: SignPsbtOptions) => {
      if (state.status !== 'connected' || !state.walletId)
        throw new WalletError('failed', 'Connect a wallet first.');
      return adapters[state.walletId].signPsbt(psbtBase64, opts);
    },
    [adapters, state.status, state.walletId],
  );

  const signMessage = useCallback(
    async (message: string) => {
      if (state.status !== 'connected' || !state.walletId)
        throw new WalletError('failed', 'Connect a wallet first.');
      return adapters[state.walletId].signMessage(message);
    },
    [adapters, state.status, state.walletId],
  );

  const pendingId = state.walletId;
  const switchNetwork = useCallback(async () => {
    if (!pendingId) return;
    const adapter = adapters[pendingId];
    if (!adapter.switchNetwork) return;
    try {
      await adapter.switchNetwork(appNetwork);
    } catch (error) {
      fail(pendingId, error);
      return;
    }
    await establish(pendingId, false);
  }, [adapters, appNetwork, establish, fail, pendingId]);

  const devnet = adapters.devnet as Partial<DevnetAdapter>;
  const isDevnet = state.status === 'connected' && state.walletId === 'devnet';
  const fund = useCallback(async () => {
    if (!devnet.fund) throw new WalletError('unsupported', 'Only the devnet wallet has a faucet.');
    await devnet.fund();
  }, [devnet]);

  const available = useMemo(() => availableWallets(appNetwork, installed), [appNetwork, installed]);

  const value = useMemo<WalletInternals>(
    () => ({
      status: state.status,
      restoring: restoring && state.status !== 'connected',
      walletId: state.walletId,
      account: state.account,
      error: state.error,
      wrongNetwork: state.wrongNetwork,
      available,
      network: state.status === 'connected' ? appNetwork : null,
      connect,
      disconnect,
      signPsbt,
      signMessage,
      refreshAvailable,
      ...(isDevnet && devnet.fund ? { fund } : {}),
      ...(isDevnet && devnet.exportKey ? { exportDevnetKey: () => devnet.exportKey!() } : {}),
      ...(state.wrongNetwork?.canSwitch ? { switchNetwork } : {}),
    }),
    [
      state,
      restoring,
      available,
      appNetwork,
      connect,
      disconnect,
      signPsbt,
      signMessage,
      refreshAvailable,
      isDevnet,
      devnet,
      fund,
      switchNetwork,
    ],
  );

  // The next visit's page carries this wallet's vault (vault-key-cookie.ts).
  const vaultKey = state.account?.vaultPubkey ?? null;
  const signedOut = !restoring && state.status === 'disconnected';
  useEffect(() => {
    if (vaultKey) rememberVaultKey(vaultKey);
    else if (signedOut) rememberVaultKey(null);
  }, [vaultKey, signedOut]);

  return <WalletContext.Provider value={value}>{children}</WalletContext.Provider>;
}

function detect(adapters: Record<WalletId, WalletAdapter>): Record<WalletId, boolean> {
  return {
    xverse: adapters.xverse.isInstalled(),
    unisat: adapters.unisat.isInstalled(),
    leather: adapters.leather.isInstalled(),
    metamask: adapters.metamask.isInstalled(),
    devnet: adapters.devnet.isInstalled(),
  };
}

/** The wallet state and actions; must be used under <WalletProvider>. */
export function useWallet(): WalletInternals {
  const value = useContext(WalletContext);
  if (!value) throw new Error('useWallet must be used inside <WalletProvider>');
  return value;
}
