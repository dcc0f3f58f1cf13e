import type { TransactionFateDto } from '@unit/protocol';
import { callApiOrNull } from './call';

/**
 * What became of a transaction the guardians co-signed: pending, confirmed or failed with why;
 * null when this server never co-signed it (404).
 */
export const getTransactionFate = (txid: string): Promise<TransactionFateDto | null> =>
  callApiOrNull('transactionFate', { params: { txid } });
