// A flow whose request the test holds once it is sent, to report the guardians' approvals as they
// arrive and then settle or fail it, and the approvals themselves (a 2-of-3 set).
import type { Approvals, GuardianDecision } from '@unit/protocol/wire';
import type { ExecuteFlow, OnProgress } from '../src/flows/flow-types';

export const guardian = (id: number, state: GuardianDecision['state'], reason?: string) => ({
  id,
  name: `guardian-${id}`,
  state,
  ...(reason ? { reason } : {}),
});

export const approvalsOf = (...guardians: GuardianDecision[]): Approvals => ({
  approved: guardians.filter((g) => g.state === 'approved').length,
  needed: 2,
  total: 3,
  guardians,
});

/**
 * An execute held after the request is sent: the test reports the guardian's progress, then
 * settles it (the answer's ids are `txid`) or fails it. Each call runs as it is: wrap it in act().
 */
export function heldExecute(txid: string) {
  const held: {
    report: OnProgress | null;
    settle: (() => void) | null;
    fail: ((error: Error) => void) | null;
  } = { report: null, settle: null, fail: null };
  const execute: ExecuteFlow = (_action, _input, onProgress, context) => {
    onProgress(1);
    context.onSent?.();
    onProgress(2);
    held.report = onProgress;
    return new Promise((resolve, reject) => {
      held.settle = () => resolve({ txid, vaultTxid: txid });
      held.fail = reject;
    });
  };
  return {
    execute,
    report: (step: number, approvals?: Approvals) => held.report!(step, approvals),
    settle: () => held.settle!(),
    fail: (error: Error) => held.fail!(error),
  };
}
