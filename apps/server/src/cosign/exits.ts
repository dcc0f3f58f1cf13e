// The owner's exit, as the app learns of it (docs/protocol.md, "Leaving without the guardians"):
// no request of ours and no record, only a transaction that spends the vault's output through its
// exit leaf once the chain passed the exit height. On each block the vaults whose exit height the
// tip reached and whose output is still theirs (active, or liquidated with no claimant yet) are
// looked at, a bounded batch at a time, and a vault whose output a confirmed transaction spent by
// the exit leaf (its witness names the leaf at the row's exit height and the row's key) is closed:
// `exited`, nothing left in it, history `e`, and a liquidation it waited in ends `exited`. A
// reindex and an open validator tell the same spend the same way (spendsExitLeaf), so the three
// agree.
import { hex } from '@scure/base';
import type { Kysely } from 'kysely';
import { parseTransaction, spendsExitLeaf } from '@unit/bitcoin';
import type { Chain, ChainSpender } from '../chain/port';
import {
  closeVaultByExit,
  EXIT_CHECK_BATCH,
  vaultsPastExit,
  type Database,
  type VaultRow,
} from '../store';

export interface ExitCheckDeps {
  db: Kysely<Database>;
  chain: Pick<Chain, 'tip' | 'spender' | 'txHex'>;
  vaultChanged: (vaultId: string) => void;
}

type ExitRow = Pick<VaultRow, 'vault_txid' | 'vault_vout' | 'exit_height' | 'vault_pubkey'>;

/**
 * The exit that spent `row`'s output: its transaction, time and payout, or null. Only a mined exit
 * by default (only it closes the vault: one in the mempool may still be replaced by another).
 */
export async function exitOf(
  chain: Pick<Chain, 'spender' | 'txHex'>,
  row: ExitRow,
  { mined = true } = {},
): Promise<{ spender: ChainSpender; script: string } | null> {
  const spender = await chain.spender(row.vault_txid, row.vault_vout);
  if (!spender || (mined && !spender.status.confirmed)) return null;
  return exitBy(chain, row, spender);
}

/** `spender` as an exit of `row`'s output (its witness opens the exit leaf), or null. */
export async function exitBy(
  chain: Pick<Chain, 'txHex'>,
  row: ExitRow,
  spender: ChainSpender,
): Promise<{ spender: ChainSpender; script: string } | null> {
  if (row.exit_height === null) return null;
  const raw = await chain.txHex(spender.txid);
  if (!raw) return null;
  const tx = parseTransaction(raw);
  const witness = tx.getInput(spender.vin).finalScriptWitness;
  if (!spendsExitLeaf(witness, row.exit_height, hex.decode(row.vault_pubkey))) return null;
  const out = tx.getOutput(0);
  return { spender, script: out.script ? hex.encode(out.script) : '' };
}

/**
 * Checks the active and liquidated vaults past their exit height, from `after` (a vault id) on in
 * id order, at most `limit`; answers the vaults it closed and where the next pass goes on ('' from
 * the start).
 */
export async function recordExits(
  d: ExitCheckDeps,
  after = '',
  limit = EXIT_CHECK_BATCH,
): Promise<{ exited: string[]; next: string }> {
  const tip = (await d.chain.tip()).height;
  const rows = await vaultsPastExit(d.db, tip, after, limit);
  const exited: string[] = [];
  for (const row of rows) {
    const exit = await exitOf(d.chain, row);
    if (!exit) continue;
    if (await closeByExit(d.db, row, exit)) {
      exited.push(row.vault_id);
      d.vaultChanged(row.vault_id);
    }
  }
  return { exited, next: rows.length < limit ? '' : rows.at(-1)!.vault_id };
}

/** Closes the vault if its row still names the output the exit spent; false when it moved. */
function closeByExit(
  db: Kysely<Database>,
  row: VaultRow,
  exit: { spender: ChainSpender; script: string },
): Promise<boolean> {
  const { txid, status } = exit.spender;
  const timestamp = status.block_time ?? Math.floor(Date.now() / 1000);
  return closeVaultByExit(db, row, { txid, payoutScript: exit.script, timestamp });
}
