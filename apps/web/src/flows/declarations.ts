import {
  CONTENT,
  type LiquidatedVaultDto,
  type PendingType,
  type VaultAction,
} from '@unit/protocol';

/**
 * The flows of the drawer: each vault action is stored as a pending transaction of the same type
 * (SPEC §3); a speed-up has no entry of its own, it moves its transaction's entry to the new txid.
 */
export type FlowAction = PendingType | 'speedup';

/** The flows a dashboard button (or a ?action= link) opens on the wallet's own vault. */
export type LinkFlowAction = Exclude<FlowAction, 'repossess' | 'speedup'>;

/** What a flow acts on besides the connected wallet's vault. */
export type FlowTarget =
  | { kind: 'repossess'; vault: LiquidatedVaultDto }
  /** a vault transaction of this wallet still waiting in the mempool, and its action */
  | { kind: 'speedup'; txid: string; action: VaultAction };

// Flows are data (STYLE.md): one declaration per action drives the one engine and the one drawer.
export type StepKind = 'name' | 'form' | 'confirm' | 'tracker' | 'success';

export interface StepDecl {
  kind: StepKind;
  title: string;
  /** label of the primary button of the step */
  primary: string;
  /** label of the secondary button, if any */
  secondary?: string;
}

export interface FlowDecl {
  action: FlowAction;
  guardianAction: VaultAction;
  steps: readonly StepDecl[];
  /** tracker (create) or confirmation (actions) steps, in order, 1-based in the UI */
  progressSteps: readonly string[];
  /** what the form asks for: amounts, a review of a claim (repossess), a fee rate (speed-up) */
  amount: 'btc' | 'unit' | 'create' | 'claim' | 'fee';
  actionLabel: string;
  successTitle: string;
  /** SPEC §4: the 30 s Try again after a time-out is offered for the no-accounts error only here */
  retryOnNoAccounts: boolean;
  /**
   * The drawer stays open through the tracker to the success step once signed, instead of closing
   * behind the dashboard's banner: repossess runs from /liquidations, which has no banner, and a
   * speed-up is followed where it was asked for.
   */
  keepsDrawer?: boolean;
}

const ACTION = CONTENT.actionDrawer;
const CREATE = CONTENT.createDrawer;

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

export const FLOWS: Record<FlowAction, FlowDecl> = {
  // SPEC §2 Drawers / §4 Create flow: 5 steps, tracker internal steps 1-5.
  create: {
    action: 'create',
    guardianAction: 'open',
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
    amount: 'create',
    actionLabel: CONTENT.vaultPage.createVault,
    successTitle: CONTENT.vaultPage.created,
    retryOnNoAccounts: false,
  },
  deposit: {
    action: 'deposit',
    guardianAction: 'deposit',
    steps: actionSteps(CONTENT.dashboard.deposit, ACTION.successTitles.deposit),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'btc',
    actionLabel: CONTENT.dashboard.deposit,
    successTitle: ACTION.successTitles.deposit,
    retryOnNoAccounts: false,
  },
  withdraw: {
    action: 'withdraw',
    guardianAction: 'withdraw',
    steps: actionSteps(CONTENT.dashboard.withdraw, ACTION.successTitles.withdraw),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'btc',
    actionLabel: CONTENT.dashboard.withdraw,
    successTitle: ACTION.successTitles.withdraw,
    retryOnNoAccounts: false,
  },
  borrow: {
    action: 'borrow',
    guardianAction: 'borrow',
    steps: actionSteps(CONTENT.dashboard.borrow, ACTION.successTitles.borrow),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'unit',
    actionLabel: CONTENT.dashboard.borrow,
    successTitle: ACTION.successTitles.borrow,
    retryOnNoAccounts: true,
  },
  repay: {
    action: 'repay',
    guardianAction: 'repay',
    steps: actionSteps(CONTENT.dashboard.repay, ACTION.successTitles.repay),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'unit',
    actionLabel: CONTENT.dashboard.repay,
    successTitle: ACTION.successTitles.repay,
    retryOnNoAccounts: true,
  },
  // Repossess (ARCHITECTURE.md, Liquidation): review the claim, then the same tracker as actions.
  repossess: {
    action: 'repossess',
    guardianAction: 'repossess',
    steps: actionSteps(CONTENT.repossess.button, CONTENT.repossess.success),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'claim',
    actionLabel: CONTENT.repossess.button,
    successTitle: CONTENT.repossess.success,
    retryOnNoAccounts: false,
    keepsDrawer: true,
  },
  // Speed-up (BIP-125): the current and the new fee rate, then the wallet signs the replacement.
  speedup: {
    action: 'speedup',
    // The Telegram notice names the action of the transaction sped up, not this one.
    guardianAction: 'deposit',
    steps: actionSteps(CONTENT.speedUp.button, CONTENT.speedUp.success),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'fee',
    actionLabel: CONTENT.speedUp.button,
    successTitle: CONTENT.speedUp.success,
    retryOnNoAccounts: false,
    keepsDrawer: true,
  },
};

export const isFlowAction = (value: string | null): value is LinkFlowAction =>
  value === 'create' ||
  value === 'deposit' ||
  value === 'withdraw' ||
  value === 'borrow' ||
  value === 'repay';
