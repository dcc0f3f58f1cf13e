// A guardian's own decision on one input of the operator's treasury move after a rotation (`npm run
// operator -- treasury move`, docs/protocol.md "Guardian rotation"): context `{kind:
// 'treasury-move', psbt, input}`. The treasury is `OP_1 <group key>`; until it moves, the set it is
// under cannot retire. The session's set (an older one this guardian holds) signs; each guardian
// checks, on its own chain view:
// - the session's set is not the newest this guardian holds: there is somewhere to move to;
// - every input is an unspent output of `OP_1 <the session's key>`: only that treasury is spent (its
//   own sats pay the fee), so the move spends nobody else's coins;
// - every output but one runestone (value 0) pays `OP_1 <the newest key this guardian holds>`;
// - the runestone moves UNIT only and burns none, so all the treasury's UNIT lands on the newest
//   set's treasury (treasury-split.ts's checkRunes, ord's allocation);
// - the fee is at most `maxFeeRate` sat/vB of the signed size;
// - the message is the key-path sighash (SIGHASH_DEFAULT) of this input, computed here.
import { OutScript, Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { isRunestoneScript, taprootSighash, type RuneId } from '@unit/bitcoin';
import * as z from 'zod';
import type { GuardianSet } from '../guardian-set';
import type { SignRequest } from '../signing-rounds';
import type { ChainView } from './chain-view';
import { Refused } from './reads';
import { setKeysOf } from './set-keys';
import {
  checkFeeRate,
  checkRunes,
  prevoutsOnce,
  readTreasuryPsbt,
  treasuryInputs,
} from './treasury-split';

export const TREASURY_MOVE_KIND = 'treasury-move';
const MAX_PSBT_CHARS = 200_000;
const WHAT = 'the treasury move';

export const treasuryMoveContextSchema = z.object({
  kind: z.literal(TREASURY_MOVE_KIND),
  /** base64 */
  psbt: z.string().min(1).max(MAX_PSBT_CHARS),
  input: z.number().int().min(0).max(1_000),
});

export const isTreasuryMove = (context: unknown): boolean =>
  (context as { kind?: unknown } | null)?.kind === TREASURY_MOVE_KIND;

export interface TreasuryMoveCheck {
  chain: ChainView;
  runeId: RuneId;
  /** x-only hex of the session's set's group key: the treasury being moved */
  groupKey: string;
  /** every set this guardian holds: the newest one's key is where the treasury goes */
  sets?: readonly GuardianSet[];
  maxFeeRate: number;
}

/** Outputs: the newest set's treasury, and at most one runestone of value 0. */
function newTreasuryOutputs(tx: Transaction, to: Uint8Array) {
  const outputs: { script: Uint8Array; amount: bigint }[] = [];
  let stones = 0;
  for (let i = 0; i < tx.outputsLength; i++) {
    const o = tx.getOutput(i);
    if (!o.script || o.amount === undefined) throw new Refused(`output ${i} is incomplete`);
    if (isRunestoneScript(o.script)) {
      if (++stones > 1) throw new Refused('the treasury move has more than one runestone');
      if (o.amount !== 0n) throw new Refused(`the runestone output ${i} carries sats`);
    } else if (!equalBytes(o.script, to))
      throw new Refused(`output ${i} pays another script than the newest set's treasury`);
    outputs.push({ script: o.script, amount: o.amount });
  }
  if (outputs.length === stones) throw new Refused('the treasury move has no treasury output');
  return outputs;
}

/** Throws Refused with the reason when this guardian will not sign the move's input. */
export async function checkTreasuryMove(req: SignRequest, o: TreasuryMoveCheck): Promise<void> {
  const { c, tx } = readTreasuryPsbt(req.context, treasuryMoveContextSchema, WHAT);
  const { psbt, input } = c;
  const keys = setKeysOf(o.groupKey, o.sets);
  if (equalBytes(keys.signing, keys.newest))
    throw new Refused(
      'this set is the newest this guardian holds: the treasury has nowhere to move',
    );
  const from = OutScript.encode({ type: 'tr', pubkey: keys.signing });
  const to = OutScript.encode({ type: 'tr', pubkey: keys.newest });
  const inputs = treasuryInputs(tx, from, { what: WHAT, whose: ' of this set' });
  if (input >= inputs.length) throw new Refused(`the PSBT has no input ${input}`);
  if (!equalBytes(taprootSighash(tx, inputs, input, null), req.message))
    throw new Refused(`the message is not the treasury move's input ${input}`);
  const outputs = newTreasuryOutputs(tx, to);
  const fee =
    inputs.reduce((sum, i) => sum + i.amount, 0n) -
    outputs.reduce((sum, out) => sum + out.amount, 0n);
  if (fee < 0n) throw new Refused('the treasury move pays out more than it spends');
  checkFeeRate(tx, fee, o.maxFeeRate);
  checkRunes(outputs, o.runeId, WHAT);
  await prevoutsOnce(o.chain, psbt, inputs);
}
