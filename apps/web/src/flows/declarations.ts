import { CONTENT, type PendingType, type VaultAction } from '@unit/protocol';

/** The five flows of the drawer; each is stored as a pending transaction of the same type (SPEC §3). */
export type FlowAction = PendingType;

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
  /** what the form asks for */
  amount: 'btc' | 'unit' | 'create';
  actionLabel: string;
  successTitle: string;
  /** SPEC §4: the 30 s Try again after a time-out is offered for the no-accounts error only here */
  retryOnNoAccounts: boolean;
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
};

export const isFlowAction = (value: string | null): value is FlowAction =>
  value === 'create' ||
  value === 'deposit' ||
  value === 'withdraw' ||
  value === 'borrow' ||
  value === 'repay';
