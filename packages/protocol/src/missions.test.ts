import { describe, expect, it } from 'vitest';
import { BUTTON_REASONS } from './buttons';
import { UNIT_POSTAGE_SATS } from './constants';
import { MISSION_ACTIONS, REFERRAL_LEVEL_IDS } from './ids';
import {
  MISSION_REASONS,
  POSTAGE_COPY,
  missionProgressShown,
  missionsSummary,
  missionTasksText,
  accountPostageSats,
  REFERRAL_LEVELS,
  isMissionAction,
  isMissionComplete,
  missionActionButton,
  missionActionButtonLabel,
  missionButtonLabel,
  missionButtonState,
  missionDisabled,
  missionDisabledReason,
  missionStartPath,
  missionStatus,
  nextReferralLevel,
  referralLevel,
  referralLevelTitle,
  type MissionContext,
} from './missions';

const ready: MissionContext = { hasUser: true, pending: false, hasVault: true };

describe('SPEC §4 Mission actions', () => {
  it('knows the six action types', () => {
    expect(MISSION_ACTIONS).toEqual([
      'create-vault',
      'deposit',
      'repay',
      'borrow',
      'withdraw',
      'repossess',
    ]);
    expect(isMissionAction('repossess')).toBe(true);
    expect(isMissionAction('steal')).toBe(false);
  });

  it('starts an action mission on /?action= and the repossess mission on /liquidations (SPEC §2)', () => {
    expect(missionStartPath('create-vault')).toBe('/?action=create-vault');
    expect(missionStartPath('deposit')).toBe('/?action=deposit');
    expect(missionStartPath('withdraw')).toBe('/?action=withdraw');
    expect(missionStartPath('repay')).toBe('/?action=repay');
    expect(missionStartPath('borrow')).toBe('/?action=borrow');
    expect(missionStartPath('repossess')).toBe('/liquidations');
  });

  it('disables every mission with no user', () => {
    for (const action of MISSION_ACTIONS) {
      const mission = { id: '3', action };
      expect(missionDisabled(mission, { ...ready, hasUser: false })).toBe(true);
      expect(missionDisabledReason(mission, { ...ready, hasUser: false })).toBe('no-user');
    }
  });

  it('disables every mission while a transaction is pending', () => {
    for (const action of MISSION_ACTIONS) {
      expect(missionDisabledReason({ id: '1', action }, { ...ready, pending: true })).toBe(
        'pending',
      );
    }
  });

  it('disables mission 2 with no vault unless its action is create-vault', () => {
    const noVault = { ...ready, hasVault: false };
    expect(missionDisabledReason({ id: '2', action: 'deposit' }, noVault)).toBe('no-vault');
    expect(missionDisabledReason({ id: 2, action: 'borrow' }, noVault)).toBe('no-vault');
    expect(missionDisabled({ id: '2', action: 'create-vault' }, noVault)).toBe(false);
    expect(missionDisabled({ id: '2', action: 'deposit' }, ready)).toBe(false);
  });

  it('does not need a vault for the other missions', () => {
    const noVault = { ...ready, hasVault: false };
    for (const id of ['1', '3', '4', '5', '6']) {
      expect(missionDisabled({ id, action: 'deposit' }, noVault)).toBe(false);
    }
  });

  it('names no user before pending before no vault', () => {
    const none: MissionContext = { hasUser: false, pending: true, hasVault: false };
    expect(missionDisabledReason({ id: '2', action: 'deposit' }, none)).toBe('no-user');
    expect(missionDisabledReason({ id: '2', action: 'deposit' }, { ...none, hasUser: true })).toBe(
      'pending',
    );
  });

  it('gives the button state with the reason text', () => {
    expect(missionButtonState({ id: '1', action: 'create-vault' }, ready)).toEqual({
      enabled: true,
    });
    expect(
      missionButtonState({ id: '1', action: 'create-vault' }, { ...ready, pending: true }),
    ).toEqual({ enabled: false, reason: BUTTON_REASONS.pending });
    expect(
      missionButtonState({ id: '2', action: 'deposit' }, { ...ready, hasVault: false }),
    ).toEqual({ enabled: false, reason: MISSION_REASONS['no-vault'] });
  });
});

describe('SPEC §2 mission buttons', () => {
  it("reads 'Start', 'Verify' or 'In progress...'", () => {
    expect(missionButtonLabel('todo')).toBe('Start');
    expect(missionButtonLabel('started')).toBe('Verify');
    expect(missionButtonLabel('verifying')).toBe('In progress...');
  });

  it('moves from Start to Verify to In progress... and to completed', () => {
    expect(missionStatus({ complete: false, started: false, verifying: false })).toBe('todo');
    expect(missionStatus({ complete: false, started: true, verifying: false })).toBe('started');
    expect(missionStatus({ complete: false, started: true, verifying: true })).toBe('verifying');
    expect(missionStatus({ complete: true, started: true, verifying: false })).toBe('completed');
    expect(missionStatus({ complete: true, started: false, verifying: false })).toBe('completed');
  });

  it('counts a mission complete once completed_tasks reaches mission_tasks (SPEC §3)', () => {
    expect(isMissionComplete({ mission_tasks: 1, completed_tasks: 0 })).toBe(false);
    expect(isMissionComplete({ mission_tasks: 1, completed_tasks: 1 })).toBe(true);
    expect(isMissionComplete({ mission_tasks: 3, completed_tasks: 2 })).toBe(false);
  });

  it("reads 'Login', 'Register' or 'Connect Wallet' on the mission-action button", () => {
    expect(missionActionButtonLabel('login')).toBe('Login');
    expect(missionActionButtonLabel('register')).toBe('Register');
    expect(missionActionButtonLabel('connectWallet')).toBe('Connect Wallet');
  });

  it('asks a visitor to connect, a new address to register, a registered one to log in', () => {
    const o = { walletConnected: false, signedIn: false, registered: false };
    expect(missionActionButton(o)).toBe('connectWallet');
    expect(missionActionButton({ ...o, walletConnected: true })).toBe('register');
    expect(missionActionButton({ ...o, walletConnected: true, signedIn: true })).toBe('register');
    expect(missionActionButton({ ...o, walletConnected: true, registered: true })).toBe('login');
    expect(
      missionActionButton({ walletConnected: true, signedIn: true, registered: true }),
    ).toBeNull();
  });
});

describe('SPEC §3 referral levels', () => {
  it('titles the three levels Nebula, Red Giant, Super Giant', () => {
    expect(referralLevelTitle('level_one')).toBe('Nebula');
    expect(referralLevelTitle('level_two')).toBe('Red Giant');
    expect(referralLevelTitle('level_three')).toBe('Super Giant');
  });

  it('gives each level a postage amount, growing with the level', () => {
    const postage = Object.values(REFERRAL_LEVELS).map((l) => l.postage_sats);
    expect(postage.every((p) => Number.isInteger(p) && p > 0)).toBe(true);
    expect([...postage].sort((a, b) => a - b)).toEqual(postage);
  });

  it("sets the postage of the account's UNIT outputs from its level, the default below the first", () => {
    expect(accountPostageSats(null)).toBe(UNIT_POSTAGE_SATS);
    expect(accountPostageSats(null, 546)).toBe(546);
    expect(accountPostageSats('level_one')).toBe(12_500);
    expect(accountPostageSats('level_two')).toBe(15_000);
    expect(accountPostageSats('level_three')).toBe(20_000);
    // every level raises the postage over the default, so reaching one changes a transaction
    for (const level of REFERRAL_LEVEL_IDS)
      expect(accountPostageSats(level)).toBeGreaterThan(UNIT_POSTAGE_SATS);
  });

  it('reaches a level at its referral count', () => {
    expect(referralLevel(0)).toBeNull();
    expect(referralLevel(REFERRAL_LEVELS.level_one.minReferrals)).toBe('level_one');
    expect(referralLevel(REFERRAL_LEVELS.level_two.minReferrals - 1)).toBe('level_one');
    expect(referralLevel(REFERRAL_LEVELS.level_two.minReferrals)).toBe('level_two');
    expect(referralLevel(REFERRAL_LEVELS.level_three.minReferrals)).toBe('level_three');
    expect(referralLevel(10_000)).toBe('level_three');
  });

  it('says how many referrals the next level takes', () => {
    expect(nextReferralLevel(0)).toEqual({
      level: 'level_one',
      remaining: REFERRAL_LEVELS.level_one.minReferrals,
    });
    expect(nextReferralLevel(REFERRAL_LEVELS.level_one.minReferrals)).toEqual({
      level: 'level_two',
      remaining: REFERRAL_LEVELS.level_two.minReferrals - REFERRAL_LEVELS.level_one.minReferrals,
    });
    expect(nextReferralLevel(REFERRAL_LEVELS.level_three.minReferrals)).toBeNull();
  });
});

describe('mission progress signed out', () => {
  const list = [
    { mission_tasks: 1, completed_tasks: 1 },
    { mission_tasks: 2, completed_tasks: 2 },
    { mission_tasks: 3, completed_tasks: 0 },
  ];

  it('shows no count and no tasks done without a signed-in user', () => {
    expect(missionProgressShown({ hasUser: false })).toBe(false);
    expect(missionsSummary(list, { hasUser: false })).toBeNull();
    expect(missionTasksText(list[1]!, { hasUser: false })).toBe('2 tasks');
    expect(missionTasksText(list[0]!, { hasUser: false })).toBe('1 task');
  });

  it("shows the signed-in user's own progress", () => {
    expect(missionProgressShown({ hasUser: true })).toBe(true);
    expect(missionsSummary(list, { hasUser: true })).toBe('2 of 3 completed');
    expect(missionsSummary([], { hasUser: true })).toBeNull();
    expect(missionTasksText(list[2]!, { hasUser: true })).toBe('0/3 tasks');
  });
});

describe('postage, said alike in the drawers and on the Missions page', () => {
  it('stays yours on open and borrow, goes to the treasury with repaid UNIT', () => {
    expect(POSTAGE_COPY.toYou('12,500 sats', 'Nebula')).toBe(
      'UNIT postage (Nebula): 12,500 sats. It arrives with your UNIT in your runes address and stays yours.',
    );
    expect(POSTAGE_COPY.toTreasury('10,000 sats')).toBe(
      'UNIT postage: 10,000 sats. It goes to the treasury with the UNIT you repay; the postage of the UNIT you keep stays yours.',
    );
    const explained = POSTAGE_COPY.explained('10,000 sats', '10,000 sats');
    // the page no longer says the repayment's postage stays yours
    expect(explained).toContain('when you open a vault or borrow');
    expect(explained).toContain(
      'A repayment also pays 10,000 sats of postage for the UNIT it sends back, which goes to the treasury with that UNIT',
    );
  });
});
