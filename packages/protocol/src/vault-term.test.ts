import { describe, expect, it } from 'vitest';
import { BUTTON_REASONS, buttonState } from './buttons';
import {
  BLOCKS_PER_DAY,
  checkVaultTerm,
  DEVNET_TERM_CONFIG,
  lockTimeReaches,
  termSettledText,
  termSettlement,
  termStage,
  termConfigFromEnv,
  termProblem,
  termWarningBlocks,
  termWarningDays,
  TERM_TIP_TOLERANCE_BLOCKS,
  vaultExitedText,
  vaultTermAt,
} from './vault-term';

describe('a vault term', () => {
  it('opens the settlement a term after the next block and the exit a grace later', () => {
    expect(vaultTermAt(100)).toEqual({
      settleHeight: 100 + 1 + 52_560,
      exitHeight: 100 + 1 + 52_560 + 4_320,
    });
    expect(vaultTermAt(7, DEVNET_TERM_CONFIG)).toEqual({ settleHeight: 48, exitHeight: 68 });
    expect(() => vaultTermAt(1, { termBlocks: 0, graceBlocks: 1 })).toThrow(/termBlocks/);
    expect(() => vaultTermAt(1, { termBlocks: 1, graceBlocks: 2.5 })).toThrow(/graceBlocks/);
    expect(() => checkVaultTerm({ settleHeight: 5, exitHeight: 4 })).toThrow();
    expect(() => checkVaultTerm({ settleHeight: 5, exitHeight: 500_000_000 })).toThrow();
  });

  it('accepts a term computed within a few blocks of the checking tip, with the exact grace', () => {
    const d = TERM_TIP_TOLERANCE_BLOCKS;
    for (const tip of [1_000 - d, 1_000, 1_000 + d])
      expect(
        termProblem(vaultTermAt(tip, DEVNET_TERM_CONFIG), 1_000, DEVNET_TERM_CONFIG),
      ).toBeNull();
    for (const tip of [1_000 - d - 1, 1_000 + d + 1])
      expect(termProblem(vaultTermAt(tip, DEVNET_TERM_CONFIG), 1_000, DEVNET_TERM_CONFIG)).toMatch(
        /not the chain's term/,
      );
    const term = vaultTermAt(1_000, DEVNET_TERM_CONFIG);
    expect(
      termProblem({ ...term, exitHeight: term.exitHeight + 1 }, 1_000, DEVNET_TERM_CONFIG),
    ).toMatch(/20 blocks after/);
    expect(termProblem(term, 1_000)).toMatch(/not the chain's term/);
    expect(termProblem({ settleHeight: 0, exitHeight: 5 }, 1_000)).toMatch(/settlement height/);
    expect(termProblem(vaultTermAt(2), 0)).toBeNull();
  });

  it("reads the term from VAULT_TERM_BLOCKS and VAULT_TERM_GRACE_BLOCKS, else the network's", () => {
    expect(termConfigFromEnv({}, 'devnet')).toEqual(DEVNET_TERM_CONFIG);
    expect(termConfigFromEnv({}, 'mainnet')).toEqual({ termBlocks: 52_560, graceBlocks: 4_320 });
    expect(
      termConfigFromEnv({ VAULT_TERM_BLOCKS: '100', VAULT_TERM_GRACE_BLOCKS: '' }, 'signet'),
    ).toEqual({
      termBlocks: 100,
      graceBlocks: 4_320,
    });
    expect(() => termConfigFromEnv({ VAULT_TERM_BLOCKS: '1.5' }, 'devnet')).toThrow(/whole number/);
    expect(() => termConfigFromEnv({ VAULT_TERM_GRACE_BLOCKS: '0' }, 'devnet')).toThrow(
      /graceBlocks/,
    );
  });

  it('takes a height lock at or past the height only', () => {
    expect(lockTimeReaches(68, 68)).toBe(true);
    expect(lockTimeReaches(67, 68)).toBe(false);
    expect(lockTimeReaches(500_000_000, 68)).toBe(false);
  });

  it('stages and warns 30, 7 and 1 days before the term', () => {
    const term = { settleHeight: 100_000, exitHeight: 104_320 };
    expect(termStage(99_999, term)).toBe('open');
    expect(termStage(100_000, term)).toBe('settlement');
    expect(termStage(104_320, term)).toBe('exit');
    expect(termWarningDays(100_000 - 30 * BLOCKS_PER_DAY - 1, 100_000)).toBeNull();
    expect(termWarningDays(100_000 - 30 * BLOCKS_PER_DAY, 100_000)).toBe(30);
    expect(termWarningDays(100_000 - 7 * BLOCKS_PER_DAY - 1, 100_000)).toBe(30);
    expect(termWarningDays(100_000 - 7 * BLOCKS_PER_DAY, 100_000)).toBe(7);
    expect(termWarningDays(100_000 - BLOCKS_PER_DAY, 100_000)).toBe(1);
    expect(termWarningDays(99_999, 100_000)).toBe(1);
    expect(termWarningDays(100_000, 100_000)).toBeNull();
  });

  it('scales the warnings to a configured term, at least a block each', () => {
    expect(termWarningBlocks()).toEqual([
      { days: 30, blocks: 30 * BLOCKS_PER_DAY },
      { days: 7, blocks: 7 * BLOCKS_PER_DAY },
      { days: 1, blocks: BLOCKS_PER_DAY },
    ]);
    // The devnet's 40 blocks: 30 days are 3.3 blocks of it, 7 and 1 day less than one.
    expect(termWarningBlocks(DEVNET_TERM_CONFIG).map((w) => w.blocks)).toEqual([4, 1, 1]);
    expect(termWarningDays(95, 100, DEVNET_TERM_CONFIG)).toBeNull();
    expect(termWarningDays(96, 100, DEVNET_TERM_CONFIG)).toBe(30);
    expect(termWarningDays(98, 100, DEVNET_TERM_CONFIG)).toBe(30);
    expect(termWarningDays(99, 100, DEVNET_TERM_CONFIG)).toBe(1);
    expect(termWarningDays(100, 100, DEVNET_TERM_CONFIG)).toBeNull();
  });
});

describe('a settlement at term', () => {
  it('repays the debt at the price with the 15% tax and returns the rest less the fee', () => {
    // 1,000 UNIT at 100,000 USD: 1,000,000 sats of debt, 150,000 of tax.
    const s = termSettlement({
      collateralSats: 3_000_000n,
      debtCents: 100_000n,
      priceCents: 10_000_000n,
      feeSats: 500n,
    });
    expect(s).toEqual({
      debtSats: 1_000_000n,
      taxSats: 150_000n,
      treasurySats: 1_150_000n,
      ownerSats: 1_849_500n,
    });
  });

  it('rounds the debt up, the tax down, and returns everything when there is no debt', () => {
    const s = termSettlement({
      collateralSats: 10_000n,
      debtCents: 1n,
      priceCents: 3n * 10_000_000n,
      feeSats: 0n,
    });
    expect(s.debtSats).toBe(4n); // 3.33… rounded up
    expect(s.taxSats).toBe(0n);
    expect(
      termSettlement({ collateralSats: 10_000n, debtCents: 0n, priceCents: 1n, feeSats: 200n })
        .ownerSats,
    ).toBe(9_800n);
  });

  it('takes at most the collateral and refuses a fee it cannot pay', () => {
    const s = termSettlement({
      collateralSats: 100n,
      debtCents: 100_000n,
      priceCents: 10_000_000n,
      feeSats: 0n,
    });
    expect(s.treasurySats).toBe(100n);
    expect(s.ownerSats).toBe(0n);
    expect(() =>
      termSettlement({
        collateralSats: 100n,
        debtCents: 100_000n,
        priceCents: 10_000_000n,
        feeSats: 1n,
      }),
    ).toThrow();
    expect(() =>
      termSettlement({ collateralSats: 100n, debtCents: 0n, priceCents: 0n, feeSats: 0n }),
    ).toThrow();
  });
});

describe('what the owner reads once the vault is settled at its term', () => {
  it('says what was repaid at which price and where the rest went, and what to do', () => {
    const text = termSettledText({
      debtCents: 50_000n,
      collateralSats: 1_000_000n,
      priceUsd: 95_000,
    });
    expect(text.title).toBe('The guardians settled this vault at its term');
    expect(text.body).toBe(
      "No action renewed its term, so its debt of 500.00 UNIT was repaid from its collateral at $95,000 with the 15% liquidation tax, and the rest of its 0.01 BTC, less the network fee, was sent to your vault key's own address.",
    );
    expect(text.whatToDo).toMatch(/Open a new vault to borrow again\.$/);
    expect(termSettledText({ debtCents: 0n, collateralSats: 5_000n, priceUsd: null }).body).toBe(
      "No action renewed its term, so the rest of its 0.00005 BTC, less the network fee, was sent to your vault key's own address.",
    );
  });

  it('disables every action of a settled vault with that reason', () => {
    const ctx = {
      ...{ hasPendingTransaction: false, isLiquidated: false, isSettled: true, activeAction: null },
      ...{ walletSats: 1_000_000, vaultSats: 0, debtCents: 0, priceUsd: 95_000, pricePaused: null },
      operationCostSats: 1_000,
    };
    for (const action of ['deposit', 'withdraw', 'borrow', 'repay'] as const)
      expect(buttonState(action, ctx)).toEqual({ enabled: false, reason: BUTTON_REASONS.settled });
  });
});

describe('what the owner reads once the vault was left through its exit', () => {
  const txid = 'ef'.repeat(32);
  it('says the vault is closed, where the collateral went by which transaction, and the debt', () => {
    const text = vaultExitedText({
      ...{ collateralSats: 1_000_000n, debtCents: 50_000n, txid },
      address: 'tb1qowner',
    });
    expect(text.title).toBe('This vault was closed by its exit');
    expect(text.body).toBe(
      `After its exit height, the vault key alone took the whole vault: its 0.01 BTC, less the network fee, went to the address tb1qowner in transaction ${txid}. Its debt of 500.00 UNIT was not repaid: the UNIT you borrowed stays with you, and nothing backs it any more.`,
    );
    expect(text.whatToDo).toMatch(/Open a new vault to borrow again\.$/);
    expect(
      vaultExitedText({ collateralSats: 5_000n, debtCents: 0n, txid, address: null }).body,
    ).toBe(
      `After its exit height, the vault key alone took the whole vault: its 0.00005 BTC, less the network fee, went to the address the exit named in transaction ${txid}.`,
    );
  });

  it('disables every action of an exited vault with that reason', () => {
    const ctx = {
      ...{ hasPendingTransaction: false, isLiquidated: false, isExited: true, activeAction: null },
      ...{ walletSats: 1_000_000, vaultSats: 0, debtCents: 0, priceUsd: 95_000, pricePaused: null },
      operationCostSats: 1_000,
    };
    for (const action of ['deposit', 'withdraw', 'borrow', 'repay'] as const)
      expect(buttonState(action, ctx)).toEqual({ enabled: false, reason: BUTTON_REASONS.exited });
  });
});
