// What each guardian runs before it signs a settlement (settlementRefusal): the chain at or past the
// term, the slot's settlement leaf and no other, an unsigned input, and the split to the sat.
import { describe, expect, it } from 'vitest';
import { TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { concatBytes } from '@scure/btc-signer/utils.js';
import { SETTLEMENT_MAX_FEE_RATE } from '@unit/protocol';
import { userKey } from '../test/testKeys';
import { settlementOf, TERM, termedVault, treasuryScript } from '../test/settlement-fixture';
import { ownerPayoutScript, planSettlement, settlementRefusal } from './term-settlement';
import { TAPSCRIPT_LEAF_VERSION } from './vault-script';

const vault = termedVault;
// $123.45 of debt at $65,432.10: ceil(12,345 × 10^8 / 6,543,210) = 188,669 sats, tax 28,300.
const request = settlementOf(
  { tx: 7, vout: 1, amount: 500_000n },
  { debtCents: 12_345n, priceCents: 6_543_210n, feeRate: 3 },
);

/** The planned settlement with its input replaced by `change` of it. */
function withInput(change: (input: ReturnType<Transaction['getInput']>) => void): Transaction {
  const plan = planSettlement(request);
  const tx = new Transaction({ lockTime: plan.tx.lockTime, allowUnknownInputs: true });
  const input = plan.tx.getInput(0);
  change(input);
  // Outputs first: an input with a finished witness takes no more outputs.
  for (let i = 0; i < plan.tx.outputsLength; i++) tx.addOutput(plan.tx.getOutput(i));
  tx.addInput(input);
  return tx;
}

describe('the guardian check of a settlement', () => {
  it('takes the planned settlement at the term and after, with the split to the sat', () => {
    const plan = planSettlement(request);
    expect(plan.split).toEqual({
      debtSats: 188_669n,
      taxSats: 28_300n,
      treasurySats: 216_969n,
      ownerSats: 500_000n - 216_969n,
    });
    expect(plan.tx.getOutput(0)).toMatchObject({ script: treasuryScript, amount: 216_969n });
    expect(plan.tx.getOutput(1)).toMatchObject({
      script: ownerPayoutScript(userKey.xOnly),
      amount: 500_000n - 216_969n - plan.feeSats,
    });
    expect(plan.feeSats % 3n).toBe(0n);
    expect(settlementRefusal(plan.tx, request, TERM.settleHeight)).toBeNull();
    expect(settlementRefusal(plan.tx, request, TERM.exitHeight + 100)).toBeNull();
  });

  it('refuses before the term, whatever the transaction', () => {
    const plan = planSettlement(request);
    expect(settlementRefusal(plan.tx, request, TERM.settleHeight - 1)).toMatch(
      /reaches its term at block 5000 and the chain is at block 4999/,
    );
  });

  it("refuses a PSBT that names another leaf than the slot's settlement leaf", () => {
    const other = vault.settlementLeaves![1]!;
    const wrongSlot = withInput((input) => {
      input.tapLeafScript = [
        [
          TaprootControlBlock.decode(other.controlBlock),
          concatBytes(other.script, Uint8Array.of(TAPSCRIPT_LEAF_VERSION)),
        ],
      ];
    });
    expect(settlementRefusal(wrongSlot, request, TERM.settleHeight)).toMatch(/settlement leaf/);
    const exit = withInput((input) => {
      input.tapLeafScript = [
        [
          TaprootControlBlock.decode(vault.exitLeaf!.controlBlock),
          concatBytes(vault.exitLeaf!.script, Uint8Array.of(TAPSCRIPT_LEAF_VERSION)),
        ],
      ];
    });
    expect(settlementRefusal(exit, request, TERM.settleHeight)).toMatch(/settlement leaf/);
    const exitWitness = withInput((input) => {
      input.finalScriptWitness = [
        new Uint8Array(64),
        vault.exitLeaf!.script,
        vault.exitLeaf!.controlBlock,
      ];
    });
    expect(settlementRefusal(exitWitness, request, TERM.settleHeight)).toMatch(/settlement leaf/);
  });

  it('refuses another outpoint, lock time or sequence', () => {
    const otherVout = withInput((input) => {
      input.index = 0;
    });
    expect(settlementRefusal(otherVout, request, TERM.settleHeight)).toMatch(/vault output/);
    const replaceable = withInput((input) => {
      input.sequence = 0xffffffff;
    });
    expect(settlementRefusal(replaceable, request, TERM.settleHeight)).toMatch(/keeps the lock/);
    const plan = planSettlement(request);
    const later = new Transaction({ lockTime: TERM.settleHeight + 1, allowUnknownInputs: true });
    later.addInput(plan.tx.getInput(0));
    for (let i = 0; i < plan.tx.outputsLength; i++) later.addOutput(plan.tx.getOutput(i));
    expect(settlementRefusal(later, request, TERM.exitHeight)).toMatch(/locked at the term/);
  });

  it('refuses a fee rate out of bounds and a vault too small for its fee', () => {
    const plan = planSettlement(request);
    expect(settlementRefusal(plan.tx, { ...request, feeRate: 0 }, TERM.settleHeight)).toMatch(
      /fee rate/,
    );
    expect(settlementRefusal(plan.tx, { ...request, feeRate: 2.5 }, TERM.settleHeight)).toMatch(
      /fee rate/,
    );
    // The owner pays the fee: above the settlement's own cap, well under the exit's 1,000.
    const capped = { ...request, feeRate: SETTLEMENT_MAX_FEE_RATE };
    expect(settlementRefusal(planSettlement(capped).tx, capped, TERM.settleHeight)).toBeNull();
    expect(
      settlementRefusal(
        plan.tx,
        { ...request, feeRate: SETTLEMENT_MAX_FEE_RATE + 1 },
        TERM.settleHeight,
      ),
    ).toMatch(/fee rate is a whole number from 1 to 50 sat\/vB/);
    const tiny = { ...request, utxo: { ...request.utxo, amount: 600n } };
    expect(settlementRefusal(plan.tx, tiny, TERM.settleHeight)).toMatch(/too little/);
  });
});
