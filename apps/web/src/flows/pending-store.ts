import { useCallback, useState } from 'react';
import {
  parsePendingList,
  pendingStorageKey,
  reconcilePending,
  type PendingTransaction,
} from '@unit/protocol';

// SPEC §4: pending transactions persist in local storage per wallet and are re-read on load;
// @unit/protocol re-validates every entry, so anything malformed is dropped rather than trusted.
export function loadPending(address: string | null): PendingTransaction[] {
  if (!address) return [];
  try {
    return parsePendingList(localStorage.getItem(pendingStorageKey(address)));
  } catch {
    return [];
  }
}

export function savePending(address: string | null, list: PendingTransaction[]) {
  if (!address) return;
  localStorage.setItem(pendingStorageKey(address), JSON.stringify(list));
}

export type PendingUpdate = (update: (list: PendingTransaction[]) => PendingTransaction[]) => void;

export interface PendingStore {
  /** the connected wallet's entries, oldest first */
  pending: PendingTransaction[];
  /** changes the list and stores it for the wallet */
  update: PendingUpdate;
  /** drops an entry the user gave up on (a transaction that never confirms) */
  forget(transactionId: string): void;
  /**
   * SPEC §4: 'In Progress' until the vault's history holds the transaction; the guardian records
   * it at broadcast, so only a confirmed record completes it. Returns the txids now completed, or
   * null when nothing changed.
   */
  reconcile(history: { transaction_id: string; confirmed?: boolean }[]): Set<string> | null;
}

/** The pending list of the connected wallet, re-read from storage whenever the wallet changes. */
export function usePendingStore(address: string | null): PendingStore {
  const [stored, setStored] = useState<{ address: string | null; list: PendingTransaction[] }>({
    address: null,
    list: [],
  });
  const pending = stored.address === address ? stored.list : loadPending(address);
  const update = useCallback<PendingUpdate>(
    (change) => {
      setStored((current) => {
        const base = current.address === address ? current.list : loadPending(address);
        const list = change(base);
        savePending(address, list);
        return { address, list };
      });
    },
    [address],
  );
  const forget = useCallback(
    (transactionId: string) =>
      update((list) => list.filter((p) => p.transactionId !== transactionId)),
    [update],
  );
  const reconcile = useCallback(
    (history: { transaction_id: string; confirmed?: boolean }[]) => {
      const next = reconcilePending(
        pending,
        history.filter((record) => record.confirmed !== false),
      );
      if (!next.some((p, i) => p.status !== pending[i]?.status)) return null;
      update(() => next);
      return new Set(next.filter((p) => p.status === 'Completed').map((p) => p.transactionId));
    },
    [pending, update],
  );
  return { pending, update, forget, reconcile };
}
