// Every user-facing text of SPEC.md, quoted exactly (typos included: 'preffered'). The web app takes
// its copy from here. Error texts live in errors.ts, validation messages in validation.ts, fee labels
// in fees.ts, action labels in history.ts; they are re-exported here as one catalogue.
import { ERROR_MESSAGES } from './errors';
import { FEE_LABELS } from './fees';
import { ACTION_LABELS } from './history';
import { PENDING_STATUS_LABELS } from './pending';
import { HEALTH_BAND_LABELS } from './ratio';
import { READING_COPY } from './reading-copy';
import { VALIDATION_MESSAGES } from './validation';

export const CONTENT = {
  vaultPage: {
    createVault: 'Create Vault',
    creationPending:
      'Your vault is under construction. Almost there! This might take about 10 minutes.',
    enableTelegram: 'Enable Telegram Notification',
    transactionTracker: 'Transaction Tracker',
    created: 'Vault Successfully Created!',
    goToVault: 'Go to Vault',
    social: { twitter: 'Twitter', discord: 'Discord', telegram: 'Telegram' },
  },
  dashboard: {
    deposit: 'Deposit',
    withdraw: 'Withdraw',
    borrow: 'Borrow',
    repay: 'Repay',
    liquidatingBadge: 'Liquidating...',
    liquidationModalTitle: 'Vault in Liquidation',
    liquidationModalBody: 'All actions are disabled until liquidation completes.',
  },
  gauge: {
    youAreHere: 'You are here!',
    bands: HEALTH_BAND_LABELS,
  },
  createDrawer: {
    steps: [
      'Name Your Vault',
      'Create Vault',
      'Confirmation',
      'Transaction tracker',
      'Success',
    ] as const,
    connectWalletStep: 'Connect Wallet',
    buttons: {
      continue: 'Continue',
      preview: 'Preview',
      confirm: 'Confirm',
      details: 'Details',
      back: 'Back',
      close: 'Close',
    },
    trackerSteps: [
      'signature collection',
      'request received',
      'validation',
      'network approvals',
      'submitting',
    ] as const,
  },
  actionDrawer: {
    processingStep: 'Processing transaction',
    buttons: { cancel: 'Cancel', details: 'Details', back: 'Back', close: 'Close' },
    confirmationSteps: [
      'signature collection',
      'received by node',
      'validation',
      'submitting',
    ] as const,
    successTitles: {
      deposit: 'BTC Deposit Submitted',
      withdraw: 'BTC Withdrawal Submitted',
      borrow: 'Vault Borrow Submitted!',
      repay: 'UNIT Repayment Submitted',
    },
    withdrawTooltip:
      'Amount of BTC you can withdraw from your vault while keeping your collateral ratio >=160%.',
    max: 'Max',
    tryAgain: 'Try again',
  },
  speedUp: {
    button: 'Speed up',
    title: 'Speed up transaction',
    currentRate: 'Current fee rate',
    newRate: 'New fee rate',
    extraFee: 'Extra fee (about)',
    explainer:
      'Your wallet signs the same transaction again with a higher fee. Nothing else changes: the same amounts, the same vault. Miners take the one that pays more.',
    stuck: 'Still waiting for a block. Paying a higher fee gets it mined sooner.',
    confirmed: 'This transaction is already confirmed.',
    gone: 'This transaction is no longer waiting in the mempool.',
    success: 'Transaction Sped Up',
  },
  repossess: {
    button: 'Repossess',
    title: 'Repossess vault',
    collateralTaken: 'Collateral you take',
    debtTaken: 'Debt you take on',
    tax: 'Repossession tax (15%)',
    ratioAfter: 'Your collateral ratio after',
    networkFee: 'Network fee',
    unsafe: 'Your vault would fall under 160%: deposit BTC first.',
    success: 'Liquidation Claim Submitted',
  },
  walletPicker: {
    prompt: 'Select your preffered wallet to open a vault.',
    connect: 'Connect Wallet',
    disconnect: 'Disconnect',
    get: 'Get',
    wallets: ['Xverse', 'Unisat'] as const,
  },
  /** The wallet's sats while they are not yet spendable (the onboarding). */
  walletFunds: {
    loading: 'Reading your wallet balance…',
    arriving: 'Funds arriving',
    /** '{amount} is on its way to your wallet: it counts once a block confirms it.' */
    arrivingDetail: (amount: string) =>
      `${amount} is on its way to your wallet: it counts once a block confirms it.`,
    /** the reason a field or a disabled button gives while the sats are on their way */
    arrivingReason: (amount: string) =>
      `Funds arriving: ${amount} is on its way to your wallet: it counts once a block confirms it.`,
    /** the faucet's title names the amount, so its detail does not repeat it */
    faucetPaying: (amount: string) => `The devnet faucet is sending you ${amount}.`,
    faucetDetail: 'It counts once a block confirms it.',
    /** once the block came: the notice says so instead of vanishing */
    arrived: (amount: string) => `${amount} arrived in your wallet`,
  },
  chart: {
    intervals: { '24h': '1D', '7d': '1W', '30d': '1M', '1y': 'YTD' },
  },
  errorScreen: {
    title: 'Oops! Something went wrong',
    body: "We've encountered an unexpected error. Our team has been notified and is working on a fix.",
    tryAgain: 'Try again',
    reload: 'Reload page',
  },
  missions: {
    buttons: { start: 'Start', verify: 'Verify', inProgress: 'In progress...' },
    actionButtons: { login: 'Login', register: 'Register', connectWallet: 'Connect Wallet' },
    referralLevels: { level_one: 'Nebula', level_two: 'Red Giant', level_three: 'Super Giant' },
    discordRoles: ['Anomaly', 'Exponent', 'Optimizer', 'Prime', 'Genesis'] as const,
    badges: [
      'Boost',
      'Low Ordinal',
      'Top Ethereum',
      'Top Ordinal',
      'Top Rune',
      'Top Solana',
      'Mog Dante',
      'Mog Dante Gold',
      'Referral',
    ] as const,
  },
  pendingStatus: PENDING_STATUS_LABELS,
  actions: ACTION_LABELS,
  fees: FEE_LABELS,
  errors: ERROR_MESSAGES,
  validation: VALIDATION_MESSAGES,
  /** copy of our own, not SPEC's */
  reading: READING_COPY,
} as const;

/** A pending transaction's kind, as the banner says it ('Your deposit of…'). */
const PENDING_NOUNS = {
  create: 'vault opening',
  deposit: 'deposit',
  withdraw: 'withdrawal',
  borrow: 'borrow',
  repay: 'repayment',
  repossess: 'claim of a liquidated vault',
} as const;

/**
 * The pending banner in plain words (it read like a log line, 'deposit 0.01 BTC:
 * Finalizing...'): what, how much, what it waits for and how long that usually takes.
 */
export function pendingSentence(
  type: keyof typeof PENDING_NOUNS,
  amount: string,
  blockMinutes: number,
): string {
  const wait =
    blockMinutes <= 1 ? 'usually within a minute' : `usually about ${blockMinutes} minutes`;
  return `Your ${PENDING_NOUNS[type]} of ${amount} is waiting for a block: ${wait}.`;
}

/**
 * The pending banner once a block confirmed it (it read 'BTC Deposit Submitted ·
 * Completed'): a sentence of what finished, and how much when the banner still knows. A claim's
 * amount is the debt it took on with the collateral.
 */
export function confirmedSentence(
  type: keyof typeof PENDING_NOUNS | null,
  amount: string | null,
): string {
  if (type === 'repossess')
    return amount
      ? `Your claim on a liquidated vault is confirmed: its collateral and its ${amount} of debt are now in your vault.`
      : 'Your claim on a liquidated vault is confirmed: its collateral and its debt are now in your vault.';
  const noun = type ? PENDING_NOUNS[type] : 'transaction';
  return amount ? `Your ${noun} of ${amount} is confirmed.` : `Your ${noun} is confirmed.`;
}

/** The title of the banner that says a pending transaction will never be mined. */
export const PENDING_FAILED_TITLE = 'Transaction did not go through';

/**
 * A pending transaction the app learnt will never be mined, said once: what did not happen, why,
 * and that nothing was taken (a transaction never mined moves nothing). `cause` is the server's
 * (GET /api/transactions/:txid); `reason` its words for any other failure.
 */
export function failedSentence(
  type: keyof typeof PENDING_NOUNS,
  cause: 'exit' | 'input_spent' | 'other' | null,
  reason: string | null,
): string {
  if (type === 'repossess' && cause === 'exit')
    return 'Your claim of a liquidated vault did not go through: its owner took the vault back by its exit first. Your vault is as it was before the claim.';
  if (type === 'repossess' && cause === 'input_spent')
    return 'Your claim of a liquidated vault did not go through: another transaction spent one of its inputs first, so it can never be mined. Your vault is as it was before the claim, and the liquidated vault can be claimed again.';
  const why = reason?.trim().replace(/[.\s]+$/, '');
  const said = why ? `, because ${why}` : '';
  return `Your ${PENDING_NOUNS[type]} did not go through${said}. It will never be mined, so nothing left your wallet or your vault: you can try again.`;
}
