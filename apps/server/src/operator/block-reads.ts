// What the operator's commands read off the chain beyond the Chain port: a block's txids and hash
// (esplora), a confirmed transaction's rune id, and waiting for confirmations.
import { runeIdToString } from '@unit/bitcoin';
import type { OperatorContext } from './treasury';
import { answeredWith, esploraService } from '../chain/service-failure';

export async function blockTxids(ctx: OperatorContext, hash: string): Promise<string[]> {
  const esplora = esploraService(ctx.esploraUrl);
  const route = `/block/${hash}/txids`;
  const response = await ctx.fetch(`${esplora.base}${route}`);
  if (!response.ok) throw new Error(answeredWith(esplora, route, response.status));
  return (await response.json()) as string[];
}

/** The rune id of a confirmed transaction: its block's height and its index in that block. */
export async function runeIdOf(ctx: OperatorContext, txid: string): Promise<string | null> {
  const status = await ctx.chain.txStatus(txid);
  if (!status?.confirmed || status.block_height === undefined || !status.block_hash) return null;
  const index = (await blockTxids(ctx, status.block_hash)).indexOf(txid);
  if (index < 0) throw new Error(`${txid} is not in its block ${status.block_hash}`);
  return runeIdToString({ block: BigInt(status.block_height), tx: index });
}

/** Waits until `txid` has `confirmations` (polling); returns the height it confirmed at. */
export async function waitForConfirmations(
  ctx: OperatorContext,
  txid: string,
  confirmations: number,
): Promise<number> {
  let last = -1;
  for (;;) {
    const status = await ctx.chain.txStatus(txid);
    if (status === null) throw new Error(`${txid} is gone from the network (replaced or dropped)`);
    if (status.confirmed && status.block_height !== undefined) {
      const have = (await ctx.chain.tip()).height - status.block_height + 1;
      if (have >= confirmations) return status.block_height;
      if (have !== last) ctx.say(`${txid}: ${have} of ${confirmations} confirmations`);
      last = have;
    }
    await ctx.sleep(ctx.pollMs);
  }
}

export async function blockHashAt(ctx: OperatorContext, height: number): Promise<string> {
  const url = `${ctx.esploraUrl.replace(/\/+$/, '')}/block-height/${height}`;
  const response = await ctx.fetch(url);
  if (!response.ok) throw new Error(`no block at height ${height} (${response.status})`);
  return (await response.text()).trim();
}
