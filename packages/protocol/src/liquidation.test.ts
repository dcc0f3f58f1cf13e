import { describe, expect, it } from 'vitest';
import type { VaultHistoryRecordDto } from './api';
import {
  keyMayOpenVault,
  liquidatedCards,
  liquidationOutcome,
  liquidationStage,
} from './liquidation';
import { sats, unitCents } from './units';

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

// No one repossessed it before its exit height: its owner's exit took the vault back.
const exited = record('e', 9_500, {
  btc_amt: 10_000_000,
  unit_amt: 700_000,
  oracle_price: 0,
  transaction_id: '7'.repeat(64),
  utxo_script: `0014${'11'.repeat(20)}`,
});

describe('a liquidated vault its owner took back by the exit', () => {
  it('ends exited, with the exit, the collateral not lost and the debt still kept', () => {
    const outcome = liquidationOutcome([exited, liquidated, opened])!;
    expect(outcome).toMatchObject({
      ...{ stage: 'exited', claim: null, collateralSats: 10_000_000n, debtCents: 700_000n },
      exit: { at: 9_500, txid: '7'.repeat(64), utxoScript: `0014${'11'.repeat(20)}` },
      ...{ keptUnitCents: 700_000n, lostSats: 0n },
    });
    // An exit before the liquidation is no end of it (a vault is liquidated once, after it).
    expect(liquidationOutcome([{ ...exited, timestamp: 4_000 }, liquidated])?.stage).toBe(
      'pending',
    );
  });

  it('is the stage once any source says so, and only for a vault that was liquidated', () => {
    const none = {
      liquidated: false,
      vaultStatus: 'active',
      listedStatus: null,
      outcome: null,
    } as const;
    expect(liquidationStage({ ...none, listedStatus: 'exited' })).toBe('exited');
    expect(liquidationStage({ ...none, outcome: liquidationOutcome([liquidated, exited]) })).toBe(
      'exited',
    );
    expect(liquidationStage({ ...none, vaultStatus: 'exited', listedStatus: 'liquidated' })).toBe(
      'exited',
    );
    // A vault left by its exit that was never liquidated has no liquidation stage.
    expect(liquidationStage({ ...none, vaultStatus: 'exited' })).toBe('none');
  });

  it('says on the cards that nothing is left or owed, and which transaction took it', () => {
    const cards = liquidatedCards('exited', liquidationOutcome([liquidated, exited]), {
      sats: sats(0),
      debtCents: unitCents(0),
    });
    expect(cards.owedCents).toBe(0n);
    expect(cards.collateralSats).toBe(0n);
    expect(cards.collateralNote).toBe(
      `Taken back by its owner's exit: no one repossessed the vault before its exit height, so the vault key alone took its 0.1 BTC, less the network fee, in transaction ${'7'.repeat(64)}.`,
    );
    expect(cards.debtNote).toBe(
      'Nothing is owed on this closed vault: its 7,000.00 UNIT debt was not repaid, and the UNIT you borrowed stays with you.',
    );
    expect(cards.priceNote).toBe('The vault is closed: it has no liquidation price any more.');
  });
});

describe('keyMayOpenVault (one live vault per key)', () => {
  it('lets a key open its first vault, and a new one once the last is closed', () => {
    expect(keyMayOpenVault(null)).toBe(true);
    expect(keyMayOpenVault({ status: 'repossessed' })).toBe(true);
    expect(keyMayOpenVault({ status: 'settled' })).toBe(true);
    expect(keyMayOpenVault({ status: 'exited' })).toBe(true);
  });

  it('refuses while the key has an active vault or a liquidation not yet claimed', () => {
    expect(keyMayOpenVault({ status: 'active' })).toBe(false);
    expect(keyMayOpenVault({ status: 'liquidated' })).toBe(false);
  });
});

describe('liquidatedCards', () => {
  // The vault record still holds the collateral and the debt until a claimant spends its output.
  const standing = { sats: sats(10_000_000), debtCents: unitCents(700_000) };

  it('owes nothing once liquidated, and says where the collateral goes', () => {
    const cards = liquidatedCards('pending', liquidationOutcome([opened, liquidated]), standing);
    expect(cards.owedCents).toBe(0n);
    expect(cards.collateralSats).toBe(10_000_000n);
    expect(cards.debtNote).toBe(
      'Nothing is owed: the 7,000.00 UNIT debt goes to whoever repossesses the vault, and the UNIT you borrowed is yours to keep.',
    );
    expect(cards.collateralNote).toBe(
      'Liquidated: this collateral is no longer yours. Whoever repossesses the vault takes 0.085 BTC (85%) and the treasury 0.015 BTC (15%).',
    );
    expect(cards.priceNote).toMatch(/^The BTC price reached this liquidation price/);
  });

  it('reads the vault as it stands before the guardian records the liquidation', () => {
    const cards = liquidatedCards('pending', null, {
      sats: sats(1_000_000),
      debtCents: unitCents(40_000),
    });
    expect(cards.owedCents).toBe(0n);
    expect(cards.collateralSats).toBe(1_000_000n);
    expect(cards.debtNote).toContain('the 400.00 UNIT debt goes to whoever repossesses');
    expect(cards.collateralNote).toContain('takes 0.0085 BTC (85%) and the treasury 0.0015 BTC');
  });

  it('once repossessed: nothing locked, nothing owed, the split that was made', () => {
    const outcome = liquidationOutcome([opened, liquidated, claimed]);
    const cards = liquidatedCards('repossessed', outcome, {
      sats: sats(0),
      debtCents: unitCents(0),
    });
    expect(cards.owedCents).toBe(0n);
    expect(cards.collateralSats).toBe(0n);
    expect(cards.collateralNote).toBe(
      'Repossessed: the collateral went 0.085 BTC to the claimant and 0.015 BTC (15%) to the treasury.',
    );
    expect(cards.debtNote).toBe(
      'Nothing is owed: the 7,000.00 UNIT debt went to the claimant with the collateral, and the UNIT you borrowed is yours to keep.',
    );
    expect(cards.priceNote).toBe('The vault is closed: it has no liquidation price any more.');
  });

  it('once repossessed without the history: no figure it cannot know', () => {
    const cards = liquidatedCards('repossessed', null, { sats: sats(0), debtCents: unitCents(0) });
    expect(cards.collateralNote).toBe(
      'Repossessed: the collateral went to the claimant, less 15% to the treasury.',
    );
    expect(cards.debtNote).not.toMatch(/\d/);
  });
});
