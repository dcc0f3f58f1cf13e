import { describe, expect, it } from 'vitest';
import { flowReducer, initialFlowState, type FlowEvent } from './engine';
import { FLOWS } from './declarations';

const run = (action: Parameters<typeof initialFlowState>[0], events: FlowEvent[]) =>
  events.reduce(flowReducer, initialFlowState(action));

describe('flow engine', () => {
  it('declares 5 create steps and 3 steps for each action with the SPEC titles', () => {
    expect(FLOWS.create.steps.map((s) => s.primary)).toEqual([
      'Continue',
      'Preview',
      'Confirm',
      'Details',
      'Close',
    ]);
    expect(FLOWS.create.progressSteps).toHaveLength(5);
    for (const a of ['deposit', 'withdraw', 'borrow', 'repay'] as const) {
      expect(FLOWS[a].steps).toHaveLength(3);
      expect(FLOWS[a].progressSteps).toHaveLength(4);
    }
    expect(FLOWS.borrow.successTitle).toBe('Vault Borrow Submitted!');
    expect(FLOWS.withdraw.successTitle).toBe('BTC Withdrawal Submitted');
  });

  it('walks create to the tracker, awaiting signature then processing, then success', () => {
    let s = run('create', [{ type: 'next' }, { type: 'next' }, { type: 'start' }]);
    expect([s.step, s.status, s.progress]).toEqual([3, 'awaiting-signature', 1]);
    s = flowReducer(s, { type: 'progress', step: 3 });
    expect(s.status).toBe('processing');
    s = flowReducer(s, { type: 'confirmed', result: { txid: 't', vaultTxid: 't' } });
    expect([s.step, s.status]).toEqual([4, 'confirmed']);
  });

  it('returns from a failed create to the confirmation step keeping the form', () => {
    const s = run('create', [
      { type: 'next' },
      { type: 'next' },
      { type: 'start' },
      { type: 'failed', error: new Error('x') },
      { type: 'back' },
    ]);
    expect([s.step, s.status, s.formKey]).toEqual([2, 'idle', 0]);
  });

  it('returns from a failed action to the form and resets the amount', () => {
    const s = run('deposit', [
      { type: 'start' },
      { type: 'failed', error: new Error('x') },
      { type: 'back' },
    ]);
    expect([s.step, s.status, s.formKey]).toEqual([0, 'idle', 1]);
  });

  it('ignores navigation while the flow is running', () => {
    const s = run('deposit', [{ type: 'start' }, { type: 'back' }]);
    expect([s.step, s.status]).toEqual([1, 'awaiting-signature']);
  });

  it('returns a flow declined in the wallet to the step its button was on, keeping the amount', () => {
    const action = run('deposit', [{ type: 'start' }, { type: 'cancelled' }]);
    expect([action.step, action.status, action.progress, action.formKey]).toEqual([
      0,
      'idle',
      0,
      0,
    ]);
    const create = run('create', [
      { type: 'next' },
      { type: 'next' },
      { type: 'start' },
      { type: 'cancelled' },
    ]);
    expect([create.step, create.status, create.formKey]).toEqual([2, 'idle', 0]);
  });

  it("keeps the guardians' approvals at the step they came with, through a failure", () => {
    const approvals = {
      approved: 1,
      needed: 2,
      total: 3,
      guardians: [{ id: 1, name: 'guardian-1', state: 'approved' as const }],
    };
    let s = run('create', [{ type: 'next' }, { type: 'next' }, { type: 'start' }]);
    expect(s.approvals).toBeNull();
    s = flowReducer(s, { type: 'progress', step: 4, approvals });
    expect(s.approvals).toEqual({ step: 4, value: approvals });
    // A step without approvals keeps the last ones, and so does the failure.
    s = flowReducer(s, { type: 'progress', step: 4 });
    s = flowReducer(s, { type: 'failed', error: new Error('refused') });
    expect([s.status, s.approvals]).toEqual(['error', { step: 4, value: approvals }]);
    // Back to the confirmation forgets them; a new run starts without any.
    expect(flowReducer(s, { type: 'back' }).approvals).toBeNull();
    expect(flowReducer(s, { type: 'start' }).approvals).toBeNull();
  });
});
