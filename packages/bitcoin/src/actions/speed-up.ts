// speed-up (BIP-125): not a vault action of its own but a replacement of one still in the mempool.
// It reserves nothing; it spends the original's inputs, each signed by whom it was before (the
// wallet's, the guardian's vault and liquidation leaves, the treasury's key), plus payment inputs of
// the wallet; its outputs are the original action's fixed slots unchanged and a smaller change.
// The builder and the guardian's fee-only check live in flows/speed-up.ts.
import type { SpeedUpResult } from '@unit/protocol';
import { buildSpeedUpPsbt, checkFeeOnlyReplacement } from '../flows/speed-up';

export const speedUp = {
  method: 'vault.speedup',
  reserve: null,
  build: buildSpeedUpPsbt,
  check: checkFeeOnlyReplacement,
  result: (txid: string, replacedTxid: string): SpeedUpResult => ({
    vault_txid: txid,
    replaced_txid: replacedTxid,
  }),
} as const;
