// One signed vault request to the guardian, its progress reported as the flow's tracker steps: the
// guardian's steps (2 request received … 5 submitting) and, at its step 4 network approvals, each
// guardian's decision when a guardian network signs.
import type { GuardianMethod, GuardianResult } from '@unit/protocol/wire';
import type { RpcClient } from './client-reads';
import type { OnProgress } from './flow-types';

/** The guardian's step as a tracker step: the create tracker has the guardian's five steps. */
export const createStepOf = (step: number) => step;

/**
 * The action drawers' tracker has four steps (SPEC §4: no separate network approvals): the
 * guardian's validation and its network approvals are the drawer's 3 validation.
 */
export const actionStepOf = (step: number) =>
  (({ 2: 2, 3: 3, 4: 3, 5: 4 }) as Record<number, number>)[step] ?? step;

/** Sends `request` by `method` over `client`, reporting its progress as tracker steps. */
export async function callGuardian<M extends GuardianMethod>(
  client: RpcClient,
  method: M,
  request: { nonce: string },
  report: OnProgress,
  trackerStepOf: (step: number) => number,
): Promise<GuardianResult<M>> {
  // The approvals of a notification come before its step (client-reads.ts connect).
  const unwatch = client.watchApprovals(request.nonce, (approvals) =>
    report(trackerStepOf(4), approvals),
  );
  try {
    return await client.call(method, request as never, {
      onProgress: (step) => report(trackerStepOf(step)),
    });
  } finally {
    unwatch();
  }
}
