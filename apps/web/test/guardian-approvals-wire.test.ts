// The wire: the web's guardian client (client-reads.ts connect) reads the
// approvals each `vault.progress` of its request carries, over a WebSocket, beside the steps the
// protocol's client reports; another request's approvals and malformed ones are not read; the
// guardians_refused answer reaches the flow with its code and its message naming each reason.
// The guardian at the socket's other end is MSW's WebSocket link: the edge of this unit.
import { describe, expect, it } from 'vitest';
import { ws } from 'msw';
import type { Approvals } from '@unit/protocol/wire';
import { connect } from '../src/flows/client-reads';
import { actionStepOf, callGuardian, createStepOf } from '../src/flows/guardian-call';
import { withNetworkEdge } from './network-edge';
import { server } from './server';

withNetworkEdge();

const GUARDIAN_URL = 'http://127.0.0.1:8089/guardian';
const NONCE = 'ab'.repeat(16);
const REFUSED =
  '2 of 3 guardians refused this request. guardian-2: my price is 10% under the quote; guardian-3: unreachable';

const first: Approvals = {
  approved: 1,
  needed: 2,
  total: 3,
  guardians: [
    { id: 1, name: 'guardian-1', state: 'approved' },
    { id: 2, name: 'guardian-2', state: 'pending' },
    { id: 3, name: 'guardian-3', state: 'pending' },
  ],
};
const last: Approvals = {
  ...first,
  guardians: [
    { id: 1, name: 'guardian-1', state: 'approved' },
    { id: 2, name: 'guardian-2', state: 'refused', reason: 'my price is 10% under the quote' },
    { id: 3, name: 'guardian-3', state: 'unreachable', reason: 'unreachable' },
  ],
};

/** A guardian that reports progress with approvals, then refuses every request it is sent. */
function refusingGuardian() {
  const link = ws.link('ws://127.0.0.1:8089/guardian');
  server.use(
    link.addEventListener('connection', ({ client }) => {
      client.addEventListener('message', (event) => {
        const { id, params } = JSON.parse(String(event.data)) as {
          id: number;
          params: { nonce: string };
        };
        const progress = (body: object) =>
          client.send(JSON.stringify({ jsonrpc: '2.0', method: 'vault.progress', params: body }));
        const request = params.nonce;
        progress({ request, step: 2 });
        progress({ request, step: 3 });
        progress({ request, step: 4, approvals: first });
        progress({ request: 'cd'.repeat(16), step: 4, approvals: last });
        progress({ request, step: 4, approvals: { ...last, approved: 'two' } });
        progress({ request, step: 4, approvals: last });
        client.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: {
              code: -32000,
              message: REFUSED,
              data: { code: 'guardians_refused', error: REFUSED },
            },
          }),
        );
      });
    }),
  );
}

describe("the guardian client's approvals", () => {
  it("reads each approval of its request's progress and fails with guardians_refused", async () => {
    refusingGuardian();
    const rpc = await connect(GUARDIAN_URL);
    try {
      const seen: Approvals[] = [];
      const steps: number[] = [];
      const unwatch = rpc.watchApprovals(NONCE, (approvals) => seen.push(approvals));
      const call = rpc.call('vault.deposit', { nonce: NONCE } as never, {
        onProgress: (step) => steps.push(step),
      });
      await expect(call).rejects.toMatchObject({ code: 'guardians_refused', message: REFUSED });
      // The other request's progress is not this one's; the malformed approvals' step still is.
      expect(steps).toEqual([2, 3, 4, 4, 4]);
      // The other request's approvals and the malformed ones are not read.
      expect(seen).toEqual([first, last]);

      // Unwatched, the next request's approvals go nowhere; its steps still arrive.
      unwatch();
      const again = rpc.call('vault.deposit', { nonce: NONCE } as never, {
        onProgress: (step) => steps.push(step),
      });
      await expect(again).rejects.toMatchObject({ code: 'guardians_refused' });
      expect(seen).toHaveLength(2);
      expect(steps).toHaveLength(10);
    } finally {
      rpc.close();
    }
  });

  it("reports a create's approvals at its step 4, an action's at its step 3, before the step", async () => {
    refusingGuardian();
    const rpc = await connect(GUARDIAN_URL);
    try {
      for (const [stepOf, approvalsStep] of [
        [createStepOf, 4],
        [actionStepOf, 3],
      ] as const) {
        const reports: [number, Approvals?][] = [];
        const call = callGuardian(
          rpc,
          'vault.open',
          { nonce: NONCE },
          (...r) => reports.push(r),
          stepOf,
        );
        await expect(call).rejects.toMatchObject({ code: 'guardians_refused', message: REFUSED });
        const s = approvalsStep;
        expect(reports).toEqual([[2], [3], [s, first], [s], [s], [s, last], [s]]);
      }
    } finally {
      rpc.close();
    }
  });
});
