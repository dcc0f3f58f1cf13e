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

export const ROLE_RULES: readonly AwardRule[] = [
  {
    id: 'genesis',
    title: 'Genesis',
    how: 'Be one of the first 100 registered users.',
    requirement: { kind: 'early-user', within: 100 },
  },
  {
    id: 'prime',
    title: 'Prime',
    how: 'Lock at least 1 BTC in your vault.',
    requirement: { kind: 'collateral', minSats: 100_000_000 },
  },
  {
    id: 'optimizer',
    title: 'Optimizer',
    how: 'Complete five of the six missions.',
    requirement: { kind: 'missions', min: 5 },
  },
  {
    id: 'exponent',
    title: 'Exponent',
    how: 'Refer 5 users who open a vault (Red Giant).',
    requirement: { kind: 'referrals', min: 5 },
  },
  {
    id: 'anomaly',
    title: 'Anomaly',
    how: 'Repossess a liquidated vault.',
    requirement: { kind: 'actions', action: 'x', min: 1 },
  },
];

export const BADGE_RULES: readonly AwardRule[] = [
  {
    id: 'boost',
    title: 'Boost',
    how: 'Link Telegram to get your vault alerts.',
    requirement: { kind: 'linked', accounts: ['telegram'] },
  },
  {
    id: 'low-ordinal',
    title: 'Low Ordinal',
    how: 'Open one of the first 1,000 vaults.',
    requirement: { kind: 'early-vault', within: 1000 },
  },
  {
    id: 'top-ethereum',
    title: 'Top Ethereum',
    how: 'Needs a verified Ethereum account, which this app does not read yet.',
    requirement: { kind: 'unavailable' },
  },
  {
    id: 'top-ordinal',
    title: 'Top Ordinal',
    how: 'Have one of the 10 largest vaults by BTC locked.',
    requirement: { kind: 'top-collateral', top: 10 },
  },
  {
    id: 'top-rune',
    title: 'Top Rune',
    how: 'Have one of the 10 largest vaults by UNIT borrowed.',
    requirement: { kind: 'top-debt', top: 10 },
  },
  {
    id: 'top-solana',
    title: 'Top Solana',
    how: 'Needs a verified Solana account, which this app does not read yet.',
    requirement: { kind: 'unavailable' },
  },
  {
    id: 'mog-dante',
    title: 'Mog Dante',
    how: 'Link your Twitter (X) account.',
    requirement: { kind: 'linked', accounts: ['twitter'] },
  },
  {
    id: 'mog-dante-gold',
    title: 'Mog Dante Gold',
    how: 'Link Twitter (X), Discord and Telegram.',
    requirement: { kind: 'linked', accounts: ['twitter', 'discord', 'telegram'] },
  },
  {
    id: 'referral',
    title: 'Referral',
    how: 'Refer a user who opens a vault.',
    requirement: { kind: 'referrals', min: 1 },
  },
];
