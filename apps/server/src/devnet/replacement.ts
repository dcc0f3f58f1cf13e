// BIP-125 replacement: which mempool transactions a newcomer would evict, or Bitcoin Core's
// reject reason for why it may not.
import { hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import {
  MAX_REPLACEMENT_EVICTIONS,
  replacementRefusal,
  signalsReplaceability,
  type FeeAndSize,
} from '@unit/protocol';
import type { BlockStore } from './block-store';
import { parseStoredTx, refuse, REJECT } from './policy';
import { big, num, type Db } from './store';

/** A fee rate as Core's reject reasons print it: BTC/kvB. */
const rateText = (fee: bigint, vsize: number): string => (Number(fee) / vsize / 100_000).toFixed(8);

/**
 * BIP-125: the mempool transactions `tx` would replace (those spending its inputs, and all their
 * descendants), or a refusal with Bitcoin Core's reject reason. Every directly replaced
 * transaction must signal (rule 1), the replacement may add no unconfirmed input (rule 2), pays at
 * least their fees (rule 3) plus the incremental relay fee for its own size (rule 4), at a higher
 * fee rate, and evicts at most 100 transactions (rule 5).
 */
export async function replacementEvictions(
  db: Db,
  blocks: BlockStore,
  tx: Transaction,
  fee: bigint,
  conflicts: Set<string>,
): Promise<string[]> {
  const txid = tx.id;
  const rows = await db
    .selectFrom('devnet_txs')
    .select(['txid', 'hex', 'fee', 'vsize'])
    .where('txid', 'in', [...conflicts])
    .execute();
  const direct: FeeAndSize[] = [];
  const parentsOfConflicts = new Set<string>();
  for (const row of rows) {
    const old = parseStoredTx(row.hex);
    const sequences: number[] = [];
    for (let i = 0; i < old.inputsLength; i++) {
      const input = old.getInput(i);
      sequences.push(input.sequence ?? 0xffffffff);
      parentsOfConflicts.add(hex.encode(input.txid!));
    }
    if (!signalsReplaceability(sequences)) refuse(REJECT.mempoolConflict);
    direct.push({ fee: big(row.fee), vsize: num(row.vsize) });
  }
  // Descendants: whatever spends an output of an evicted transaction, transitively.
  const evicted = new Set(conflicts);
  let frontier = [...conflicts];
  while (frontier.length > 0) {
    const children = await db
      .selectFrom('devnet_outputs')
      .select('spent_txid')
      .distinct()
      .where('txid', 'in', frontier)
      .where('spent_txid', 'is not', null)
      .execute();
    frontier = [];
    for (const { spent_txid: child } of children) {
      if (child === null || evicted.has(child)) continue;
      evicted.add(child);
      frontier.push(child);
    }
    if (evicted.size > MAX_REPLACEMENT_EVICTIONS)
      refuse(`too many potential replacements, rejecting replacement ${txid}`);
  }
  for (let i = 0; i < tx.inputsLength; i++) {
    const parent = hex.encode(tx.getInput(i).txid!);
    if (evicted.has(parent)) refuse(REJECT.spendsConflicting);
    if (parentsOfConflicts.has(parent)) continue;
    const status = await blocks.txStatus(parent);
    if (status && !status.confirmed) refuse(REJECT.addsUnconfirmed);
  }
  const all = await db
    .selectFrom('devnet_txs')
    .select(['fee', 'vsize'])
    .where('txid', 'in', [...evicted])
    .execute();
  const refusal = replacementRefusal(
    { fee, vsize: tx.vsize },
    direct,
    all.map((row) => ({ fee: big(row.fee), vsize: num(row.vsize) })),
  );
  if (refusal?.rule === 'feerate') {
    const old = direct[refusal.conflict]!;
    refuse(
      `insufficient fee, rejecting replacement ${txid}; new feerate ${rateText(fee, tx.vsize)} <= old feerate ${rateText(old.fee, old.vsize)}`,
    );
  }
  if (refusal?.rule === 'fee')
    refuse(
      `insufficient fee, rejecting replacement ${txid}, less fees than conflicting txs; ${fee} < ${refusal.needed}`,
    );
  if (refusal?.rule === 'relay')
    refuse(
      `insufficient fee, rejecting replacement ${txid}, not enough additional fees to relay; ${fee} < ${refusal.needed}`,
    );
  return [...evicted];
}
