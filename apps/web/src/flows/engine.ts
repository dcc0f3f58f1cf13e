import type { Approvals } from '@unit/protocol/wire';
import { FLOWS, type FlowAction } from './declarations';

// The one flow engine: a pure reducer over (step, status, progress), the same for every action.
export type FlowStatus = 'idle' | 'awaiting-signature' | 'processing' | 'confirmed' | 'error';

export interface FlowResultIds {
  txid: string;
  vaultTxid: string;
  vaultId?: string;
  /** a speed-up: the transaction the new one replaced */
  replacedTxid?: string;
}

export interface FlowState {
  action: FlowAction;
  step: number;
  status: FlowStatus;
  /** active tracker step, 1-based; 0 before the flow starts */
  progress: number;
  error: unknown;
  result: FlowResultIds | null;
  /** bumps when the form must forget what was typed (SPEC §4: Back resets the amount) */
  formKey: number;
  /**
   * The guardians' decisions at the tracker step they were reported at (create: 4
   * network approvals; an action drawer: 3), the last kept through a failure; null when the server
   * signs alone.
   */
  approvals: { step: number; value: Approvals } | null;
}

export type FlowEvent =
  | { type: 'next' }
  | { type: 'back' }
  | { type: 'start' }
  | { type: 'progress'; step: number; approvals?: Approvals }
  | { type: 'confirmed'; result: FlowResultIds }
  | { type: 'failed'; error: unknown }
  /** the user declined in the wallet: back to where they pressed the button, nothing lost */
  | { type: 'cancelled' }
  | { type: 'reset' };

export const initialFlowState = (action: FlowAction): FlowState => ({
  action,
  step: 0,
  status: 'idle',
  progress: 0,
  error: null,
  result: null,
  formKey: 0,
  approvals: null,
});

const indexOf = (action: FlowAction, kind: string) =>
  FLOWS[action].steps.findIndex((s) => s.kind === kind);

export function flowReducer(state: FlowState, event: FlowEvent): FlowState {
  const steps = FLOWS[state.action].steps;
  const busy = state.status === 'awaiting-signature' || state.status === 'processing';
  switch (event.type) {
    case 'next':
      return busy ? state : { ...state, step: Math.min(state.step + 1, steps.length - 1) };
    case 'back': {
      if (busy) return state;
      // SPEC §4: Back on the tracker after an error returns to the step before it (confirmation
      // for create, the form for actions) and, returning to a form, resets the amount.
      if (steps[state.step]?.kind === 'tracker') {
        const formReset = steps[state.step - 1]?.kind === 'form';
        return {
          ...state,
          step: state.step - 1,
          status: 'idle',
          progress: 0,
          error: null,
          formKey: formReset ? state.formKey + 1 : state.formKey,
          approvals: null,
        };
      }
      return { ...state, step: Math.max(0, state.step - 1) };
    }
    case 'start':
      return {
        ...state,
        step: indexOf(state.action, 'tracker'),
        status: 'awaiting-signature',
        progress: 1,
        error: null,
        result: null,
        approvals: null,
      };
    case 'progress':
      if (state.status !== 'awaiting-signature' && state.status !== 'processing') return state;
      return {
        ...state,
        progress: event.step,
        status: event.step >= 2 ? 'processing' : state.status,
        approvals: event.approvals ? { step: event.step, value: event.approvals } : state.approvals,
      };
    case 'confirmed':
      return {
        ...state,
        status: 'confirmed',
        result: event.result,
        progress: FLOWS[state.action].progressSteps.length,
        step: indexOf(state.action, 'success'),
      };
    case 'failed':
      return { ...state, status: 'error', error: event.error };
    case 'cancelled':
      if (steps[state.step]?.kind !== 'tracker') return state;
      return {
        ...state,
        step: state.step - 1,
        status: 'idle',
        progress: 0,
        error: null,
        approvals: null,
      };
    case 'reset':
      return { ...initialFlowState(state.action), formKey: state.formKey + 1 };
  }
}
