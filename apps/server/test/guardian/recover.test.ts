// A restart in the middle of a request: the guardian persisted the co-signed transaction before the
// broadcast, so the next process finishes the request from the chain's answer without ever
// broadcasting a transaction twice.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chain } from '../../src/chain/port';
import {
  getGuardianRequest,
  getVaultByPubkey,
  recordGuardianRequest,
  vaultHistory,
} from '../../src/store';
import { UNOWNED_REQUEST_GRACE_SECONDS } from '../../src/cosign/recover';
import { call, startHarness, type Harness, type TestWallet } from './harness';

type BroadcastMode = 'normal' | 'crash-after-send' | 'crash-before-send';

/** The chain as the first process saw it: its broadcasts may stop the process half-way. */
function crashingChain(chain: Chain, mode: { value: BroadcastMode }): Chain {
  const wrapped = Object.create(chain) as Chain;
  wrapped.broadcast = async (rawHex) => {
    if (mode.value === 'normal') return chain.broadcast(rawHex);
    if (mode.value === 'crash-after-send') await chain.broadcast(rawHex);
    // The process "dies" here: the request never hears back.
    return new Promise<string>(() => undefined);
  };
  return wrapped;
}

/** The chain of the restarted process, counting the broadcasts it is asked for. */
function countingChain(chain: Chain): Chain & { sent: string[] } {
  const wrapped = Object.create(chain) as Chain & { sent: string[] };
  wrapped.sent = [];
  wrapped.broadcast = (rawHex) => {
    wrapped.sent.push(rawHex);
    return chain.broadcast(rawHex);
  };
  return wrapped;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition never held');
}

describe('guardian restart recovery', () => {
  const mode: { value: BroadcastMode } = { value: 'normal' };
  let h: Harness;
  let alice: TestWallet;
  let bob: TestWallet;
  beforeAll(async () => {
    h = await startHarness((chain) => crashingChain(chain, mode));
    alice = await h.wallet('alice');
    bob = await h.wallet('bob');
    await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 50_000n)).request);
    await call(h.guardian, 'vault.open', (await bob.open(1_000_000n, 50_000n)).request);
  });
  afterAll(() => h.close());

  const stuckAtCosigned = async (nonce: string) =>
    (await getGuardianRequest(h.store.db, nonce))?.state === 'cosigned';

  it('commits a request whose transaction reached the network, without broadcasting it again', async () => {
    // The crash leaves the request's call without an answer (here and below): its client's time-out
    // ends it a minute later with nothing waiting for it, in whichever file the worker runs by then.
    mode.value = 'crash-after-send';
    const { request } = await alice.deposit(200_000n);
    void call(h.guardian, 'vault.deposit', request).catch(() => undefined);
    await until(() => stuckAtCosigned(request.nonce));
    const { txid } = (await getGuardianRequest(h.store.db, request.nonce))!;
    await until(async () => (await h.chain.txStatus(txid!)) !== null);
    expect((await getVaultByPubkey(h.store.db, alice.vaultPubkey))?.btc_locked).toBe(1_000_000);

    const chain = countingChain(h.chain);
    const report = await h.restart(chain).recover();
    expect(report).toEqual({ committed: [request.nonce], rebroadcast: [], failed: [] });
    expect(chain.sent).toEqual([]);
    const vault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    expect(vault).toMatchObject({ vault_txid: txid, btc_locked: 1_200_000 });
    expect((await vaultHistory(h.store.db, vault.vault_id))[0]).toMatchObject({
      action: 'd',
      transaction_id: txid,
    });
    expect(await getGuardianRequest(h.store.db, request.nonce)).toMatchObject({
      state: 'broadcast',
      txid,
    });
  });

  it('rebroadcasts, exactly once, a co-signed transaction the network never received', async () => {
    mode.value = 'crash-before-send';
    const { request } = await bob.deposit(300_000n);
    void call(h.guardian, 'vault.deposit', request).catch(() => undefined);
    await until(() => stuckAtCosigned(request.nonce));
    const { txid } = (await getGuardianRequest(h.store.db, request.nonce))!;
    expect(await h.chain.txStatus(txid!)).toBeNull();

    const chain = countingChain(h.chain);
    const restarted = h.restart(chain);
    expect(await restarted.recover()).toEqual({
      committed: [request.nonce],
      rebroadcast: [request.nonce],
      failed: [],
    });
    expect(chain.sent).toHaveLength(1);
    expect(await h.chain.txStatus(txid!)).not.toBeNull();
    expect((await getVaultByPubkey(h.store.db, bob.vaultPubkey))?.btc_locked).toBe(1_300_000);
    // A further restart finds nothing left to do.
    expect(await h.restart(chain).recover()).toEqual({
      committed: [],
      rebroadcast: [],
      failed: [],
    });
    expect(chain.sent).toHaveLength(1);
  });

  /** A request received and left at that, by the instance named (null: a server before ids). */
  const leftBehind = async (instanceId: string | null) => {
    const nonce = randomBytes(16).toString('hex');
    await recordGuardianRequest(
      h.store.db,
      {
        nonce,
        method: 'vault.deposit',
        vault_id: null,
        vault_pubkey: '11'.repeat(32),
        expires_at: h.clock.now + 60,
      },
      h.clock.now,
    );
    await h.store.db
      .updateTable('guardian_requests')
      .set({ instance_id: instanceId })
      .where('nonce', '=', nonce)
      .execute();
    return nonce;
  };

  it('fails requests that had not reached co-signing', async () => {
    const nonce = await leftBehind('the previous run');
    expect((await h.restart().recover()).failed).toEqual([nonce]);
    expect(await getGuardianRequest(h.store.db, nonce)).toMatchObject({
      state: 'failed',
      error: 'interrupted by restart',
    });
  });

  it('leaves a request of a server before instance ids to it until no request could live on', async () => {
    const nonce = await leftBehind(null);
    expect((await h.restart().recover()).failed).toEqual([]);
    expect((await getGuardianRequest(h.store.db, nonce))?.state).toBe('received');
    h.clock.now += UNOWNED_REQUEST_GRACE_SECONDS + 1;
    expect((await h.restart().recover()).failed).toEqual([nonce]);
  });
});
