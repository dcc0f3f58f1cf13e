import { useCallback, useMemo, useState } from 'react';
import { PENDING_STALE_AFTER_SECONDS, type PendingTransaction } from '@unit/protocol';
import type { Approvals } from '@unit/protocol/wire';
import { useNow } from '../ui/useNow';
import { FLOWS } from './declarations';
import type { PendingUpdate } from './pending-store';

export type CreationStage = 'initial' | 'processing' | 'success';

const opensVault = (p: PendingTransaction) => FLOWS[p.type].createsVault === true;

/** SPEC §2, §4 Create flow: the creation screen's stage, which outlives the drawer and a reload. */
export function useCreation(pending: PendingTransaction[], updatePending: PendingUpdate) {
  const [stage, setStage] = useState<CreationStage>('initial');
  const [creating, setCreating] = useState(false);
  // Who approved the opening, for the success screen; the drawer's flow, which holds
  // them too, is forgotten as soon as its tracker is closed.
  const [approvals, setApprovals] = useState<Approvals | null>(null);
  const now = useNow(60_000);
  // A creation survives a reload: its pending entry (stored per wallet) is still 'In Progress'
  // until the opening's block, so the creation screen stays up (SPEC §2), for an hour at most
  // (past that the transaction may have been dropped and the dashboard offers to forget it).
  const stored = pending.find(
    (p) =>
      opensVault(p) &&
      p.status === 'In Progress' &&
      now / 1000 - p.date < PENDING_STALE_AFTER_SECONDS,
  );
  const began = useCallback(() => {
    setStage('processing');
    setCreating(true);
    setApprovals(null);
  }, []);
  const failed = useCallback(() => {
    setStage('initial');
    setCreating(false);
    setApprovals(null);
  }, []);
  const storedTxid = stored?.transactionId ?? null;
  const finish = useCallback(() => {
    setCreating(false);
    setStage('initial');
    setApprovals(null);
    // Success showed because the opening confirmed: the creation is over, whatever its entry.
    if (storedTxid)
      updatePending((list) =>
        list.map((p) =>
          opensVault(p) && p.status === 'In Progress' ? { ...p, status: 'Completed' as const } : p,
        ),
      );
  }, [storedTxid, updatePending]);
  const shownStage: CreationStage = stage === 'initial' && storedTxid ? 'processing' : stage;
  const inProgress = creating || storedTxid != null;
  return useMemo(
    () => ({
      stage: shownStage,
      inProgress,
      /** the opening transaction of a creation restored from storage after a reload */
      txid: storedTxid,
      /** signatures collected: the creation screen takes over */
      began,
      /** SPEC §4: on error the drawer reopens with Back */
      failed,
      markCreated: () => setStage('success'),
      finish,
      /** the guardians' decisions on the opening, as they arrive; null when the server signs alone */
      approvals,
      noteApprovals: setApprovals,
    }),
    [shownStage, inProgress, storedTxid, began, failed, finish, approvals],
  );
}
