// With RUNES_API=ord the etching's rune id is learnt from ord itself (`GET /rune/<name>`, JSON
// as ordinals/ord serialises `api::Rune`: `{ entry: RuneEntry, id: "block:tx", ... }`), the
// indexer every later read of UNIT goes through: its id is the one it keys balances by. ord
// indexes blocks only, some time after they are mined, so the command waits until it knows the name.
import { parseRuneId, parseSpacedRune, runeIdToString, spacedRuneName } from '@unit/bitcoin';
import type { OrdIndexer } from '../chain/ord';
import type { OperatorContext } from './treasury';

/** UNIT counts hundredths (treasury.ts UNIT_DIVISIBILITY). */
const UNIT_DIVISIBILITY = 2;

/**
 * The id ord gives the rune etched as `name` by `revealTxid`: ord must name that reveal as its
 * etching (a name etched by another transaction is not ours) with divisibility 2.
 */
export async function etchedRuneIdFromOrd(
  ctx: Pick<OperatorContext, 'say' | 'sleep' | 'pollMs'>,
  ord: Pick<OrdIndexer, 'rune'>,
  name: string,
  revealTxid: string,
): Promise<string> {
  const { rune: plain, spacers } = parseSpacedRune(name);
  let told = false;
  for (;;) {
    const rune = await ord.rune(name);
    if (rune) {
      const { entry } = rune;
      if (entry.etching !== revealTxid)
        throw new Error(
          `ord names ${name} as etched by ${entry.etching}, not the reveal ${revealTxid}`,
        );
      if (entry.spaced_rune !== spacedRuneName(plain, spacers))
        throw new Error(`ord answered ${entry.spaced_rune} for ${name}`);
      if (entry.divisibility !== UNIT_DIVISIBILITY)
        throw new Error(`ord gives ${name} divisibility ${entry.divisibility}; UNIT needs 2`);
      // ord's id, checked for shape: `block:tx`, the etching's height as ord saw it.
      const id = parseRuneId(rune.id);
      if (Number(id.block) !== entry.block)
        throw new Error(`ord's id ${rune.id} is not at the etching's block ${entry.block}`);
      return runeIdToString(id);
    }
    if (!told) ctx.say(`waiting for ord to index ${name} (reveal ${revealTxid})`);
    told = true;
    await ctx.sleep(ctx.pollMs);
  }
}
