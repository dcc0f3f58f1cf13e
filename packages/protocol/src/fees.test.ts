import { describe, expect, it } from 'vitest';
import {
  capFeeRate,
  cappedFeeOptions,
  defaultPaymentInputs,
  estimateVsize,
  feeOptions,
  networkFeeSats,
  operationCostSats,
  oracleCount,
  fundedPostageSats,
  postageOutputs,
  selectedFeeRate,
} from './fees';
import { stateRecordScriptBytes, VAULT_ACTIONS } from './action-shapes';
import type { VaultAction } from './api';

describe('feeOptions', () => {
  const recommended = { fastestFee: 20, halfHourFee: 12, hourFee: 8, economyFee: 4, minimumFee: 1 };
  it('maps hourFee, halfHourFee and fastestFee to Slow, Medium and Fast', () => {
    expect(feeOptions(recommended)).toEqual([
      { speed: 'slow', fee: 8, time: 60, label: 'Slow ~60+ min' },
      { speed: 'medium', fee: 12, time: 30, label: 'Medium ~30 min' },
      { speed: 'fast', fee: 20, time: 10, label: 'Fast ~10 min' },
    ]);
  });
  it('uses 1 sat/vB for every option when there are no recommendations', () => {
    expect(feeOptions(null).map((o) => o.fee)).toEqual([1, 1, 1]);
    expect(feeOptions({ fastestFee: 0 }).map((o) => o.fee)).toEqual([1, 1, 1]);
  });
  it('selects Fast by default', () => {
    expect(selectedFeeRate(feeOptions(recommended), null)).toBe(20);
    expect(selectedFeeRate(feeOptions(recommended), 'slow')).toBe(8);
    expect(selectedFeeRate([], 'slow')).toBe(1);
  });
});

describe('capFeeRate', () => {
  it('keeps a rate at which 1000 vB cost exactly 1000 USD and reduces one above', () => {
    // at $100,000, 1000 vB x 1000 sat/vB = 0.01 BTC = $1000
    expect(capFeeRate(1000, 100_000)).toBe(1000);
    expect(capFeeRate(1001, 100_000)).toBe(1000);
    expect(capFeeRate(5000, 200_000)).toBe(500);
  });
  it('leaves ordinary rates and unknown prices alone, never below 1', () => {
    expect(capFeeRate(25, 95_000)).toBe(25);
    expect(capFeeRate(5000, null)).toBe(5000);
    expect(capFeeRate(0, 95_000)).toBe(1);
    expect(capFeeRate(50, 1e12)).toBe(1);
  });
});

describe('estimateVsize', () => {
  it('sizes a deposit: script-path vault input, one P2WPKH input, vault, state and change', () => {
    // 42 overhead + 430 vault + 272 P2WPKH + 172 vault out + 296 state + 172 change = 1384 WU
    expect(estimateVsize({ action: 'deposit', paymentInputs: 1 })).toBe(346);
  });
  it('adds 68 vB per P2WPKH payment input', () => {
    const one = estimateVsize({ action: 'borrow', paymentInputs: 1 });
    expect(estimateVsize({ action: 'borrow', paymentInputs: 3 }) - one).toBe(136);
  });
  it('sizes a withdraw with the vault input alone and no change', () => {
    // 42 + 430 + 2 x 172 + 296 = 1112 WU
    expect(estimateVsize({ action: 'withdraw', paymentInputs: 0 })).toBe(278);
  });
  it('orders actions by their layouts', () => {
    const size = (action: Parameters<typeof estimateVsize>[0]['action']) =>
      estimateVsize({ action, paymentInputs: 1 });
    expect(size('borrow')).toBeGreaterThan(size('open'));
    expect(size('repay')).toBeGreaterThan(size('deposit'));
    expect(size('repossess')).toBeGreaterThan(size('deposit'));
    expect(estimateVsize({ action: 'repay', paymentInputs: 1, unitInputs: 2 })).toBeGreaterThan(
      size('repay'),
    );
  });
});

describe('operationCostSats', () => {
  it('charges (vsize + 350 vB) x rate for a deposit', () => {
    expect(operationCostSats({ action: 'deposit', feeRate: 2, paymentInputs: 1 })).toBe(
      BigInt((346 + 350) * 2),
    );
  });
  it('adds UNIT postage for open, borrow and repay only', () => {
    const vsize = estimateVsize({ action: 'borrow', paymentInputs: 1 });
    expect(operationCostSats({ action: 'borrow', feeRate: 1, paymentInputs: 1 })).toBe(
      BigInt(vsize + 350 + 10_000),
    );
    expect(
      operationCostSats({ action: 'borrow', feeRate: 1, paymentInputs: 1, postageSats: 546 }),
    ).toBe(BigInt(vsize + 350 + 546));
    expect(postageOutputs('open')).toBe(1);
    expect(postageOutputs('repay')).toBe(1);
    expect(postageOutputs('withdraw')).toBe(0);
    expect(postageOutputs('deposit')).toBe(0);
  });
  it("funds the account's postage on open and borrow, the treasury's on repay", () => {
    expect(fundedPostageSats('open', 20_000, 10_000)).toBe(20_000n);
    expect(fundedPostageSats('borrow', 15_000)).toBe(15_000n);
    // the repay's UNIT change keeps its inputs' postage; the payment funds the treasury's
    expect(fundedPostageSats('repay', 20_000, 10_000)).toBe(10_000n);
    expect(fundedPostageSats('deposit', 20_000)).toBe(0n);
    expect(fundedPostageSats('withdraw', 20_000)).toBe(0n);
    const vsize = estimateVsize({ action: 'repay', paymentInputs: 1 });
    expect(
      operationCostSats({ action: 'repay', feeRate: 1, paymentInputs: 1, postageSats: 20_000 }),
    ).toBe(BigInt(vsize + 350 + 10_000));
  });
  it('rounds fractional rates up', () => {
    expect(operationCostSats({ action: 'withdraw', feeRate: 1.5, paymentInputs: 0 })).toBe(
      BigInt(Math.ceil((278 + 350) * 1.5)),
    );
  });
});

describe('networkFeeSats', () => {
  it('is the estimated vsize at the rate, without the vin allowance or postage', () => {
    expect(networkFeeSats({ action: 'deposit', feeRate: 1, paymentInputs: 1 })).toBe(346n);
    const borrow = estimateVsize({ action: 'borrow', paymentInputs: 1 });
    expect(networkFeeSats({ action: 'borrow', feeRate: 3, paymentInputs: 1 })).toBe(
      BigInt(borrow * 3),
    );
    expect(networkFeeSats({ action: 'withdraw', feeRate: 1.5, paymentInputs: 0 })).toBe(
      BigInt(Math.ceil(278 * 1.5)),
    );
  });
  it('stays under the operation cost that maxima and balance checks use', () => {
    for (const action of ['open', 'deposit', 'borrow', 'repay', 'withdraw', 'repossess'] as const) {
      const input = { action, feeRate: 5, paymentInputs: defaultPaymentInputs(action) };
      expect(networkFeeSats(input)).toBeLessThan(operationCostSats(input));
    }
  });
});

describe('defaultPaymentInputs', () => {
  it('quotes a withdraw with no payment input and every other action with one', () => {
    expect(defaultPaymentInputs('withdraw')).toBe(0);
    for (const action of ['open', 'deposit', 'borrow', 'repay', 'repossess'] as const)
      expect(defaultPaymentInputs(action)).toBe(1);
  });
});

describe('cappedFeeOptions', () => {
  it('offers Slow, Medium and Fast with each rate under the 1000 USD per 1000 vB cap', () => {
    // At 200,000 USD the cap is 500 sat/vB: Fast (900) is reduced, the others stay.
    const options = cappedFeeOptions({ hourFee: 20, halfHourFee: 600, fastestFee: 900 }, 200_000);
    expect(options.map((o) => [o.speed, o.fee])).toEqual([
      ['slow', 20],
      ['medium', 500],
      ['fast', 500],
    ]);
  });

  it('leaves the rates as they are while the price is unknown', () => {
    expect(cappedFeeOptions({ fastestFee: 900 }, null).map((o) => o.fee)).toEqual([1, 1, 900]);
  });
});

describe('a liquidated vault with several oracle commitments', () => {
  it('costs 32 witness bytes per deeper level of its liquidation leaf, capped at three oracles', () => {
    const size = (oracles?: number) =>
      estimateVsize({ action: 'repossess', paymentInputs: 1, ...(oracles ? { oracles } : {}) });
    expect(size(1)).toBe(size());
    expect(size(2)).toBe(size() + 8);
    expect(size(3)).toBe(size() + 16);
    expect(size(9)).toBe(size(3));
    // Only the liquidated input grows: another action is the same.
    expect(estimateVsize({ action: 'deposit', paymentInputs: 1, oracles: 3 })).toBe(
      estimateVsize({ action: 'deposit', paymentInputs: 1 }),
    );
  });

  it("sizes a repossess from the liquidated vault's witness, byte by byte", () => {
    // Tree [update, [L1, [L2, L3]]] (vaultOutput, one guardian key): L2/L3 have 3 siblings, the
    // update leaf 1 whether the tree has 2 or 4 leaves (checked on a real network vault's witness
    // in apps/server/test/guardian-network/oracles.test.ts).
    const liquidationWitness = (siblings: number) =>
      1 + (1 + 64) + (1 + 32) + (1 + 57) + (1 + 33 + 32 * siblings);
    const updateWitness = 1 + 2 * (1 + 64) + (1 + 68) + (1 + 33 + 32);
    const weight = (siblings: number) =>
      (4 + 4 + 1 + 1) * 4 +
      2 + // version, locktime, counts, segwit marker and flag
      (41 * 4 + 1 + (1 + 72) + (1 + 33)) + // the P2WPKH payment input
      (41 * 4 + liquidationWitness(siblings)) +
      (41 * 4 + updateWitness) +
      3 * (8 + 1 + 34) * 4 + // the claimant's vault, the tax, the change
      (8 + 1 + 65) * 4; // the state record
    expect(estimateVsize({ action: 'repossess', paymentInputs: 1 })).toBe(486);
    expect(Math.ceil(weight(1) / 4)).toBe(486);
    expect(estimateVsize({ action: 'repossess', paymentInputs: 1, oracles: 3 })).toBe(502);
    expect(Math.ceil(weight(3) / 4)).toBe(502);
    // At 10 sat/vB a three-oracle vault priced as a one-oracle vault is 160 sats short.
    const fee = (oracles: number) =>
      networkFeeSats({ action: 'repossess', paymentInputs: 1, oracles, feeRate: 10 });
    expect(fee(3) - fee(1)).toBe(160n);
  });

  it("counts a vault's oracles from its threshold hashes: 1 to 3, none known is 1", () => {
    expect(oracleCount(['a', 'b', 'c'])).toBe(3);
    expect(oracleCount(['a'])).toBe(1);
    expect(oracleCount([])).toBe(1);
    expect(oracleCount(null)).toBe(1);
    expect(oracleCount(undefined)).toBe(1);
    expect(oracleCount(2)).toBe(2);
    expect(oracleCount(7)).toBe(3);
    expect(oracleCount(Number.NaN)).toBe(1);
  });
});

describe('a network-mode state record, committing to the price quorum (+32 bytes)', () => {
  it('sizes the record scripts: 65 and 98 bytes in off mode, 98 and 130 committed', () => {
    expect(stateRecordScriptBytes('state', false)).toBe(65);
    expect(stateRecordScriptBytes('opening-state', false)).toBe(98);
    // 95 bytes no longer fit a direct push: OP_PUSHDATA1 and its length byte, +33 in all.
    expect(stateRecordScriptBytes('state', true)).toBe(98);
    expect(stateRecordScriptBytes('opening-state', true)).toBe(130);
  });

  it('adds 33 vB to an update and 32 vB to an opening; off mode is unchanged', () => {
    // deposit: 1384 WU + 33 x 4 = 1516 WU; withdraw: 1112 + 132 = 1244 WU.
    expect(estimateVsize({ action: 'deposit', paymentInputs: 1, quorumCommitment: true })).toBe(
      379,
    );
    expect(estimateVsize({ action: 'withdraw', paymentInputs: 0, quorumCommitment: true })).toBe(
      311,
    );
    expect(estimateVsize({ action: 'deposit', paymentInputs: 1, quorumCommitment: false })).toBe(
      346,
    );
    const grows = (action: VaultAction) =>
      estimateVsize({ action, paymentInputs: 1, quorumCommitment: true }) -
      estimateVsize({ action, paymentInputs: 1 });
    expect(VAULT_ACTIONS.map((a) => [a, grows(a)])).toEqual([
      ['open', 32],
      ['deposit', 33],
      ['withdraw', 33],
      ['borrow', 33],
      ['repay', 33],
      ['repossess', 33],
    ]);
    // The fee follows: 33 vB at 10 sat/vB.
    const fee = (quorumCommitment: boolean) =>
      networkFeeSats({ action: 'borrow', paymentInputs: 1, feeRate: 10, quorumCommitment });
    expect(fee(true) - fee(false)).toBe(330n);
  });
});

describe('a layout 2 state record, carrying the term (+40 bytes)', () => {
  it('sizes the record scripts with the term', () => {
    // 103 bytes need OP_PUSHDATA1: +41 for an update's record in off mode, +40 elsewhere.
    expect(stateRecordScriptBytes('state', false, true)).toBe(106);
    expect(stateRecordScriptBytes('opening-state', false, true)).toBe(138);
    expect(stateRecordScriptBytes('state', true, true)).toBe(138);
    expect(stateRecordScriptBytes('opening-state', true, true)).toBe(170);
  });

  it('adds the record and, for a layout 2 vault spent, one sibling hash', () => {
    const committed = { paymentInputs: 1, quorumCommitment: true } as const;
    const grows = (action: VaultAction) =>
      estimateVsize({ action, ...committed, term: true }) - estimateVsize({ action, ...committed });
    expect(VAULT_ACTIONS.map((a) => [a, grows(a)])).toEqual([
      ['open', 40],
      ['deposit', 40],
      ['withdraw', 40],
      ['borrow', 40],
      ['repay', 40],
      ['repossess', 40],
    ]);
    // The update leaf one level deeper: 32 WU, 8 vB.
    expect(
      estimateVsize({ action: 'deposit', ...committed, term: true, spentTermed: true }) -
        estimateVsize({ action: 'deposit', ...committed, term: true }),
    ).toBe(8);
  });
});
