// The guardians' settlement at term: the script check takes it from the settlement height with the
// slot's group key alone, it pays the debt at the quorum price with the 15% tax to the treasury and
// the rest less the fee to the owner's key, to the sat, and the guardian's check refuses any other.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { guardianKey, userKey } from '../test/testKeys';
import { settlementOf, TERM, termedVault, treasuryScript } from '../test/settlement-fixture';
import {
  checkSettlement,
  finishSettlement,
  ownerPayoutScript,
  planSettlement,
  settlementSighash,
  type SettlementRequest,
} from './term-settlement';
import { verifyInputs } from './verify';
import { vaultOutput } from './vault-script';

const vault = termedVault;
// 1,000 UNIT at 100,000 USD: 1,000,000 sats of debt, 150,000 of tax.
const request = settlementOf(
  { tx: 3, vout: 0, amount: 3_000_000n },
  { debtCents: 100_000n, priceCents: 10_000_000n, feeRate: 2 },
);

function signed(req: SettlementRequest, key = guardianKey.privateKey) {
  const plan = planSettlement(req);
  const tx = finishSettlement(plan, req, schnorr.sign(settlementSighash(plan, req), key));
  return { plan, tx };
}

describe('a settlement at term', () => {
  it('pays the debt and the tax to the treasury and the rest less the fee to the owner, to the sat', () => {
    const { plan, tx } = signed(request);
    expect(verifyInputs(tx.hex, [{ script: vault.script, amount: 3_000_000n }])).toEqual({
      ok: true,
    });
    expect(tx.lockTime).toBe(TERM.settleHeight);
    expect(plan.feeSats).toBe(BigInt(2 * tx.vsize));
    expect(tx.getOutput(0)).toMatchObject({ script: treasuryScript, amount: 1_150_000n });
    expect(tx.getOutput(1)).toMatchObject({
      script: ownerPayoutScript(userKey.xOnly),
      amount: 3_000_000n - 1_150_000n - plan.feeSats,
    });
    expect(checkSettlement(tx, request)).toBeNull();
  });

  it('returns everything less the fee to the owner when there is no debt', () => {
    const { plan, tx } = signed({ ...request, debtCents: 0n });
    expect(tx.outputsLength).toBe(1);
    expect(tx.getOutput(0).amount).toBe(3_000_000n - plan.feeSats);
  });

  it('is refused by the script check before the term or with another key', () => {
    const { tx } = signed(request, userKey.privateKey);
    expect(verifyInputs(tx.hex, [{ script: vault.script, amount: 3_000_000n }])).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
    const early = new Transaction({ lockTime: TERM.settleHeight - 1, allowUnknownInputs: true });
    const plan = planSettlement(request);
    early.addInput(plan.tx.getInput(0));
    for (let i = 0; i < plan.tx.outputsLength; i++) early.addOutput(plan.tx.getOutput(i));
    const lowered = { ...plan, tx: early };
    const tx2 = finishSettlement(
      lowered,
      request,
      schnorr.sign(settlementSighash(lowered, request), guardianKey.privateKey),
    );
    expect(verifyInputs(tx2.hex, [{ script: vault.script, amount: 3_000_000n }])).toMatchObject({
      ok: false,
      reason: 'unsatisfied-locktime',
    });
    expect(checkSettlement(tx2, request)).toMatch(/locked at the term/);
  });

  it('refuses any other split, destination or extra output', () => {
    const plan = planSettlement(request);
    const variants: Array<[string, (tx: Transaction) => void, RegExp]> = [
      [
        'more to the treasury',
        (tx) => {
          tx.addOutput({ script: treasuryScript, amount: plan.treasurySats + 1n });
          tx.addOutput({ script: plan.ownerScript, amount: plan.ownerSats - 1n });
        },
        /output 0/,
      ],
      [
        'the rest elsewhere',
        (tx) => {
          tx.addOutput({ script: treasuryScript, amount: plan.treasurySats });
          tx.addOutput({ script: treasuryScript, amount: plan.ownerSats });
        },
        /output 1/,
      ],
      [
        'an extra output',
        (tx) => {
          tx.addOutput({ script: treasuryScript, amount: plan.treasurySats });
          tx.addOutput({ script: plan.ownerScript, amount: plan.ownerSats - 1_000n });
          tx.addOutput({ script: treasuryScript, amount: 1_000n });
        },
        /nothing else/,
      ],
    ];
    for (const [what, outputs, reason] of variants) {
      const tx = new Transaction({ lockTime: TERM.settleHeight, allowUnknownInputs: true });
      tx.addInput(plan.tx.getInput(0));
      outputs(tx);
      expect(checkSettlement(tx, request), what).toMatch(reason);
    }
    // A quorum price other than the guardian's own makes another split: refused.
    expect(checkSettlement(plan.tx, { ...request, priceCents: 9_000_000n })).toMatch(/output 0/);
    expect(() =>
      planSettlement({
        ...request,
        vault: vaultOutput({
          vaultPubkey: userKey.xOnly,
          guardPubkey: guardianKey.xOnly,
          thresholdHash: new Uint8Array(20),
          network: TEST_NETWORK,
        }),
      }),
    ).toThrow(/layout 2/);
  });
});
