import {
  CONTENT,
  ERROR_MESSAGES,
  TELEGRAM_NOTIFY_RETRIES_ACTION,
  TELEGRAM_NOTIFY_RETRIES_CREATE,
  VAULT_REFRESH_AFTER_CREATE_MS,
  maxBorrowCents,
  maxDepositSats,
  maxRepayCents,
  maxWithdrawSats,
  satsToBtcString,
  validateCreateVault,
  type Sats,
  type VaultAction,
} from '@unit/protocol';
import {
  targetOf,
  type FlowAction,
  type FlowDecl,
  type MaxContext,
  type StepDecl,
} from './declaration-types';

export * from './declaration-types';

/**
 * SPEC §3/§7: the amounts a Telegram notice of an action carries (the BTC it moved, the UNIT it
 * moved) and how often it is retried (5 times for create, never for the others).
 */
export const NOTICES: Record<VaultAction, { btc: boolean; unit: boolean; retries: number }> = {
  open: { btc: true, unit: true, retries: TELEGRAM_NOTIFY_RETRIES_CREATE },
  deposit: { btc: true, unit: false, retries: TELEGRAM_NOTIFY_RETRIES_ACTION },
  withdraw: { btc: true, unit: false, retries: TELEGRAM_NOTIFY_RETRIES_ACTION },
  borrow: { btc: false, unit: true, retries: TELEGRAM_NOTIFY_RETRIES_ACTION },
  repay: { btc: false, unit: true, retries: TELEGRAM_NOTIFY_RETRIES_ACTION },
  repossess: { btc: false, unit: false, retries: TELEGRAM_NOTIFY_RETRIES_ACTION },
};

const ACTION = CONTENT.actionDrawer;
const CREATE = CONTENT.createDrawer;
const READING = CONTENT.reading;

const actionSteps = (actionLabel: string, successTitle: string): StepDecl[] => [
  { kind: 'form', title: actionLabel, primary: actionLabel, secondary: ACTION.buttons.cancel },
  {
    kind: 'tracker',
    title: ACTION.processingStep,
    primary: ACTION.buttons.details,
    secondary: ACTION.buttons.back,
  },
  { kind: 'success', title: successTitle, primary: ACTION.buttons.close },
];

/** SPEC §4 names the steps in running prose; a tracker line starts with a capital. */
const asLine = (step: string) => step.charAt(0).toUpperCase() + step.slice(1);

// SPEC §4 Action drawers: confirmation steps 1 to 4.
const CONFIRMATION_STEPS = ACTION.confirmationSteps.map(asLine);

// The guardians' approvals show at the create tracker's 4 network approvals and at an
// action drawer's 3 validation, the step the guardian's step 4 maps to (guardian-client.ts).
const CREATE_APPROVALS_STEP = 4;
const ACTION_APPROVALS_STEP = 3;

// SPEC §4: wallet balance refresh after every action; repay and borrow also refresh rune data.
const AFTER_ACTION = ['balance', 'vault', 'vault-history'] as const;
const AFTER_UNIT_ACTION = [...AFTER_ACTION, 'unit-outputs'] as const;

const ownAction = (action: VaultAction) => (): VaultAction => action;

/** SPEC §5: the wallet's sats less the cost (and, opening, the dust the vault keeps), or Max. */
const depositMax =
  (forCreate: boolean) =>
  (ctx: MaxContext): Sats =>
    ctx.refinedSats ??
    maxDepositSats({
      walletSats: ctx.walletSats,
      operationCostSats: ctx.costSats,
      forCreate,
      dustLimitSats: ctx.constants.dustLimitSats,
    });

const FAILED = 'Transaction failed';

export const FLOWS: Record<FlowAction, FlowDecl> = {
  // SPEC §2 Drawers / §4 Create flow: 5 steps, tracker internal steps 1-5.
  create: {
    action: 'create',
    steps: [
      { kind: 'name', title: CREATE.steps[0], primary: CREATE.buttons.continue },
      {
        kind: 'form',
        title: CREATE.steps[1],
        primary: CREATE.buttons.preview,
        secondary: CREATE.buttons.back,
      },
      {
        kind: 'confirm',
        title: CREATE.steps[2],
        primary: CREATE.buttons.confirm,
        secondary: CREATE.buttons.back,
      },
      {
        kind: 'tracker',
        title: CREATE.steps[3],
        primary: CREATE.buttons.details,
        secondary: CREATE.buttons.back,
      },
      // SPEC §2: step 5 is the success step; its title is the SPEC §2 success text.
      { kind: 'success', title: CONTENT.vaultPage.created, primary: CREATE.buttons.close },
    ],
    progressSteps: CREATE.trackerSteps.map(asLine),
    approvalsStep: CREATE_APPROVALS_STEP,
    form: {
      kind: 'amounts',
      connectsWallet: true,
      needsPrice: true,
      btc: { label: 'Deposit BTC', refinesMax: 'create', max: depositMax(true) },
      // Only what the wallet can actually deposit backs the borrow, not an over-typed amount.
      unit: {
        label: 'Borrow UNIT',
        max: (ctx) =>
          maxBorrowCents(ctx.depositSats, 0, ctx.priceUsd, ctx.constants.collateralPercent),
      },
      complete: ({ sats, cents, priceUsd }) =>
        validateCreateVault({ walletConnected: true, btcSats: sats, unitCents: cents, priceUsd })
          .ok,
    },
    actionLabel: CONTENT.vaultPage.createVault,
    successTitle: CONTENT.vaultPage.created,
    failedTitle: ERROR_MESSAGES.vaultOpenFailed,
    retryOnNoAccounts: false,
    createsVault: true,
    pendingType: 'create',
    holdsButtons: 'create',
    noticeAction: ownAction('open'),
    // SPEC §7: after create these are invalidated; SPEC §4: vault data refreshed after 5 s.
    // Beyond SPEC §7's list, the wallet's sats and the UNIT just issued change too.
    refresh: {
      now: ['vault', 'fee-rates', 'bitcoin-price', 'block-height', 'balance', 'unit-outputs'],
      later: { keys: ['vault'], afterMs: VAULT_REFRESH_AFTER_CREATE_MS },
    },
  },
  deposit: {
    action: 'deposit',
    steps: actionSteps(CONTENT.dashboard.deposit, ACTION.successTitles.deposit),
    progressSteps: CONFIRMATION_STEPS,
    approvalsStep: ACTION_APPROVALS_STEP,
    form: {
      kind: 'amounts',
      btc: { label: 'Deposit amount', refinesMax: 'deposit', max: depositMax(false) },
    },
    actionLabel: CONTENT.dashboard.deposit,
    successTitle: ACTION.successTitles.deposit,
    failedTitle: FAILED,
    retryOnNoAccounts: false,
    pendingType: 'deposit',
    holdsButtons: 'deposit',
    noticeAction: ownAction('deposit'),
    refresh: { now: AFTER_ACTION },
  },
  withdraw: {
    action: 'withdraw',
    steps: actionSteps(CONTENT.dashboard.withdraw, ACTION.successTitles.withdraw),
    progressSteps: CONFIRMATION_STEPS,
    approvalsStep: ACTION_APPROVALS_STEP,
    form: {
      kind: 'amounts',
      needsPrice: true,
      btc: {
        label: 'Withdraw amount',
        max: (ctx) =>
          maxWithdrawSats({
            vaultSats: ctx.vaultSats,
            unitCents: ctx.debtCents,
            priceUsd: ctx.priceUsd,
            operationCostSats: ctx.costSats,
            minVaultBalanceSats: ctx.constants.minVaultBalanceSats,
            collateralPercent: ctx.constants.collateralPercent,
          }),
        hint: (max) => `${READING.withdraw.upTo(satsToBtcString(max))}. ${ACTION.withdrawTooltip}`,
      },
    },
    actionLabel: CONTENT.dashboard.withdraw,
    successTitle: ACTION.successTitles.withdraw,
    failedTitle: FAILED,
    retryOnNoAccounts: false,
    pendingType: 'withdraw',
    holdsButtons: 'withdraw',
    noticeAction: ownAction('withdraw'),
    refresh: { now: AFTER_ACTION },
  },
  borrow: {
    action: 'borrow',
    steps: actionSteps(CONTENT.dashboard.borrow, ACTION.successTitles.borrow),
    progressSteps: CONFIRMATION_STEPS,
    approvalsStep: ACTION_APPROVALS_STEP,
    form: {
      kind: 'amounts',
      needsPrice: true,
      unit: {
        label: 'Borrow amount',
        max: (ctx) =>
          maxBorrowCents(
            ctx.vaultSats,
            ctx.debtCents,
            ctx.priceUsd,
            ctx.constants.collateralPercent,
          ),
      },
    },
    actionLabel: CONTENT.dashboard.borrow,
    successTitle: ACTION.successTitles.borrow,
    failedTitle: FAILED,
    retryOnNoAccounts: true,
    pendingType: 'borrow',
    holdsButtons: 'borrow',
    noticeAction: ownAction('borrow'),
    refresh: { now: AFTER_UNIT_ACTION },
  },
  repay: {
    action: 'repay',
    steps: actionSteps(CONTENT.dashboard.repay, ACTION.successTitles.repay),
    progressSteps: CONFIRMATION_STEPS,
    approvalsStep: ACTION_APPROVALS_STEP,
    form: {
      kind: 'amounts',
      unit: {
        label: 'Repay amount',
        max: (ctx) =>
          maxRepayCents({ runeBalanceCents: ctx.runeCents ?? 0, debtCents: ctx.debtCents }),
      },
    },
    actionLabel: CONTENT.dashboard.repay,
    successTitle: ACTION.successTitles.repay,
    failedTitle: FAILED,
    retryOnNoAccounts: true,
    pendingType: 'repay',
    holdsButtons: 'repay',
    noticeAction: ownAction('repay'),
    refresh: { now: AFTER_UNIT_ACTION },
  },
  // Repossess (ARCHITECTURE.md, Liquidation): review the claim, then the same tracker as actions.
  repossess: {
    action: 'repossess',
    steps: actionSteps(CONTENT.repossess.button, CONTENT.repossess.success),
    progressSteps: CONFIRMATION_STEPS,
    approvalsStep: ACTION_APPROVALS_STEP,
    form: { kind: 'claim' },
    actionLabel: CONTENT.repossess.button,
    successTitle: CONTENT.repossess.success,
    failedTitle: FAILED,
    retryOnNoAccounts: false,
    keepsDrawer: true,
    pendingType: 'repossess',
    holdsButtons: 'create',
    noticeAction: ownAction('repossess'),
    refresh: { now: ['balance', 'liquidations', 'vault', 'vault-history'] },
  },
  // Speed-up (BIP-125): the current and the new fee rate, then the wallet signs the replacement.
  speedup: {
    action: 'speedup',
    // The Telegram notice names the action of the transaction sped up, not this one.
    steps: actionSteps(CONTENT.speedUp.button, CONTENT.speedUp.success),
    progressSteps: CONFIRMATION_STEPS,
    form: { kind: 'fee' },
    actionLabel: CONTENT.speedUp.button,
    successTitle: CONTENT.speedUp.success,
    failedTitle: FAILED,
    retryOnNoAccounts: false,
    keepsDrawer: true,
    pendingType: null,
    holdsButtons: 'create',
    noticeAction: (target) => targetOf(target, 'speedup')?.action ?? 'deposit',
    refresh: { now: AFTER_ACTION },
  },
};
