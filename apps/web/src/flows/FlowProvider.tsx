import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ERROR_MESSAGES, failedSentence, type PendingTransaction } from '@unit/protocol';
import type { Approvals } from '@unit/protocol/wire';
import { useToasts } from '../ui/toasts';
import { useWallet } from '../wallet';
import { isRefusal, REFUSAL_TOAST } from './refusal';
import type { FlowAction, FlowDecl, FlowTarget } from './declarations';
import type { FlowEvent, FlowState } from './engine';
import type { ExecuteFlow, FlowInput } from './flow-types';
import { useFlowBanner, type FlowBanner } from './flow-banner';
import { useFlowMachine, type FlowRunEffects } from './flow-machine';
import { usePendingFates, type FailedPending } from './pending-fates';
import { usePendingStore } from './pending-store';
import type { FlowPreview } from './preview';
import { useCreation, type CreationStage } from './use-creation';
import { useRecordSubmitted } from './use-record-submitted';

export type { CreationStage } from './use-creation';
export type { FlowBanner } from './flow-banner';

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
  /** what the last run was given: a re-send repeats it (ResendButton.tsx) */
  lastRun: { input: FlowInput; preview: FlowPreview } | null;
  /** SPEC §4 Create flow */
  stage: CreationStage;
  isVaultCreationFlowInProgress: boolean;
  /** the opening transaction of a creation restored from storage after a reload */
  creationTxid: string | null;
  /** Who approved the opening (the success screen says so); null when signed alone */
  creationApprovals: Approvals | null;
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

/** The guardian client (guardian-client.ts), loaded on the first flow run: it carries @scure/*. */
const executeFlow: ExecuteFlow = (...args) =>
  import('./guardian-client').then((client) => client.executeFlow(...args));

/** The flows of the app: the flow machine, the pending store and the banner, joined. */
export function FlowProvider({
  children,
  execute = executeFlow,
}: {
  children: ReactNode;
  /** injected so tests and the lead can swap the guardian client */
  execute?: ExecuteFlow;
}) {
  const wallet = useWallet();
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const store = usePendingStore(wallet.account?.satsAddress ?? null);
  const [banner, showBanner] = useFlowBanner();
  const creation = useCreation(store.pending, store.update);
  const { began: creationBegan, failed: creationFailed, noteApprovals } = creation;
  const recordSubmitted = useRecordSubmitted(store.update, showBanner);

  const onSigned = useCallback(
    (decl: FlowDecl) => {
      showBanner.running(decl);
      if (decl.createsVault) creationBegan();
    },
    [showBanner, creationBegan],
  );
  const onFailed = useCallback(
    (decl: FlowDecl, error: unknown) => {
      // SPEC §8: the generic toast (time-outs read as such) and an error banner. A refusal's
      // reasons are the banner's and the tracker's; its toast says only that.
      if (isRefusal(error))
        toasts.show({ title: ERROR_MESSAGES.generic, description: REFUSAL_TOAST, tone: 'error' });
      else toasts.error(error);
      showBanner.failed(decl, error);
      if (decl.createsVault) creationFailed();
    },
    [toasts, showBanner, creationFailed],
  );
  const effects = useMemo<FlowRunEffects>(
    () => ({
      onSigned,
      onApprovals: (decl, approvals) => {
        showBanner.approvals(decl.action, approvals);
        if (decl.createsVault) noteApprovals(approvals);
      },
      onSubmitted: recordSubmitted,
      onDeclined: showBanner.dismiss,
      onFailed,
    }),
    [onSigned, recordSubmitted, showBanner, onFailed, noteApprovals],
  );
  const machine = useFlowMachine(execute, effects);

  const { reconcile, forget, pending } = store;
  // A transaction that will never be mined: its entry goes, the user is told once why, and the
  // vault and wallet are read again (the server put the vault back as it was).
  const onNotMined = useCallback<FailedPending>(
    (entry, fate) => {
      forget(entry.transactionId);
      showBanner.notMined(entry.type, failedSentence(entry.type, fate.cause, fate.reason));
      for (const key of ['vault', 'balance', 'unit-outputs'])
        void queryClient.invalidateQueries({ queryKey: [key] });
    },
    [forget, showBanner, queryClient],
  );
  const checkFates = usePendingFates(onNotMined);
  const syncPending = useCallback(
    (history: { transaction_id: string; confirmed?: boolean }[]) => {
      checkFates(pending, history);
      const completed = reconcile(history);
      if (!completed) return;
      showBanner.completed(completed);
      // SPEC §4: on confirmation the wallet balance refreshes, and rune data for borrow and
      // repay (every action moves sats through the wallet, so the balance always).
      for (const key of ['balance', 'unit-outputs', 'vault-points'])
        void queryClient.invalidateQueries({ queryKey: [key] });
    },
    [checkFates, pending, reconcile, showBanner, queryClient],
  );

  const { flow, drawerOpen } = machine;
  const api = useMemo<FlowsApi>(
    () => ({
      flow,
      drawerOpen,
      openFlow: machine.openFlow,
      target: machine.target,
      setDrawerOpen: machine.setDrawerOpen,
      dispatch: machine.dispatch,
      run: machine.run,
      lastRun: machine.lastRun,
      stage: creation.stage,
      isVaultCreationFlowInProgress: creation.inProgress,
      creationTxid: creation.txid,
      creationApprovals: creation.approvals,
      markVaultCreated: creation.markCreated,
      goToVault: () => {
        creation.finish();
        machine.clear();
        showBanner.dismiss();
      },
      pending: store.pending,
      syncPending,
      forgetPending: store.forget,
      banner,
      dismissBanner: showBanner.dismiss,
      activeAction:
        drawerOpen || flow?.status === 'awaiting-signature' || flow?.status === 'processing',
    }),
    [
      flow,
      drawerOpen,
      machine,
      creation,
      store.pending,
      store.forget,
      syncPending,
      banner,
      showBanner,
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
