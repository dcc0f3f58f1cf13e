// Configuration of the community area (SPEC §3: Discord roles and badges; "their exact
// permissions: not shown", so these rules are the team's, listed in the README). Each rule is data
// read by community.ts; change a threshold here, not in code.
import type { ActionCode } from '@unit/protocol';

export type Requirement =
  /** one of the first `within` registered users */
  | { kind: 'early-user'; within: number }
  /** opened one of the first `within` vaults */
  | { kind: 'early-vault'; within: number }
  /** referred users who opened a vault */
  | { kind: 'referrals'; min: number }
  /** vault-history actions of the user's vaults */
  | { kind: 'actions'; action: ActionCode; min: number }
  /** distinct missions proven */
  | { kind: 'missions'; min: number }
  /** BTC locked in the user's active vault */
  | { kind: 'collateral'; minSats: number }
  /** among the `top` active vaults by BTC locked */
  | { kind: 'top-collateral'; top: number }
  /** among the `top` active vaults by UNIT borrowed */
  | { kind: 'top-debt'; top: number }
  /** these accounts linked to the address */
  | { kind: 'linked'; accounts: ReadonlyArray<'discord' | 'twitter' | 'telegram'> }
  /** cannot be earned here (the proof lives on another chain this app does not read) */
  | { kind: 'unavailable' };

export interface AwardRule {
  id: string;
  title: string;
  how: string;
  requirement: Requirement;
}

/** A rule; its id is its title in lower case, words joined by dashes ("Low Ordinal": low-ordinal). */
function award(title: string, how: string, requirement: Requirement): AwardRule {
  return { id: title.toLowerCase().replaceAll(' ', '-'), title, how, requirement };
}

/** A badge whose proof lives on another chain, which this app does not read. */
const elsewhere = (title: string, chain: string): AwardRule =>
  award(title, `Needs a verified ${chain} account, which this app does not read.`, {
    kind: 'unavailable',
  });

export const ROLE_RULES: readonly AwardRule[] = [
  award('Genesis', 'Be one of the first 100 registered users.', {
    kind: 'early-user',
    within: 100,
  }),
  award('Prime', 'Lock at least 1 BTC in your vault.', {
    kind: 'collateral',
    minSats: 100_000_000,
  }),
  award('Optimizer', 'Complete five of the six missions.', { kind: 'missions', min: 5 }),
  award('Exponent', 'Refer 5 users who open a vault (Red Giant).', { kind: 'referrals', min: 5 }),
  award('Anomaly', 'Repossess a liquidated vault.', { kind: 'actions', action: 'x', min: 1 }),
];

export const BADGE_RULES: readonly AwardRule[] = [
  award('Boost', 'Link Telegram to get your vault alerts.', {
    kind: 'linked',
    accounts: ['telegram'],
  }),
  award('Low Ordinal', 'Open one of the first 1,000 vaults.', {
    kind: 'early-vault',
    within: 1000,
  }),
  elsewhere('Top Ethereum', 'Ethereum'),
  award('Top Ordinal', 'Have one of the 10 largest vaults by BTC locked.', {
    kind: 'top-collateral',
    top: 10,
  }),
  award('Top Rune', 'Have one of the 10 largest vaults by UNIT borrowed.', {
    kind: 'top-debt',
    top: 10,
  }),
  elsewhere('Top Solana', 'Solana'),
  award('Mog Dante', 'Link your Twitter (X) account.', { kind: 'linked', accounts: ['twitter'] }),
  award('Mog Dante Gold', 'Link Twitter (X), Discord and Telegram.', {
    kind: 'linked',
    accounts: ['twitter', 'discord', 'telegram'],
  }),
  award('Referral', 'Refer a user who opens a vault.', { kind: 'referrals', min: 1 }),
];
