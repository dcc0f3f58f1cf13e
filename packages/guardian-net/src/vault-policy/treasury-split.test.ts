// The guardian's check of an operator's treasury split (context `treasury-split`), through the
// vault policy's own dispatch, against a stand-in chain view at the edge: an honest split is
// approved on every input; each way of moving the treasury's sats or UNIT elsewhere is refused
// with its reason.
import { beforeEach, describe, expect, it } from 'vitest';
import { askTreasuryInput, refusal } from '../../test/policy-world';
import { hex } from '@scure/base';
import { p2tr, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { encodeRunestone, parseRuneId, taprootSighash, type Edict } from '@unit/bitcoin';
import {
  fundedTreasury,
  GROUP,
  RUNE_ID,
  TREASURY_SCRIPT,
  type StandInChain,
} from '../../test/policy-chain';
import { keyOf } from '../../test/vault-requests';
import type { PolicyEnv, VaultPolicy } from './policy';

const UNIT = parseRuneId(RUNE_ID);
const POSTAGE = 10_000n;
const env: PolicyEnv = { groupKey: hex.encode(GROUP), ownPrice: null };
const ELSEWHERE = p2tr(pubSchnorr(keyOf('thief')), undefined, TEST_NETWORK).script;

let chain: StandInChain;
let policy: VaultPolicy;
let inputs: { txid: string; vout: number; value: bigint; script: Uint8Array }[];

beforeEach(() => {
  // The treasury: two UNIT outputs and one of plain sats for the fee.
  let txid: string;
  ({ chain, policy, txid } = fundedTreasury([700_00n, 300_01n]));
  inputs = [0, 1, 2].map((vout) => ({
    txid,
    vout,
    value: chain.txs.get(txid)![vout]!.value,
    script: TREASURY_SCRIPT,
  }));
});

interface SplitShape {
  edicts?: Edict[];
  stone?: Uint8Array;
  /** the four UNIT outputs' scripts */
  scripts?: Uint8Array[];
  fee?: bigint;
  extraInput?: { txid: string; vout: number; value: bigint; script: Uint8Array };
}

/** The split the operator builds: four postage outputs, the runestone, the change. */
function split(shape: SplitShape = {}): Transaction {
  const tx = new Transaction({ allowUnknownOutputs: true });
  const spent = shape.extraInput ? [...inputs, shape.extraInput] : inputs;
  for (const i of spent)
    tx.addInput({
      txid: i.txid,
      index: i.vout,
      witnessUtxo: { script: i.script, amount: i.value },
    });
  const scripts = shape.scripts ?? Array.from({ length: 4 }, () => TREASURY_SCRIPT);
  for (const script of scripts) tx.addOutput({ script, amount: POSTAGE });
  const edicts = shape.edicts ?? [
    { id: UNIT, amount: 1n, output: 0 },
    { id: UNIT, amount: 250_00n, output: 6 },
  ];
  tx.addOutput({ script: shape.stone ?? encodeRunestone({ edicts }), amount: 0n });
  const total = spent.reduce((sum, i) => sum + i.value, 0n);
  tx.addOutput({ script: TREASURY_SCRIPT, amount: total - 4n * POSTAGE - (shape.fee ?? 2_000n) });
  return tx;
}

const ask = (tx: Transaction, input: number, message?: Uint8Array) =>
  askTreasuryInput(policy, env, 'treasury-split', tx, input, message);

describe("a guardian's check of the operator's treasury split", () => {
  it('approves every input of an honest split: treasury in, treasury out, UNIT moved among them', async () => {
    const tx = split();
    for (let input = 0; input < 3; input++) expect(await ask(tx, input)).toEqual({ approve: true });
  });

  it('refuses a split that pays one output elsewhere, or spends a foreign input', async () => {
    const scripts = [TREASURY_SCRIPT, ELSEWHERE, TREASURY_SCRIPT, TREASURY_SCRIPT];
    expect(await ask(split({ scripts }), 0)).toEqual(
      refusal('output 1 pays another script than the treasury'),
    );
    const txid = hex.encode(keyOf('wallet'));
    chain.txs.set(txid, [{ script: ELSEWHERE, value: 50_000n, address: 'w' }]);
    const extraInput = { txid, vout: 0, value: 50_000n, script: ELSEWHERE };
    expect(await ask(split({ extraInput }), 0)).toEqual(
      refusal('input 3 is not a treasury output'),
    );
  });

  it('refuses a runestone that burns UNIT, moves another rune, etches, or is a cenotaph', async () => {
    // Output 4 is the runestone: UNIT sent there is burned.
    const burn = split({ edicts: [{ id: UNIT, amount: 100n, output: 4 }] });
    expect(await ask(burn, 0)).toEqual(refusal(/sends UNIT to output 4, an OP_RETURN: a burn/));
    const other = split({ edicts: [{ id: { block: 1n, tx: 7 }, amount: 1n, output: 0 }] });
    expect(await ask(other, 1)).toEqual(refusal(`the runestone moves 1:7, not UNIT (${RUNE_ID})`));
    const etching = split({
      stone: encodeRunestone({ edicts: [], etching: { rune: 'AAAAAAAAAAAAAAA', premine: 1n } }),
    });
    expect(await ask(etching, 0)).toEqual(refusal('the treasury split may not etch a rune'));
    // The runes no edict moves go to the pointer: the OP_RETURN would burn them.
    const pointer = split({ stone: encodeRunestone({ edicts: [], pointer: 4 }) });
    expect(await ask(pointer, 0)).toEqual(
      refusal("the runestone's pointer 4 is no treasury output"),
    );
    // An edict to an output that does not exist makes the whole message a cenotaph: all burned.
    const cenotaph = split({ edicts: [{ id: UNIT, amount: 1n, output: 99 }] });
    expect(await ask(cenotaph, 2)).toEqual(refusal(/the runestone is a cenotaph \(edict_output\)/));
  });

  it('refuses a fee over its ceiling rate, and one that pays out more than it spends', async () => {
    const huge = split({ fee: 60_000n });
    expect(await ask(huge, 0)).toEqual(
      refusal(/^the fee 60000 sats is over 50 sat\/vB of its \d+ vB/),
    );
    expect(await ask(split({ fee: -1n }), 0)).toEqual(
      refusal('the treasury split pays out more than it spends'),
    );
  });

  it("refuses another input's sighash, a spent input, and a malformed context", async () => {
    const tx = split();
    const prevouts = inputs.map((i) => ({ script: i.script, amount: i.value }));
    expect(await ask(tx, 0, taprootSighash(tx, prevouts, 1, null))).toEqual(
      refusal("the message is not the treasury split's input 0"),
    );
    chain.spentOutputs.set(`${inputs[1]!.txid}:1`, 'ab'.repeat(32));
    expect(await ask(tx, 0)).toEqual(refusal("input 1 is already spent on this guardian's chain"));
    const malformed = await policy.decide(
      {
        sessionId: 'x',
        message: new Uint8Array(32),
        context: { kind: 'treasury-split', psbt: 'zz' },
      },
      env,
    );
    expect(malformed).toEqual(refusal(/the treasury split context is malformed \(input:/));
  });
});
