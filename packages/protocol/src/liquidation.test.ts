import { describe, expect, it } from 'vitest';
import type { VaultHistoryRecordDto } from './api';
import { keyMayOpenVault, liquidationOutcome, liquidationStage } from './liquidation';

const record = (
  action: VaultHistoryRecordDto['action'],
  timestamp: number,
  fields: Partial<VaultHistoryRecordDto>,
): VaultHistoryRecordDto => ({
  timestamp,
  action,
  btc_amt: 0,
  unit_amt: 0,
  vault_amount: 0,
  amount_borrowed: 0,
  oracle_price: 95_000,
  transaction_id: action.repeat(64),
  utxo: '',
  utxo_script: '',
  liquidation_hash: null,
  liquidation_threshold: null,
  vault_id: 'v',
  confirmed: true,
  ...fields,
});

// 0.1 BTC against 7,000.00 UNIT: liquidation price 7,000 × 1.35 / 0.1 = 94,500.00 USD.
const opened = record('o', 1_000, {
  btc_amt: 10_000_000,
  unit_amt: 700_000,
  vault_amount: 10_000_000,
  amount_borrowed: 700_000,
});
const liquidated = record('l', 5_000, {
  btc_amt: 10_000_000,
  unit_amt: 700_000,
  vault_amount: 10_000_000,
  amount_borrowed: 700_000,
  oracle_price: 94_000,
  transaction_id: 'e'.repeat(64),
  liquidation_hash: 'a'.repeat(40),
  liquidation_threshold: 9_450_000,
});
const claimed = record('x', 9_000, {
  btc_amt: 10_000_000,
  unit_amt: 700_000,
  transaction_id: '6'.repeat(64),
  confirmed: false,
});

describe('liquidationOutcome', () => {
  it('is null for a vault never liquidated', () => {
    expect(liquidationOutcome([opened])).toBeNull();
  });

  it('tells the price, the collateral and debt at that moment, pending a claim', () => {
    const outcome = liquidationOutcome([liquidated, opened])!;
    expect(outcome).toMatchObject({
      stage: 'pending',
      liquidatedAt: 5_000,
      thresholdCents: 9_450_000n,
      oraclePriceUsd: 94_000,
      collateralSats: 10_000_000n,
      debtCents: 700_000n,
      vaultTxid: 'e'.repeat(64),
      claim: null,
      keptUnitCents: 700_000n,
      lostSats: 10_000_000n,
    });
    // 0.1 × 94,000 / 7,000 = 134.3%: rounded 134, under the 135 line
    expect(outcome.ratioAtLiquidation).toBe(134);
  });

  it('after a repossess tells when, which transaction, and the 85/15 split of the collateral', () => {
    const outcome = liquidationOutcome([opened, liquidated, claimed])!;
    expect(outcome.stage).toBe('repossessed');
    // 15% of 10,000,000 sats is 1,500,000 to the treasury, 8,500,000 to the claimant
    expect(outcome.claim).toEqual({
      at: 9_000,
      txid: '6'.repeat(64),
      confirmed: false,
      claimantSats: 8_500_000n,
      taxSats: 1_500_000n,
    });
    // the owner keeps the 7,000.00 UNIT borrowed and loses the 0.1 BTC
    expect(outcome.keptUnitCents).toBe(700_000n);
    expect(outcome.lostSats).toBe(10_000_000n);
  });
});

describe('liquidationStage', () => {
  const none = {
    liquidated: false,
    vaultStatus: 'active',
    listedStatus: null,
    outcome: null,
  } as const;

  it('is pending from any sign of liquidation until a repossession is known', () => {
    expect(liquidationStage(none)).toBe('none');
    // the ratio or the session marker, before the guardian's sweep lists it
    expect(liquidationStage({ ...none, liquidated: true })).toBe('pending');
    expect(liquidationStage({ ...none, vaultStatus: 'liquidated' })).toBe('pending');
    expect(liquidationStage({ ...none, listedStatus: 'liquidated' })).toBe('pending');
    expect(liquidationStage({ ...none, outcome: liquidationOutcome([liquidated]) })).toBe(
      'pending',
    );
  });

  it('is repossessed once any source says so, even while another still says liquidated', () => {
    expect(liquidationStage({ ...none, liquidated: true, vaultStatus: 'repossessed' })).toBe(
      'repossessed',
    );
    expect(
      liquidationStage({ ...none, vaultStatus: 'liquidated', listedStatus: 'repossessed' }),
    ).toBe('repossessed');
    expect(
      liquidationStage({
        ...none,
        liquidated: true,
        outcome: liquidationOutcome([liquidated, claimed]),
      }),
    ).toBe('repossessed');
  });
});

describe('keyMayOpenVault (one live vault per key)', () => {
  it('lets a key open its first vault, and a new one once the last is repossessed', () => {
    expect(keyMayOpenVault(null)).toBe(true);
    expect(keyMayOpenVault({ status: 'repossessed' })).toBe(true);
  });

  it('refuses while the key has an active vault or a liquidation not yet claimed', () => {
    expect(keyMayOpenVault({ status: 'active' })).toBe(false);
    expect(keyMayOpenVault({ status: 'liquidated' })).toBe(false);
  });
});
