// What a flow hands to the client that talks to the wallet and the guardian, and what it gets back:
// types only, so the flow machine (FlowProvider.tsx) and the client it loads lazily
// (guardian-client.ts) both import them without importing each other.
import type { ConfigDto } from '@unit/protocol';
import type { Approvals } from '@unit/protocol/wire';
import type { useWallet } from '../wallet';
import type { FlowAction, FlowTarget } from './declarations';
import type { FlowResultIds } from './engine';

/** What a flow's form collected; amounts are integers (sats, UNIT hundredths). */
export interface FlowInput {
  name: string;
  /** deposit/withdraw amount, or the create deposit */
  sats: bigint;
  /** borrow/repay amount, or the create borrow */
  cents: bigint;
  feeRate: number;
  /** the liquidated vault of a repossess, the transaction of a speed-up */
  target?: FlowTarget;
  /** a signed request the network never took, sent again as it is (resend.ts) */
  resend?: SignedResend;
}

/**
 * Reports the tracker step that is now active (1 signature collection … last submitting), and at
 * the network approvals each guardian's decision so far, when a guardian network signs.
 */
export type OnProgress = (step: number, approvals?: Approvals) => void;

export interface ExecuteContext {
  config: ConfigDto;
  wallet: Pick<ReturnType<typeof useWallet>, 'account' | 'signPsbt'>;
  /**
   * Called as the signed request goes to the guardian: the flow's time-out counts from here, not
   * from the wallet prompt (a user may read the prompt for minutes).
   */
  onSent?: () => void;
}

export type ExecuteFlow = (
  action: FlowAction,
  input: FlowInput,
  onProgress: OnProgress,
  context: ExecuteContext,
) => Promise<FlowResultIds>;

export interface SignedResend {
  /** The guardian method and the request's nonce: the same signed request, sent again. */
  method: string;
  nonce: string;
  /** The request's expiry, unix seconds: past it the guardian refuses it. */
  expiresAt: number;
  send(onProgress: OnProgress): Promise<FlowResultIds>;
  /** Lets go of the socket kept for it (and the reservation that socket holds). */
  close(): void;
}
