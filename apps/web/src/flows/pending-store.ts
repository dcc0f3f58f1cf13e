import { parsePendingList, pendingStorageKey, type PendingTransaction } from '@unit/protocol';

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
