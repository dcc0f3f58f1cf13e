// `npm run operator -- use <rune id>`: taking an existing rune as UNIT.
import {
  decodeRunestone,
  parseRuneId,
  runeIdToString,
  spacedRuneName,
  transactionOutputs,
} from '@unit/bitcoin';
import { UNIT_DIVISIBILITY, treasuryStatus, type OperatorContext } from './treasury';
import { blockHashAt, blockTxids } from './block-reads';

export interface RuneCheck {
  runeId: string;
  name: string | null;
  divisibility: number;
  premine: bigint;
  treasuryUnit: bigint;
}

/**
 * `use <rune id>`: the etching at that id, read from its block, must be a rune of divisibility 2
 * (UNIT counts hundredths). What the treasury holds is what the runes service answers.
 */
export async function checkRune(ctx: OperatorContext, runeIdText: string): Promise<RuneCheck> {
  const id = parseRuneId(runeIdText);
  const hash = await blockHashAt(ctx, Number(id.block));
  const txids = await blockTxids(ctx, hash);
  const txid = txids[id.tx];
  if (!txid) throw new Error(`block ${id.block} has no transaction ${id.tx}`);
  const raw = await ctx.chain.txHex(txid);
  if (!raw) throw new Error(`transaction ${txid} not found`);
  const artifact = decodeRunestone(transactionOutputs(raw));
  if (!artifact || !('runestone' in artifact) || !artifact.runestone.etching)
    throw new Error(`${runeIdText} (${txid}) etches no rune`);
  const etching = artifact.runestone.etching;
  const divisibility = etching.divisibility ?? 0;
  if (divisibility !== UNIT_DIVISIBILITY)
    throw new Error(
      `${runeIdText} has divisibility ${divisibility}; UNIT needs ${UNIT_DIVISIBILITY} (hundredths)`,
    );
  const status = await treasuryStatus(ctx);
  return {
    runeId: runeIdToString(id),
    name: etching.rune ? spacedRuneName(etching.rune, etching.spacers ?? 0) : null,
    divisibility,
    premine: etching.premine ?? 0n,
    treasuryUnit: status.unitHundredths,
  };
}
