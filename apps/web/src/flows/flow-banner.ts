import { useMemo, useState } from 'react';
import type { FlowAction, FlowDecl } from './declarations';

/** The banner of a running or finished flow (SPEC §4); vault/PendingBanner.tsx shows it. */
export interface FlowBanner {
  tone: 'info' | 'success' | 'error';
  action: FlowAction;
  text: string;
  txid: string | null;
}

export interface FlowBannerActions {
  /** SPEC §4: signatures collected, the drawer closes and the banner takes over */
  running(decl: FlowDecl): void;
  /** SPEC §4: the 'submitted' banner shows the txid */
  submitted(decl: FlowDecl, txid: string): void;
  /** SPEC §8: an error banner beside the generic toast */
  failed(decl: FlowDecl): void;
  /** SPEC §4: the banner becomes success once a block confirms its transaction */
  completed(txids: ReadonlySet<string>): void;
  dismiss(): void;
}

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
        }),
      submitted: (decl, txid) =>
        setBanner({ tone: 'info', action: decl.action, text: decl.successTitle, txid }),
      failed: (decl) =>
        setBanner({ tone: 'error', action: decl.action, text: decl.failedTitle, txid: null }),
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
