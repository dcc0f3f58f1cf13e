import type {
  ConfigConstants,
  DashboardAction,
  LiquidatedVaultDto,
  PendingType,
  PriceInput,
  Sats,
  UnitCents,
  VaultAction,
} from '@unit/protocol';
import type { MaxDepositRequest } from './max-deposit';

// The shape of a flow's declaration (declarations.ts holds one per action, as liquity/bold's
// tx-flows do): the drawer, the flow machine and the banner read these fields, never the name.

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

/** The target of one kind, or null: what a form or a notice reads of the flow it belongs to. */
export const targetOf = <K extends FlowTarget['kind']>(
  target: FlowTarget | null | undefined,
  kind: K,
): Extract<FlowTarget, { kind: K }> | null =>
  target?.kind === kind ? (target as Extract<FlowTarget, { kind: K }>) : null;

// Flows are data (STYLE.md): one declaration per action drives the one engine and the one drawer;
// the drawer reads its steps, form, maxima, checks and refreshes here, never the action's name.
export type StepKind = 'name' | 'form' | 'confirm' | 'tracker' | 'success';

export interface StepDecl {
  kind: StepKind;
  title: string;
  /** label of the primary button of the step */
  primary: string;
  /** label of the secondary button, if any */
  secondary?: string;
}

/** What a field's maximum is computed from (SPEC §5), all integers. */
export interface MaxContext {
  walletSats: Sats;
  vaultSats: Sats;
  debtCents: UnitCents;
  runeCents: UnitCents | null;
  priceUsd: PriceInput;
  /** the operation cost with SPEC §9's vin allowance */
  costSats: Sats;
  /** Max refined from the wallet's UTXOs, once it has been (SPEC §5) */
  refinedSats: Sats | null;
  constants: ConfigConstants;
}

export interface BtcFieldDecl {
  label: string;
  max(ctx: MaxContext): Sats;
  /** Max is refined from the wallet's UTXOs, for this transaction (SPEC §5) */
  refinesMax?: MaxDepositRequest['action'];
  /** the line under the field; by default what the wallet has available */
  hint?(maxSats: Sats): string;
}

export interface UnitFieldDecl {
  label: string;
  /** `depositSats`: what the form's BTC field deposits, at most its maximum */
  max(ctx: MaxContext & { depositSats: Sats }): UnitCents;
}

export interface FormDecl {
  /** amounts typed in fields, a review of a claim (repossess), or a fee rate (speed-up) */
  kind: 'amounts' | 'claim' | 'fee';
  btc?: BtcFieldDecl;
  unit?: UnitFieldDecl;
  /** the step lists the wallets while none is connected */
  connectsWallet?: boolean;
  /** refused while the price is unknown (SPEC §5) */
  needsPrice?: boolean;
  /** every amount the action needs is there; by default each of its fields is above zero */
  complete?(amounts: { sats: Sats; cents: UnitCents; priceUsd: PriceInput }): boolean;
}

export interface FlowDecl {
  action: FlowAction;
  steps: readonly StepDecl[];
  /** tracker (create) or confirmation (actions) steps, in order, 1-based in the UI */
  progressSteps: readonly string[];
  /** the progress step that shows each guardian's approval; none: no network signs */
  approvalsStep?: number;
  form: FormDecl;
  actionLabel: string;
  successTitle: string;
  /** the error banner's text (SPEC §8) */
  failedTitle: string;
  /** SPEC §4: the 30 s Try again after a time-out is offered for the no-accounts error only here */
  retryOnNoAccounts: boolean;
  /**
   * The drawer stays open through the tracker to the success step once signed, instead of closing
   * behind the dashboard's banner: repossess runs from /liquidations, which has no banner, and a
   * speed-up is followed where it was asked for.
   */
  keepsDrawer?: boolean;
  /** the creation screen follows this flow (SPEC §2, §4 Create flow) */
  createsVault?: boolean;
  /**
   * The pending entry its transaction leaves (SPEC §3); null: a speed-up's replacement takes over
   * the entry of the transaction it replaced.
   */
  pendingType: PendingType | null;
  /** while its drawer is open, the dashboard button it stands for; 'create' holds them all */
  holdsButtons: DashboardAction | 'create';
  /** the action its Telegram notice tells of (a speed-up: the one it sped up) */
  noticeAction(target: FlowTarget | undefined): VaultAction;
  /** SPEC §4, §7: the queries its submitted transaction changes, and any to read again later */
  refresh: { now: readonly string[]; later?: { keys: readonly string[]; afterMs: number } };
}
