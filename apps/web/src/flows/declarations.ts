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

const actionSteps = (actionLabel: string, successTitle: string): StepDecl[] => [
  { kind: 'form', title: actionLabel, primary: actionLabel, secondary: 'Cancel' },
  { kind: 'tracker', title: 'Processing transaction', primary: 'Details', secondary: 'Back' },
  { kind: 'success', title: successTitle, primary: 'Close' },
];

// SPEC §4 Action drawers: confirmation steps 1 to 4.
const CONFIRMATION_STEPS = [
  'Signature collection',
  'Received by node',
  'Validation',
  'Submitting',
] as const;

export const FLOWS: Record<FlowAction, FlowDecl> = {
  // SPEC §2 Drawers / §4 Create flow: 5 steps, tracker internal steps 1-5.
  create: {
    action: 'create',
    guardianAction: 'open',
    steps: [
      { kind: 'name', title: 'Name Your Vault', primary: 'Continue' },
      { kind: 'form', title: CONTENT.vaultPage.createVault, primary: 'Preview', secondary: 'Back' },
      { kind: 'confirm', title: 'Confirmation', primary: 'Confirm', secondary: 'Back' },
      { kind: 'tracker', title: 'Transaction tracker', primary: 'Details', secondary: 'Back' },
      { kind: 'success', title: CONTENT.vaultPage.created, primary: 'Close' },
    ],
    progressSteps: [
      'Signature collection',
      'Request received',
      'Validation',
      'Network approvals',
      'Submitting',
    ],
    amount: 'create',
    actionLabel: CONTENT.vaultPage.createVault,
    successTitle: CONTENT.vaultPage.created,
    retryOnNoAccounts: false,
  },
  deposit: {
    action: 'deposit',
    guardianAction: 'deposit',
    steps: actionSteps('Deposit', CONTENT.actionDrawer.successTitles.deposit),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'btc',
    actionLabel: 'Deposit',
    successTitle: CONTENT.actionDrawer.successTitles.deposit,
    retryOnNoAccounts: false,
  },
  withdraw: {
    action: 'withdraw',
    guardianAction: 'withdraw',
    steps: actionSteps('Withdraw', CONTENT.actionDrawer.successTitles.withdraw),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'btc',
    actionLabel: 'Withdraw',
    successTitle: CONTENT.actionDrawer.successTitles.withdraw,
    retryOnNoAccounts: false,
  },
  borrow: {
    action: 'borrow',
    guardianAction: 'borrow',
    steps: actionSteps('Borrow', CONTENT.actionDrawer.successTitles.borrow),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'unit',
    actionLabel: 'Borrow',
    successTitle: CONTENT.actionDrawer.successTitles.borrow,
    retryOnNoAccounts: true,
  },
  repay: {
    action: 'repay',
    guardianAction: 'repay',
    steps: actionSteps('Repay', CONTENT.actionDrawer.successTitles.repay),
    progressSteps: CONFIRMATION_STEPS,
    amount: 'unit',
    actionLabel: 'Repay',
    successTitle: CONTENT.actionDrawer.successTitles.repay,
    retryOnNoAccounts: true,
  },
};

export const isFlowAction = (value: string | null): value is FlowAction =>
  value === 'create' ||
  value === 'deposit' ||
  value === 'withdraw' ||
  value === 'borrow' ||
  value === 'repay';
