// Missions and referrals: SPEC §2 Other (button texts), §3 Mission, User and Referral levels, §4
// Mission actions. The server's mission list and verification answer what each mission is and
// whether it is done; these rules decide what the missions area shows and allows.
import { BUTTON_REASONS, type ButtonState } from './buttons';
import { UNIT_POSTAGE_SATS } from './constants';
import { CONTENT } from './content';
import type { PublicUserDto, UserDto } from './api';
import { MISSION_ACTIONS, type MissionAction, type ReferralLevel, REFERRAL_LEVEL_IDS } from './ids';

/** True when a user read answered the owner's own view (linked accounts, referral code). */
export const isOwnUserView = (user: PublicUserDto): user is UserDto => 'referral_code' in user;

export const isMissionAction = (value: string): value is MissionAction =>
  (MISSION_ACTIONS as readonly string[]).includes(value);

/**
 * Where a mission's Start leads: SPEC §2 Routes, `/?action=` opens the matching drawer; repossess
 * reaches /liquidations.
 */
export function missionStartPath(action: MissionAction): string {
  return action === 'repossess' ? '/liquidations' : `/?action=${action}`;
}

/** SPEC §3 Mission: done once every task is completed. */
export function isMissionComplete(mission: {
  mission_tasks: number;
  completed_tasks: number;
}): boolean {
  return mission.completed_tasks >= mission.mission_tasks;
}

/** todo → Start; started → Verify; verifying → In progress...; completed shows no button. */
export type MissionStatus = 'todo' | 'started' | 'verifying' | 'completed';

export function missionStatus(o: {
  complete: boolean;
  started: boolean;
  verifying: boolean;
}): MissionStatus {
  if (o.verifying) return 'verifying';
  if (o.complete) return 'completed';
  return o.started ? 'started' : 'todo';
}

/** SPEC §2 Other: mission buttons read 'Start', 'Verify' or 'In progress...'. */
export function missionButtonLabel(status: Exclude<MissionStatus, 'completed'>): string {
  const { buttons } = CONTENT.missions;
  if (status === 'todo') return buttons.start;
  if (status === 'started') return buttons.verify;
  return buttons.inProgress;
}

/** SPEC §4: the mission that needs a vault unless its action creates one. */
export const MISSION_NEEDING_VAULT = '2';

export type MissionDisabledReason = 'no-user' | 'pending' | 'no-vault';

/** Why a mission button is disabled (ours: SPEC §4 gives the rule, not the words). */
export const MISSION_REASONS: Record<MissionDisabledReason, string> = {
  'no-user': 'Log in or register to take part in missions.',
  pending: BUTTON_REASONS.pending,
  'no-vault': 'Open a vault first.',
};

export interface MissionContext {
  /** a registered user for the connected wallet */
  hasUser: boolean;
  /** a transaction of the wallet is pending */
  pending: boolean;
  hasVault: boolean;
}

/**
 * SPEC §4 Mission actions: the button is disabled when there is no user, while a transaction is
 * pending, or for mission 2 with no vault when its action is not create-vault.
 */
export function missionDisabledReason(
  mission: { id: string | number; action: MissionAction },
  ctx: MissionContext,
): MissionDisabledReason | null {
  if (!ctx.hasUser) return 'no-user';
  if (ctx.pending) return 'pending';
  if (
    String(mission.id) === MISSION_NEEDING_VAULT &&
    !ctx.hasVault &&
    mission.action !== 'create-vault'
  )
    return 'no-vault';
  return null;
}

/**
 * Mission progress (the count, the marks, each mission's tasks done) is the signed-in user's own.
 * Signed out, the list says what each mission asks and shows no progress: a "5 of 6 completed"
 * with green marks beside "Log in or register" would credit someone who has not taken part.
 */
export const missionProgressShown = (ctx: Pick<MissionContext, 'hasUser'>): boolean => ctx.hasUser;

/** The list's count, "1 of 6 completed", or null signed out or with no missions. */
export function missionsSummary(
  missions: readonly { mission_tasks: number; completed_tasks: number }[],
  ctx: Pick<MissionContext, 'hasUser'>,
): string | null {
  if (!missionProgressShown(ctx) || missions.length === 0) return null;
  return `${missions.filter(isMissionComplete).length} of ${missions.length} completed`;
}

/** A mission's tasks under its title: done of all when signed in, how many it asks otherwise. */
export function missionTasksText(
  mission: { mission_tasks: number; completed_tasks: number },
  ctx: Pick<MissionContext, 'hasUser'>,
): string {
  if (missionProgressShown(ctx)) return `${mission.completed_tasks}/${mission.mission_tasks} tasks`;
  return `${mission.mission_tasks} task${mission.mission_tasks === 1 ? '' : 's'}`;
}

export function missionDisabled(
  mission: { id: string | number; action: MissionAction },
  ctx: MissionContext,
): boolean {
  return missionDisabledReason(mission, ctx) !== null;
}

/** The mission button's state with the reason to show when it is disabled. */
export function missionButtonState(
  mission: { id: string | number; action: MissionAction },
  ctx: MissionContext,
): ButtonState {
  const reason = missionDisabledReason(mission, ctx);
  return reason === null ? { enabled: true } : { enabled: false, reason: MISSION_REASONS[reason] };
}

/** SPEC §2 Other: the mission-action button reads 'Login', 'Register' or 'Connect Wallet'. */
export type MissionActionButton = keyof typeof CONTENT.missions.actionButtons;

/**
 * Which mission-action button shows, from the real session (our reading; SPEC names the three
 * labels only): no wallet gives Connect Wallet; a wallet whose address has no user gives Register
 * (it signs in and registers); a registered address without a session gives Login (it signs in);
 * a signed-in registered user needs no button.
 */
export function missionActionButton(o: {
  walletConnected: boolean;
  signedIn: boolean;
  registered: boolean;
}): MissionActionButton | null {
  if (!o.walletConnected) return 'connectWallet';
  if (!o.registered) return 'register';
  return o.signedIn ? null : 'login';
}

export const missionActionButtonLabel = (button: MissionActionButton): string =>
  CONTENT.missions.actionButtons[button];

/**
 * SPEC §3: each level gives a postage amount; titles Nebula, Red Giant, Super Giant. The referral
 * counts and postage amounts are ours (SPEC: not shown); `accountPostageSats` says what the postage
 * does.
 */
export const REFERRAL_LEVELS: Record<
  ReferralLevel,
  { title: string; minReferrals: number; postage_sats: number }
> = {
  level_one: {
    title: CONTENT.missions.referralLevels.level_one,
    minReferrals: 1,
    postage_sats: 12_500,
  },
  level_two: {
    title: CONTENT.missions.referralLevels.level_two,
    minReferrals: 5,
    postage_sats: 15_000,
  },
  level_three: {
    title: CONTENT.missions.referralLevels.level_three,
    minReferrals: 20,
    postage_sats: 20_000,
  },
};

/** The highest level the referral count reaches, or null below the first. */
export function referralLevel(referrals: number): ReferralLevel | null {
  const reached = REFERRAL_LEVEL_IDS.filter(
    (level) => referrals >= REFERRAL_LEVELS[level].minReferrals,
  );
  return reached[reached.length - 1] ?? null;
}

export const referralLevelTitle = (level: ReferralLevel): string => REFERRAL_LEVELS[level].title;

/** The next level to reach and how many more referrals it takes; null at the top level. */
export function nextReferralLevel(
  referrals: number,
): { level: ReferralLevel; remaining: number } | null {
  const level = REFERRAL_LEVEL_IDS.find((l) => referrals < REFERRAL_LEVELS[l].minReferrals);
  return level ? { level, remaining: REFERRAL_LEVELS[level].minReferrals - referrals } : null;
}

/**
 * What a referral level's postage does (README, Accounts and community): it is the postage of the
 * UNIT outputs the account's own vault transactions create in its runes address, the UNIT issued by
 * open and borrow and the UNIT change of a repay. Below the first level they carry the default
 * postage (SPEC §9, CONSTANTS.md). UNIT sent back to the treasury always carries the default.
 */
export function accountPostageSats(
  level: ReferralLevel | null,
  defaultPostage: number = UNIT_POSTAGE_SATS,
): number {
  return level ? REFERRAL_LEVELS[level].postage_sats : defaultPostage;
}

/**
 * What postage does, said alike in the drawers and on the Missions page (docs/protocol.md,
 * Transactions). Open and borrow: the payment funds the postage of the UNIT sent to the runes
 * address, which stays the user's. Repay: the payment funds the postage of the UNIT sent back,
 * which goes to the treasury with it; the UNIT change keeps the account's postage and whatever the
 * spent UNIT outputs carried beyond that returns as BTC change.
 */
export const POSTAGE_COPY = {
  /** the open and borrow drawers' line: '15,000 sats ($14.25)' */
  toYou: (amount: string, levelTitle: string | null) =>
    `UNIT postage${levelTitle ? ` (${levelTitle})` : ''}: ${amount}. It arrives with your UNIT in your runes address and stays yours.`,
  /** the repay drawer's line */
  toTreasury: (amount: string) =>
    `UNIT postage: ${amount}. It goes to the treasury with the UNIT you repay; the postage of the UNIT you keep stays yours.`,
  /** the Missions page's explanation beside the referral levels: '10,000 sats' */
  explained: (accountPostage: string, treasuryPostage: string) =>
    `Postage is the bitcoin your UNIT arrives with in your runes address when you open a vault or borrow: ${accountPostage} without a level, your level’s once you reach one. It stays yours and pays for moving that UNIT later. A repayment also pays ${treasuryPostage} of postage for the UNIT it sends back, which goes to the treasury with that UNIT; the UNIT you keep keeps its postage.`,
} as const;
