// The names the wire and the rules share: mission action types and referral level ids. A leaf, so
// the wire contract (api.ts) and the rules that use these names (missions.ts) both import it.

/** SPEC §4 Mission actions: the six action types. */
export const MISSION_ACTIONS = [
  'create-vault',
  'deposit',
  'repay',
  'borrow',
  'withdraw',
  'repossess',
] as const;

export type MissionAction = (typeof MISSION_ACTIONS)[number];

/** SPEC §3 Referral levels. */
export const REFERRAL_LEVEL_IDS = ['level_one', 'level_two', 'level_three'] as const;

export type ReferralLevel = (typeof REFERRAL_LEVEL_IDS)[number];
