// The guardian's check of an operator's treasury move after a rotation (context `treasury-move`),
// through the vault policy's own dispatch, against a stand-in chain view at the edge: a guardian
// holding set 1 (the treasury's) and set 2 approves a move of the set-1 treasury to `OP_1 <set 2
// key>` with all its UNIT; every way of sending it elsewhere, or of moving nothing, is refused.
import { beforeEach, describe, expect, it } from 'vitest';
import { askTreasuryInput, refusal } from '../../test/policy-world';
import { hex } from '@scure/base';
import { OutScript, p2tr, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { encodeRunestone, parseRuneId } from '@unit/bitcoin';
import {
  fundedTreasury,
  GROUP,
  RUNE_ID,
  TREASURY_SCRIPT,
  type StandInChain,
} from '../../test/policy-chain';
import { keyOf } from '../../test/vault-requests';
import type { GuardianSet } from '../guardian-set';
import type { PolicyEnv, VaultPolicy } from './policy';

const UNIT = parseRuneId(RUNE_ID);
const POSTAGE = 10_000n;
const KEY1 = hex.encode(GROUP);
const KEY2 = hex.encode(pubSchnorr(keyOf('group of set 2')));
const NEW_TREASURY = OutScript.encode({ type: 'tr', pubkey: hex.decode(KEY2) });
const ELSEWHERE = p2tr(pubSchnorr(keyOf('thief')), undefined, TEST_NETWORK).script;
const set = (version: number, groupKey: string, previous?: string) =>
  ({
    version,
    groupKey,
    ...(previous ? { previous: { version: version - 1, groupKey: previous, digest: '' } } : {}),
  }) as unknown as GuardianSet;
/** A guardian of both sets, asked as set 1 (the treasury's set). */
const env: PolicyEnv = { groupKey: KEY1, ownPrice: null, sets: [set(1, KEY1), set(2, KEY2, KEY1)] };

let chain: StandInChain;
let policy: VaultPolicy;
let inputs: { txid: string; vout: number; value: bigint }[];

beforeEach(() => {
  // Set 1's treasury: two UNIT outputs and one of plain sats.
  let txid: string;
  ({ chain, policy, txid } = fundedTreasury([700_00n]));
  inputs = [0, 1, 2].map((vout) => ({ txid, vout, value: chain.txs.get(txid)![vout]!.value }));
});

interface MoveShape {
  /** the UNIT output's and the change's scripts */
  to?: [Uint8Array, Uint8Array];
  stone?: Uint8Array;
  fee?: bigint;
  from?: Uint8Array;
}

/** The move the operator builds: one UNIT output, the runestone (pointer 0), the change. */
function move(shape: MoveShape = {}): Transaction {
  const tx = new Transaction({ allowUnknownOutputs: true });
  for (const i of inputs)
    tx.addInput({
      txid: i.txid,
      index: i.vout,
      witnessUtxo: { script: shape.from ?? TREASURY_SCRIPT, amount: i.value },
    });
  const [unitTo, changeTo] = shape.to ?? [NEW_TREASURY, NEW_TREASURY];
  tx.addOutput({ script: unitTo, amount: POSTAGE });
  tx.addOutput({ script: shape.stone ?? encodeRunestone({ edicts: [], pointer: 0 }), amount: 0n });
  const total = inputs.reduce((sum, i) => sum + i.value, 0n);
  tx.addOutput({ script: changeTo, amount: total - POSTAGE - (shape.fee ?? 2_000n) });
  return tx;
}

const ask = (tx: Transaction, input: number, asked: PolicyEnv = env) =>
  askTreasuryInput(policy, asked, 'treasury-move', tx, input);

describe("a guardian's check of the operator's treasury move", () => {
  it('approves every input of an honest move: set 1 treasury in, set 2 treasury out, all UNIT', async () => {
    const tx = move();
    for (let input = 0; input < 3; input++) expect(await ask(tx, input)).toEqual({ approve: true });
  });

  it('refuses a move that pays the UNIT or the change elsewhere, or to set 1 again', async () => {
    expect(await ask(move({ to: [ELSEWHERE, NEW_TREASURY] }), 0)).toEqual(
      refusal("output 0 pays another script than the newest set's treasury"),
    );
    expect(await ask(move({ to: [NEW_TREASURY, ELSEWHERE] }), 1)).toEqual(
      refusal("output 2 pays another script than the newest set's treasury"),
    );
    expect(await ask(move({ to: [TREASURY_SCRIPT, NEW_TREASURY] }), 0)).toEqual(
      refusal("output 0 pays another script than the newest set's treasury"),
    );
  });

  it('refuses a runestone that burns UNIT or etches, and a fee over the ceiling', async () => {
    const burn = move({
      stone: encodeRunestone({ edicts: [{ id: UNIT, amount: 1n, output: 1 }] }),
    });
    expect(await ask(burn, 0)).toEqual(refusal(/sends UNIT to output 1, an OP_RETURN: a burn/));
    const pointer = move({ stone: encodeRunestone({ edicts: [], pointer: 1 }) });
    expect(await ask(pointer, 0)).toEqual(
      refusal("the runestone's pointer 1 is no treasury output"),
    );
    const etching = move({
      stone: encodeRunestone({ edicts: [], etching: { rune: 'AAAAAAAAAAAAAAA', premine: 1n } }),
    });
    expect(await ask(etching, 0)).toEqual(refusal('the treasury move may not etch a rune'));
    expect(await ask(move({ fee: 60_000n }), 0)).toEqual(
      refusal(/^the fee 60000 sats is over 50 sat\/vB of its \d+ vB/),
    );
  });

  it('refuses inputs that are not this set’s treasury, and a set with nowhere to move', async () => {
    expect(await ask(move({ from: ELSEWHERE }), 0)).toEqual(
      refusal('input 0 is not a treasury output of this set'),
    );
    // A guardian of set 1 only (a replaced one): set 1 is the newest it holds.
    const onlySet1: PolicyEnv = { ...env, sets: [set(1, KEY1)] };
    expect(await ask(move(), 0, onlySet1)).toEqual(
      refusal('this set is the newest this guardian holds: the treasury has nowhere to move'),
    );
  });

  it('refuses an input the chain does not have unspent', async () => {
    const tx = move();
    chain.spentOutputs.set(`${inputs[2]!.txid}:2`, 'ff'.repeat(32));
    expect(await ask(tx, 0)).toEqual(refusal(/input 2/));
  });
});
