import { describe, expect, it } from 'vitest';
import { CONTENT, confirmedSentence, failedSentence, pendingSentence } from './content';
import * as constants from './constants';

describe('content', () => {
  it('quotes the spec texts exactly, typos included', () => {
    expect(CONTENT.walletPicker.prompt).toBe('Select your preffered wallet to open a vault.');
    expect(CONTENT.walletPicker.connect).toBe('Connect Wallet');
    expect(CONTENT.dashboard.liquidationModalBody).toBe(
      'All actions are disabled until liquidation completes.',
    );
    expect(CONTENT.vaultPage.creationPending).toBe(
      'Your vault is under construction. Almost there! This might take about 10 minutes.',
    );
    expect(CONTENT.vaultPage.created).toBe('Vault Successfully Created!');
    expect(CONTENT.actionDrawer.successTitles).toEqual({
      deposit: 'BTC Deposit Submitted',
      withdraw: 'BTC Withdrawal Submitted',
      borrow: 'Vault Borrow Submitted!',
      repay: 'UNIT Repayment Submitted',
    });
    expect(CONTENT.actionDrawer.withdrawTooltip).toBe(
      'Amount of BTC you can withdraw from your vault while keeping your collateral ratio >=160%.',
    );
    expect(CONTENT.errorScreen.body).toBe(
      "We've encountered an unexpected error. Our team has been notified and is working on a fix.",
    );
    expect(CONTENT.dashboard.liquidatingBadge).toBe('Liquidating...');
    expect(CONTENT.dashboard.liquidationModalTitle).toBe('Vault in Liquidation');
    expect(CONTENT.pendingStatus['In Progress']).toBe('Finalizing...');
  });
  it('names the five create steps in order', () => {
    expect(CONTENT.createDrawer.steps).toEqual([
      'Name Your Vault',
      'Create Vault',
      'Confirmation',
      'Transaction tracker',
      'Success',
    ]);
  });
});

describe('constants', () => {
  it('hold the values of CONSTANTS.md', () => {
    expect(constants.SATS_PER_BTC).toBe(100_000_000n);
    expect(constants.UNIT_CENTS_PER_UNIT).toBe(100n);
    expect(constants.DUST_LIMIT_SATS).toBe(546);
    expect(constants.MIN_VAULT_BALANCE_SATS).toBe(10_000);
    expect(constants.MIN_BTC_SATS).toBe(5_000);
    expect(constants.COLLATERAL_PERCENT).toBe(160);
    expect(constants.LIQUIDATION_THRESHOLD_PERCENT).toBe(135);
    expect(constants.UNIT_POSTAGE_SATS).toBe(10_000);
    expect(constants.VIN_ALLOWANCE_VBYTES).toBe(350);
    expect(constants.LIQUIDATED_MARKER_TTL_SECONDS).toBe(21_600);
    expect(constants.FLOW_TIMEOUT_MS).toBe(65_000);
    expect(constants.AMOUNT_INT_DIGITS).toEqual({ btc: 8, unit: 12, usd: 12 });
  });
  it('serve the configurable ones to /api/config with the same values', () => {
    expect(constants.DEFAULT_CONFIG_CONSTANTS).toEqual({
      minBtcSats: 5_000,
      dustLimitSats: 546,
      minVaultBalanceSats: 10_000,
      collateralPercent: 160,
      liquidationThresholdPercent: 135,
      unitPostageSats: 10_000,
      flowTimeoutMs: 65_000,
      speedUpAfterSeconds: 600,
      amountIntDigits: { btc: 8, unit: 12, usd: 12 },
    });
  });
});

describe('walletFunds', () => {
  it('says arriving funds with their amount and what they wait for', () => {
    expect(CONTENT.walletFunds.arrivingReason('1 BTC')).toBe(
      'Funds arriving: 1 BTC is on its way to your wallet: it counts once a block confirms it.',
    );
  });
});

describe('pendingSentence', () => {
  it('says what waits, how much, for what and how long, in plain words', () => {
    expect(pendingSentence('deposit', '0.01 BTC', 10)).toBe(
      'Your deposit of 0.01 BTC is waiting for a block: usually about 10 minutes.',
    );
    expect(pendingSentence('repay', '25.00 UNIT', 1)).toBe(
      'Your repayment of 25.00 UNIT is waiting for a block: usually within a minute.',
    );
    expect(pendingSentence('create', '0.5 BTC', 10)).toMatch(/^Your vault opening of 0\.5 BTC/);
  });
});

describe('confirmedSentence', () => {
  it('says what finished, with its amount when known', () => {
    expect(confirmedSentence('deposit', '0.01 BTC')).toBe('Your deposit of 0.01 BTC is confirmed.');
    expect(confirmedSentence('repay', null)).toBe('Your repayment is confirmed.');
    expect(confirmedSentence(null, null)).toBe('Your transaction is confirmed.');
    // a claim's amount is the debt it took on: said as a sentence, not 'of a liquidated vault of'
    expect(confirmedSentence('repossess', '27,000.00 UNIT')).toBe(
      'Your claim on a liquidated vault is confirmed: its collateral and its 27,000.00 UNIT of debt are now in your vault.',
    );
    expect(CONTENT.walletFunds.faucetPaying('1 BTC')).toBe(
      'The devnet faucet is sending you 1 BTC.',
    );
  });
});

describe('failedSentence', () => {
  it('tells a claimant their claim lost to the owner’s exit, and that nothing was taken', () => {
    expect(failedSentence('repossess', 'exit', 'anything')).toBe(
      'Your claim of a liquidated vault did not go through: its owner took the vault back by its exit first. Your vault is as it was before the claim.',
    );
    expect(failedSentence('repossess', 'input_spent', null)).toBe(
      'Your claim of a liquidated vault did not go through: another transaction spent one of its inputs first, so it can never be mined. Your vault is as it was before the claim, and the liquidated vault can be claimed again.',
    );
  });

  it('says any other failure with its reason, in one sentence', () => {
    expect(
      failedSentence('deposit', 'other', 'the chain refused it: bad-txns-inputs-missingorspent.'),
    ).toBe(
      'Your deposit did not go through, because the chain refused it: bad-txns-inputs-missingorspent. It will never be mined, so nothing left your wallet or your vault: you can try again.',
    );
    expect(failedSentence('borrow', null, '  ')).toBe(
      'Your borrow did not go through. It will never be mined, so nothing left your wallet or your vault: you can try again.',
    );
    // a cause of a claim's said for another action reads as the generic sentence
    expect(failedSentence('withdraw', 'exit', null)).toMatch(
      /^Your withdrawal did not go through\./,
    );
  });
});
