import { pendingStorageKey, type PendingTx } from '../protocol-gaps';

// SPEC §4: pending transactions persist in local storage per wallet and are re-read on load.
export function loadPending(address: string | null): PendingTx[] {
  if (!address) return [];
  try {
    const raw = localStorage.getItem(pendingStorageKey(address));
    const list: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(list)
      ? (list as PendingTx[]).filter((p) => typeof p.transactionId === 'string')
      : [];
  } catch {
    return [];
  }
}

export function savePending(address: string | null, list: PendingTx[]) {
  if (!address) return;
  localStorage.setItem(pendingStorageKey(address), JSON.stringify(list));
}
