import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  DomainError,
  ERROR_MESSAGES,
  PENDING_STALE_AFTER_SECONDS,
  errorCodeOf,
  followReplacement,
  reconcilePending,
  VAULT_REFRESH_AFTER_CREATE_MS,
  type PendingTransaction,
} from '@unit/protocol';
import { useConfig } from '../api/config';
import { telegramNotification, useTelegramNotify } from '../api/notify';
import { vaultQueryOptions } from '../api/vault';
import { useToasts } from '../ui/toasts';
import { useNow } from '../ui/useNow';
import { useWallet } from '../wallet';
import { isRejection } from '../wallet/errors';
import { FLOWS, type FlowAction, type FlowTarget } from './declarations';
import {
  flowReducer,
  initialFlowState,
  type FlowEvent,
  type FlowResultIds,
  type FlowState,
} from './engine';
import type { ExecuteFlow, FlowInput } from './flow-types';
import { loadPending, savePending } from './pending-store';
import { pendingEntry, type FlowPreview } from './preview';

export type CreationStage = 'initial' | 'processing' | 'success';

export interface FlowBanner {
  tone: 'info' | 'success' | 'error';
  action: FlowAction;
  text: string;
  txid: string | null;
}

export interface FlowsApi {
  flow: FlowState | null;
  drawerOpen: boolean;
  /** opens a flow's drawer; a repossess names the liquidated vault, a speed-up its transaction */
  openFlow(action: FlowAction, target?: FlowTarget): void;
  /** what the open flow acts on besides the wallet's vault */
  target: FlowTarget | null;
  setDrawerOpen(open: boolean): void;
  dispatch(event: FlowEvent): void;
  /** runs the open flow; the preview is what its pending entry records */
  run(input: FlowInput, preview: FlowPreview): Promise<void>;
  /** SPEC §4 Create flow */
  stage: CreationStage;
  isVaultCreationFlowInProgress: boolean;
  /** the opening transaction of a creation restored from storage after a reload */
  creationTxid: string | null;
  markVaultCreated(): void;
  goToVault(): void;
  pending: PendingTransaction[];
  syncPending(history: { transaction_id: string; confirmed?: boolean }[]): void;
  /** drops a pending entry the user gave up on (a transaction that never confirms) */
  forgetPending(transactionId: string): void;
  banner: FlowBanner | null;
  dismissBanner(): void;
  /** a flow is running or its drawer is open: other action buttons wait (SPEC §4) */
  activeAction: boolean;
}

const FlowsContext = createContext<FlowsApi | null>(null);

type Slot = FlowState | null;
function slotReducer(
  state: Slot,
  event: FlowEvent | { type: 'open'; action: FlowAction } | { type: 'clear' },
): Slot {
  if (event.type === 'open') return initialFlowState(event.action);
  if (event.type === 'clear') return null;
  return state ? flowReducer(state, event) : state;
}

/** The guardian client (guardian-client.ts), loaded on the first flow run: it carries @scure/* and zod. */
const executeFlow: ExecuteFlow = (...args) =>
  import('./guardian-client').then((client) => client.executeFlow(...args));

/** A time-out (the flow's own, or the guardian client's), recognised by its code. */
const isUserTimeout = (error: unknown) => errorCodeOf(error) === 'timed_out';

const withTimeout = <T,>(promise: Promise<T>, ms: number, started: Promise<void>) =>
  new Promise<T>((resolve, reject) => {
    // SPEC §4: a timer flags the flow as timed out after the configured time-out, counted from
    // when the request was sent (time in the wallet prompt does not count).
    let timer: ReturnType<typeof setTimeout> | undefined;
    void started.then(() => {
      timer = setTimeout(
        () => reject(new DomainError('timed_out', ERROR_MESSAGES.userTimeout)),
        ms,
      );
    });
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });

export function FlowProvider({
  children,
  execute = executeFlow,
}: {
  children: ReactNode;
  /** injected so tests and the lead can swap the guardian client */
  execute?: ExecuteFlow;
}) {
  const config = useConfig();
  const wallet = useWallet();
  const queryClient = useQueryClient();
  const notifyTelegram = useTelegramNotify();
  const toasts = useToasts();
  const address = wallet.account?.satsAddress ?? null;
  const [flow, dispatchSlot] = useReducer(slotReducer, null);
  const [target, setTarget] = useState<FlowTarget | null>(null);
  const [drawerOpen, setDrawerOpenState] = useState(false);
  const [stage, setStage] = useState<CreationStage>('initial');
  const [creating, setCreating] = useState(false);
  const [banner, setBanner] = useState<FlowBanner | null>(null);
  const [pendingByAddress, setPendingByAddress] = useState<{
    address: string | null;
    list: PendingTransaction[];
  }>({
    address: null,
    list: [],
  });
  const flowRef = useRef(flow);
  useEffect(() => {
    flowRef.current = flow;
  }, [flow]);

  // Re-read the stored pending list whenever the wallet changes.
  const pending =
    pendingByAddress.address === address ? pendingByAddress.list : loadPending(address);
  const setPending = useCallback(
    (update: (list: PendingTransaction[]) => PendingTransaction[]) => {
      setPendingByAddress((current) => {
        const base = current.address === address ? current.list : loadPending(address);
        const list = update(base);
        savePending(address, list);
        return { address, list };
      });
    },
    [address],
  );

  const openFlow = useCallback((action: FlowAction, next?: FlowTarget) => {
    setTarget(next ?? null);
    dispatchSlot({ type: 'open', action });
    setDrawerOpenState(true);
  }, []);

  const setDrawerOpen = useCallback((open: boolean) => {
    setDrawerOpenState(open);
    if (open) return;
    const current = flowRef.current;
    if (!current) return;
    // Closing in error resets the drawer; closing an idle or finished flow forgets it; a running
    // flow keeps running behind its banner.
    if (current.status === 'error') dispatchSlot({ type: 'clear' });
    else if (current.status === 'idle' || current.status === 'confirmed')
      dispatchSlot({ type: 'clear' });
  }, []);

  /**
   * What a submitted transaction leaves behind, whether its flow is still on screen or not: the
   * pending entry, the 'submitted' banner, the Telegram notice and the refreshed queries.
   */
  const recordSubmitted = useCallback(
    (action: FlowAction, input: FlowInput, preview: FlowPreview, result: FlowResultIds) => {
      const decl = FLOWS[action];
      // SPEC §7: Telegram notify 5 s later, in the background; it never holds the flow up.
      const account = wallet.account;
      if (account) {
        const vaultId =
          result.vaultId ??
          queryClient.getQueryData(vaultQueryOptions(account.vaultPubkey).queryKey)?.vault_id ??
          '';
        notifyTelegram(
          telegramNotification({
            network: config.network,
            address: account.satsAddress,
            // A speed-up tells of the action it sped up, under its new txid.
            action: input.target?.kind === 'speedup' ? input.target.action : decl.guardianAction,
            txid: result.txid,
            vaultId,
            sats: input.sats,
            cents: input.cents,
          }),
        );
      }
      if (action === 'speedup') {
        // The entry of the transaction sped up follows the replacement; none is added.
        const replaced = result.replacedTxid;
        if (replaced) setPending((list) => followReplacement(list, replaced, result.txid));
      } else {
        setPending((list) => [
          ...list,
          pendingEntry(action, input, preview, result, Math.floor(Date.now() / 1000)),
        ]);
      }
      // SPEC §4: the 'submitted' banner shows the txid; it turns success once a block confirms it.
      setBanner({ tone: 'info', action, text: decl.successTitle, txid: result.txid });
      if (action === 'create') {
        // SPEC §7: after create these are invalidated; SPEC §4: vault data refreshed after 5 s.
        // Beyond SPEC §7's list, the wallet's sats and the UNIT just issued change too.
        for (const key of [
          'vault',
          'fee-rates',
          'bitcoin-price',
          'block-height',
          'balance',
          'unit-outputs',
        ])
          void queryClient.invalidateQueries({ queryKey: [key] });
        setTimeout(
          () => void queryClient.invalidateQueries({ queryKey: ['vault'] }),
          VAULT_REFRESH_AFTER_CREATE_MS,
        );
      } else {
        // SPEC §4: wallet balance refresh; repay and borrow also refresh rune data.
        void queryClient.invalidateQueries({ queryKey: ['balance'] });
        if (action === 'repossess')
          void queryClient.invalidateQueries({ queryKey: ['liquidations'] });
        void queryClient.invalidateQueries({ queryKey: ['vault'] });
        void queryClient.invalidateQueries({ queryKey: ['vault-history'] });
        if (action === 'borrow' || action === 'repay')
          void queryClient.invalidateQueries({ queryKey: ['unit-outputs'] });
      }
    },
    [config.network, notifyTelegram, queryClient, setPending, wallet.account],
  );

  const run = useCallback(
    async (input: FlowInput, preview: FlowPreview) => {
      const current = flowRef.current;
      if (!current) return;
      const action = current.action;
      const decl = FLOWS[action];
      dispatchSlot({ type: 'start' });
      let signed = false;
      let markSent!: () => void;
      const sent = new Promise<void>((resolve) => (markSent = resolve));
      const execution = execute(
        action,
        input,
        (step) => {
          // The guardian's first step means the request reached it, whoever sent it.
          if (step >= 2) markSent();
          dispatchSlot({ type: 'progress', step });
          if (step >= 2 && !signed) {
            // SPEC §4: signatures collected: the drawer closes and a banner takes over.
            signed = true;
            if (!decl.keepsDrawer) setDrawerOpenState(false);
            setBanner({
              tone: 'info',
              action,
              text: `${decl.actionLabel} in progress`,
              txid: null,
            });
            if (action === 'create') {
              setStage('processing');
              setCreating(true);
            }
          }
        },
        { config, wallet, onSent: () => markSent() },
      );
      try {
        const result = await withTimeout(execution, config.constants.flowTimeoutMs, sent);
        dispatchSlot({ type: 'confirmed', result });
        recordSubmitted(action, input, preview, result);
      } catch (error) {
        if (isRejection(error)) {
          // Declined in the wallet: a reset to where the user was, not an error (nothing was sent).
          dispatchSlot({ type: 'cancelled' });
          setBanner(null);
          return;
        }
        if (isUserTimeout(error)) {
          // The time-out stops the waiting, not the request: a transaction the guardian still
          // broadcasts is recorded like any other, so it is never lost nor sent twice.
          execution.then(
            (result) => recordSubmitted(action, input, preview, result),
            () => undefined,
          );
        }
        dispatchSlot({ type: 'failed', error });
        // SPEC §8: the generic toast (time-outs read as such) and an error banner.
        toasts.error(error);
        setBanner({
          tone: 'error',
          action,
          text: decl.action === 'create' ? ERROR_MESSAGES.vaultOpenFailed : 'Transaction failed',
          txid: null,
        });
        if (action === 'create') {
          // SPEC §4: on error the drawer reopens with Back.
          setStage('initial');
          setCreating(false);
        }
        setDrawerOpenState(true);
      }
    },
    [config, execute, recordSubmitted, toasts, wallet],
  );

  const syncPending = useCallback(
    (history: { transaction_id: string; confirmed?: boolean }[]) => {
      // SPEC §4: 'In Progress' until the vault's history holds the transaction; the guardian
      // records it at broadcast, so only a confirmed record completes it.
      const next = reconcilePending(
        pending,
        history.filter((record) => record.confirmed !== false),
      );
      if (next.some((p, i) => p.status !== pending[i]?.status)) {
        setPending(() => next);
        // SPEC §4: the banner becomes success on completion.
        const completed = new Set(
          next.filter((p) => p.status === 'Completed').map((p) => p.transactionId),
        );
        setBanner((b) =>
          b && b.tone === 'info' && b.txid && completed.has(b.txid) ? { ...b, tone: 'success' } : b,
        );
        // SPEC §4: on confirmation the wallet balance refreshes, and rune data for borrow and
        // repay (every action moves sats through the wallet, so the balance always).
        void queryClient.invalidateQueries({ queryKey: ['balance'] });
        void queryClient.invalidateQueries({ queryKey: ['unit-outputs'] });
        void queryClient.invalidateQueries({ queryKey: ['vault-points'] });
      }
    },
    [pending, setPending, queryClient],
  );

  const forgetPending = useCallback(
    (transactionId: string) =>
      setPending((list) => list.filter((p) => p.transactionId !== transactionId)),
    [setPending],
  );

  const now = useNow(60_000);
  // A creation survives a reload: its pending entry (stored per wallet) is still 'In Progress'
  // until the opening's block, so the creation screen stays up (SPEC §2), for an hour at most
  // (past that the transaction may have been dropped and the dashboard offers to forget it).
  const storedCreation = pending.find(
    (p) =>
      p.type === 'create' &&
      p.status === 'In Progress' &&
      now / 1000 - p.date < PENDING_STALE_AFTER_SECONDS,
  );
  const creationInProgress = creating || storedCreation != null;
  const creationStage: CreationStage = stage === 'initial' && storedCreation ? 'processing' : stage;

  const api = useMemo<FlowsApi>(
    () => ({
      flow,
      drawerOpen,
      openFlow,
      target,
      setDrawerOpen,
      dispatch: dispatchSlot,
      run,
      stage: creationStage,
      isVaultCreationFlowInProgress: creationInProgress,
      creationTxid: storedCreation?.transactionId ?? null,
      markVaultCreated: () => setStage('success'),
      goToVault: () => {
        setCreating(false);
        setStage('initial');
        dispatchSlot({ type: 'clear' });
        setBanner(null);
        // Success showed because the opening confirmed: the creation is over, whatever its entry.
        if (storedCreation)
          setPending((list) =>
            list.map((p) =>
              p.type === 'create' && p.status === 'In Progress'
                ? { ...p, status: 'Completed' as const }
                : p,
            ),
          );
      },
      pending,
      syncPending,
      forgetPending,
      banner,
      dismissBanner: () => setBanner(null),
      activeAction:
        drawerOpen || flow?.status === 'awaiting-signature' || flow?.status === 'processing',
    }),
    [
      flow,
      drawerOpen,
      openFlow,
      target,
      setDrawerOpen,
      run,
      creationStage,
      creationInProgress,
      storedCreation,
      setPending,
      pending,
      syncPending,
      forgetPending,
      banner,
    ],
  );

  return <FlowsContext.Provider value={api}>{children}</FlowsContext.Provider>;
}

export function useFlows(): FlowsApi {
  const api = useContext(FlowsContext);
  if (!api) throw new Error('useFlows outside FlowProvider');
  return api;
}

/** The flows when the app provides them; null where a part renders on its own (tests of a table). */
export function useOptionalFlows(): FlowsApi | null {
  return useContext(FlowsContext);
}
