import { useMemo, useState } from 'react';
import { flowErrorWords, isPricePaused, isRefusal } from './refusal';
import { PENDING_FAILED_TITLE } from '@unit/protocol';
import type { Approvals } from '@unit/protocol/wire';
import type { FlowAction, FlowDecl } from './declarations';

/** The banner of a running or finished flow (SPEC §4); vault/PendingBanner.tsx shows it. */
export interface FlowBanner {
  tone: 'info' | 'success' | 'error';
  action: FlowAction;
  text: string;
  txid: string | null;
  /**
   * The guardians' decisions on the run, as they arrive after the drawer closed and
   * after; null when the server signs alone (the banner is then as it always was).
   */
  approvals: Approvals | null;
  /** a refusal by the guardians (`guardians_refused`): its message, which names each reason */
  refusal: string | null;
  /** a full sentence under the title: what became of a transaction that was never mined */
  detail?: string;
}

export interface FlowBannerActions {
  /** SPEC §4: signatures collected, the drawer closes and the banner takes over */
  running(decl: FlowDecl): void;
  /** The guardians' decisions so far on the run the banner is about */
  approvals(action: FlowAction, approvals: Approvals): void;
  /** SPEC §4: the 'submitted' banner shows the txid */
  submitted(decl: FlowDecl, txid: string): void;
  /** SPEC §8: an error banner beside the generic toast */
  failed(decl: FlowDecl, error?: unknown): void;
  /** A pending transaction that will never be mined was dropped: the sentence says why */
  notMined(action: FlowAction, sentence: string): void;
  /** SPEC §4: the banner becomes success once a block confirms its transaction */
  completed(txids: ReadonlySet<string>): void;
  dismiss(): void;
}

/** The approvals the banner already shows about the same action's run, kept as it changes. */
const approvalsOf = (banner: FlowBanner | null, action: FlowAction) =>
  banner?.action === action ? banner.approvals : null;

export function useFlowBanner(): [FlowBanner | null, FlowBannerActions] {
  const [banner, setBanner] = useState<FlowBanner | null>(null);
  const actions = useMemo<FlowBannerActions>(
    () => ({
      running: (decl) =>
        setBanner({
          tone: 'info',
          action: decl.action,
          text: `${decl.actionLabel} in progress`,
          txid: null,
          approvals: null,
          refusal: null,
        }),
      approvals: (action, approvals) =>
        setBanner((b) => (b && b.action === action ? { ...b, approvals } : b)),
      submitted: (decl, txid) =>
        setBanner((b) => ({
          tone: 'info',
          action: decl.action,
          text: decl.successTitle,
          txid,
          approvals: approvalsOf(b, decl.action),
          refusal: null,
        })),
      failed: (decl, error) =>
        setBanner((b) => ({
          tone: 'error',
          action: decl.action,
          text: decl.failedTitle,
          txid: null,
          approvals: approvalsOf(b, decl.action),
          // a refusal's reasons, or why actions are paused: the banner says the cause too
          refusal: isRefusal(error) || isPricePaused(error) ? flowErrorWords(error) : null,
        })),
      notMined: (action, sentence) =>
        setBanner({
          ...{ tone: 'error', action, text: PENDING_FAILED_TITLE, txid: null },
          ...{ approvals: null, refusal: null, detail: sentence },
        }),
      completed: (txids) =>
        setBanner((b) =>
          b && b.tone === 'info' && b.txid && txids.has(b.txid) ? { ...b, tone: 'success' } : b,
        ),
      dismiss: () => setBanner(null),
    }),
    [],
  );
  return [banner, actions];
}
