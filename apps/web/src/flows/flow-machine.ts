import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { DomainError, ERROR_MESSAGES, errorCodeOf } from '@unit/protocol';
import type { Approvals } from '@unit/protocol/wire';
import { useConfig } from '../api/config';
import { useWallet } from '../wallet';
import { isRejection } from '../wallet/errors';
import { FLOWS, type FlowAction, type FlowDecl, type FlowTarget } from './declarations';
import {
  flowReducer,
  initialFlowState,
  type FlowEvent,
  type FlowResultIds,
  type FlowState,
} from './engine';
import type { ExecuteFlow, FlowInput, OnProgress } from './flow-types';
import type { FlowPreview } from './preview';

// The flow machine: which flow is open, its drawer, and one run from the wallet prompt to the
// guardian's answer. What a run leaves behind (banner, pending entry, notice) is the provider's.

type Slot = FlowState | null;
type SlotEvent = FlowEvent | { type: 'begin'; action: FlowAction } | { type: 'clear' };

function slotReducer(state: Slot, event: SlotEvent): Slot {
  if (event.type === 'begin') return initialFlowState(event.action);
  if (event.type === 'clear') return null;
  return state ? flowReducer(state, event) : state;
}

/** A time-out (the flow's own, or the guardian client's), recognised by its code. */
const isUserTimeout = (error: unknown) => errorCodeOf(error) === 'timed_out';

const withTimeout = <T>(promise: Promise<T>, ms: number, started: Promise<void>) =>
  new Promise<T>((resolve, reject) => {
    // SPEC §4: a timer flags the flow as timed out after the configured time-out, counted from
    // when the request was sent (time in the wallet prompt does not count).
    let timer: ReturnType<typeof setTimeout> | undefined;
    void started.then(() => {
      timer = setTimeout(
        () => reject(new DomainError('timed_out', ERROR_MESSAGES.userTimeout)),
        ms,
      );
    });
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });

/** What a run tells the rest of the app, each once, as it happens. */
export interface FlowRunEffects {
  /** the wallet signed and the guardian has the request (SPEC §4) */
  onSigned(decl: FlowDecl): void;
  /** The guardians' decisions so far, reported after signing (the banner shows them) */
  onApprovals(decl: FlowDecl, approvals: Approvals): void;
  /** the guardian answered with the transaction's ids, in time or after the time-out */
  onSubmitted(decl: FlowDecl, input: FlowInput, preview: FlowPreview, result: FlowResultIds): void;
  /** declined in the wallet: nothing was sent */
  onDeclined(): void;
  onFailed(decl: FlowDecl, error: unknown): void;
}

export function useFlowMachine(execute: ExecuteFlow, effects: FlowRunEffects) {
  const config = useConfig();
  const wallet = useWallet();
  const [flow, dispatch] = useReducer(slotReducer, null);
  const [target, setTarget] = useState<FlowTarget | null>(null);
  const [drawerOpen, setDrawerOpenState] = useState(false);
  // The provider's, not the drawer's: the drawer that started a run closes while it runs.
  const [lastRun, setLastRun] = useState<{ input: FlowInput; preview: FlowPreview } | null>(null);
  const flowRef = useRef(flow);
  useEffect(() => {
    flowRef.current = flow;
  }, [flow]);

  const openFlow = useCallback((action: FlowAction, next?: FlowTarget) => {
    setTarget(next ?? null);
    dispatch({ type: 'begin', action });
    setDrawerOpenState(true);
  }, []);

  const setDrawerOpen = useCallback((open: boolean) => {
    setDrawerOpenState(open);
    if (open) return;
    const current = flowRef.current;
    if (!current) return;
    // Closing in error resets the drawer; closing an idle or finished flow forgets it; a running
    // flow keeps running behind its banner.
    if (current.status === 'error' || current.status === 'idle' || current.status === 'confirmed')
      dispatch({ type: 'clear' });
  }, []);

  const { onSigned, onApprovals, onSubmitted, onDeclined, onFailed } = effects;
  const run = useCallback(
    async (input: FlowInput, preview: FlowPreview) => {
      const current = flowRef.current;
      if (!current) return;
      const decl = FLOWS[current.action];
      setLastRun({ input, preview });
      dispatch({ type: 'start' });
      let signed = false;
      let markSent!: () => void;
      const sent = new Promise<void>((resolve) => (markSent = resolve));
      const onProgress: OnProgress = (step, approvals) => {
        // The guardian's first step means the request reached it, whoever sent it.
        if (step >= 2) markSent();
        dispatch({ type: 'progress', step, ...(approvals ? { approvals } : {}) });
        if (step >= 2 && !signed) {
          // SPEC §4: signatures collected: the drawer closes and a banner takes over.
          signed = true;
          if (!decl.keepsDrawer) setDrawerOpenState(false);
          onSigned(decl);
        }
        // The drawer may be closed by now: the banner carries the approvals on.
        if (approvals && signed) onApprovals(decl, approvals);
      };
      const execution = execute(decl.action, input, onProgress, {
        config,
        wallet,
        onSent: () => markSent(),
      });
      try {
        const result = await withTimeout(execution, config.constants.flowTimeoutMs, sent);
        dispatch({ type: 'confirmed', result });
        onSubmitted(decl, input, preview, result);
      } catch (error) {
        if (isRejection(error)) {
          // Declined in the wallet: a reset to where the user was, not an error (nothing was sent).
          dispatch({ type: 'cancelled' });
          onDeclined();
          return;
        }
        if (isUserTimeout(error)) {
          // The time-out stops the waiting, not the request: a transaction the guardian still
          // broadcasts is recorded like any other, so it is never lost nor sent twice.
          execution.then(
            (result) => onSubmitted(decl, input, preview, result),
            () => undefined,
          );
        }
        dispatch({ type: 'failed', error });
        onFailed(decl, error);
        // SPEC §4: on error the drawer reopens (create: with Back).
        setDrawerOpenState(true);
      }
    },
    [config, execute, wallet, onSigned, onApprovals, onSubmitted, onDeclined, onFailed],
  );

  const clear = useCallback(() => dispatch({ type: 'clear' }), []);
  return useMemo(
    () => ({ flow, target, drawerOpen, openFlow, setDrawerOpen, dispatch, run, lastRun, clear }),
    [flow, target, drawerOpen, openFlow, setDrawerOpen, run, lastRun, clear],
  );
}
