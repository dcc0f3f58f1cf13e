// Pending transactions (SPEC §3, §4): what the app stores in local storage per wallet after a
// submitted action until vault history shows it.
// zod/mini: the web app validates this list on its first screen, where full zod would cost ~22 KB gzip.
import * as z from 'zod/mini';
import type { VaultHistoryRecordDto } from './api';
import { PENDING_KEY_PREFIX_LENGTH, PENDING_STALE_AFTER_SECONDS } from './constants';

export type PendingType = 'create' | 'deposit' | 'withdraw' | 'borrow' | 'repay' | 'repossess';
export type PendingStatus = 'In Progress' | 'Completed';

/** SPEC §4: 'In Progress' is displayed 'Finalizing...'. */
export const PENDING_STATUS_LABELS: Record<PendingStatus, string> = {
  'In Progress': 'Finalizing...',
  Completed: 'Completed',
};

// Built on first use, not at import: a module-level schema is a side effect that keeps zod in the
// web app's first chunk even for pages that never read a pending list.
function buildPendingTransactionSchema() {
  const healthSchema = z.object({ text: z.string(), colour: z.string() });
  const digits = () => z.string().check(z.regex(/^\d+$/));
  // Amounts are stored as decimal strings: local storage is JSON and bigint is not.
  return z.object({
    /** unix seconds */
    date: z.number(),
    type: z.enum(['create', 'deposit', 'withdraw', 'borrow', 'repay', 'repossess']),
    /** sats for BTC, UNIT hundredths for UNIT, as a decimal string */
    amount: digits(),
    amountUnit: z.enum(['BTC', 'UNIT']),
    status: z.enum(['In Progress', 'Completed']),
    transactionId: z.string(),
    vault_txid: z.nullable(z.string()),
    btcInVault: digits(),
    unitInVault: digits(),
    healthFactorBefore: z.nullable(z.number()),
    healthFactorAfter: z.nullable(z.number()),
    healthStatusBefore: z.nullable(healthSchema),
    healthStatusAfter: z.nullable(healthSchema),
    isFullRepay: z.boolean(),
  });
}

let pendingSchema: ReturnType<typeof buildPendingTransactionSchema> | undefined;

/** The zod schema a stored pending transaction must match. */
export function pendingTransactionSchema(): ReturnType<typeof buildPendingTransactionSchema> {
  pendingSchema ??= buildPendingTransactionSchema();
  return pendingSchema;
}

export type PendingTransaction = z.infer<ReturnType<typeof buildPendingTransactionSchema>>;

/** SPEC §4: stored per wallet, keyed by the first 6 characters of the address. */
export function pendingStorageKey(address: string): string {
  return `unit-pending-${address.slice(0, PENDING_KEY_PREFIX_LENGTH)}`;
}

/** Re-validate what local storage holds: anything malformed is dropped, never trusted. */
export function parsePendingList(json: string | null): PendingTransaction[] {
  if (!json) return [];
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(data)) return [];
  return data.flatMap((item) => {
    const parsed = pendingTransactionSchema().safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** SPEC §4: Completed once vault history holds its transaction id or its vault transaction id. */
export function reconcilePending(
  pending: readonly PendingTransaction[],
  history: readonly Pick<VaultHistoryRecordDto, 'transaction_id'>[],
): PendingTransaction[] {
  const seen = new Set(history.map((r) => r.transaction_id));
  return pending.map((p) =>
    p.status === 'In Progress' &&
    (seen.has(p.transactionId) || (p.vault_txid !== null && seen.has(p.vault_txid)))
      ? { ...p, status: 'Completed' }
      : p,
  );
}

/**
 * A sped-up transaction (BIP-125 replacement): its pending entry now follows the replacement's
 * txid, so the block that confirms the replacement completes it and nothing is counted twice.
 */
export function followReplacement(
  pending: readonly PendingTransaction[],
  replacedTxid: string,
  txid: string,
): PendingTransaction[] {
  return pending.map((p) =>
    p.transactionId === replacedTxid || p.vault_txid === replacedTxid
      ? { ...p, transactionId: txid, vault_txid: txid }
      : p,
  );
}

/** SPEC §4: after a sync completes on confirmation, the transaction is Completed. */
export function completePending(
  pending: readonly PendingTransaction[],
  txid: string,
): PendingTransaction[] {
  return pending.map((p) =>
    p.transactionId === txid || p.vault_txid === txid ? { ...p, status: 'Completed' } : p,
  );
}

/**
 * SPEC §4: actions wait while a transaction is pending: one this browser sent and still tracks,
 * or one the vault's history holds unconfirmed (a repossess, another tab or device), since the
 * vault's output is spent until a block confirms it; an hour on, it may have been dropped.
 */
export function hasPendingInProgress(
  pending: readonly PendingTransaction[],
  history: readonly { confirmed?: boolean; timestamp: number }[] = [],
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  return (
    pending.some((p) => p.status === 'In Progress') ||
    history.some(
      (r) => r.confirmed === false && nowSeconds - r.timestamp < PENDING_STALE_AFTER_SECONDS,
    )
  );
}
