// A guardian checks a vault request once for all of its sessions: a borrow's vault and treasury
// inputs, asked at once (as the coordinator's two sessions come), read the chain for one check;
// what differs per input (the sighash, the role) is still checked for each; a refusal is not kept,
// and a kept approval ends when the request's quote ages out.
import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_NETWORK } from '@scure/btc-signer';
import { ORACLE_QUOTE_MAX_AGE_SECONDS } from '@unit/protocol';
import {
  draftRequest,
  fixedInputs,
  inputContext,
  inputMessage,
  Wallet,
  type Draft,
} from '../../test/vault-requests';
import { GROUP, NOW, StandInChain, vaultOf } from '../../test/policy-chain';
import { policyEnv, policyOn, requestBase, signedQuote } from '../../test/policy-world';
import type { VaultPolicy } from './policy';

const env = policyEnv();

/** The chain view, counting its reads of previous outputs. */
class CountingChain extends StandInChain {
  reads = 0;
  override async txOutputs(txid: string) {
    this.reads++;
    return super.txOutputs(txid);
  }
}

let chain: CountingChain;
let policy: VaultPolicy;
let now = NOW;
beforeEach(() => {
  now = NOW;
  chain = new CountingChain();
  policy = policyOn(chain, () => now);
});

const base = (wallet: Wallet) => requestBase(wallet, signedQuote);

async function borrow(): Promise<Draft> {
  const wallet = new Wallet('carol', TEST_NETWORK);
  const opened = await draftRequest({ ...base(wallet), action: 'open', ...chain.fund(wallet), btc: 1_000_000n, unit: 500_00n }); // prettier-ignore
  chain.confirm(opened);
  return draftRequest({ ...base(wallet), action: 'borrow', ...chain.fund(wallet), vault: vaultOf(wallet, opened), btc: 0n, unit: 50_00n }); // prettier-ignore
}

function ask(draft: Draft, input: number, message?: Uint8Array) {
  const role = fixedInputs(draft.action)[input]!.role;
  return policy.decide(
    {
      sessionId: `${'00'.repeat(16)}:${input}`,
      message: message ?? inputMessage(draft.request, input, role, GROUP),
      context: inputContext(draft, input, role),
    },
    env,
  );
}

describe('one check per vault request, however many sessions sign it', () => {
  it('a borrow’s two inputs asked at once: one check, one round of chain reads, both approved', async () => {
    const draft = await borrow();
    chain.reads = 0;
    expect(await Promise.all([ask(draft, 0), ask(draft, 1)])).toEqual([
      { approve: true },
      { approve: true },
    ]);
    expect(policy.requests.checks).toBe(1);
    const readsOnce = chain.reads;
    expect(readsOnce).toBeGreaterThan(0);
    // The same request asked again (another session, another attempt): no chain read at all.
    expect(await ask(draft, 0)).toEqual({ approve: true });
    expect(chain.reads).toBe(readsOnce);
    expect(policy.requests.checks).toBe(1);
  });

  it('still checks each session’s own message: a kept approval signs no other input’s sighash', async () => {
    const draft = await borrow();
    expect(await ask(draft, 0)).toEqual({ approve: true });
    const treasuryMessage = inputMessage(draft.request, 1, 'treasury', GROUP);
    expect(await ask(draft, 0, treasuryMessage)).toEqual({
      approve: false,
      reason: "the message is not this request's input 0",
    });
  });

  it('keeps no refusal, and no approval past the quote’s age', async () => {
    const draft = await borrow();
    // Its vault not on the chain: refused, and checked again when asked again.
    const txs = new Map(chain.txs);
    chain.txs.clear();
    expect((await ask(draft, 0)).approve).toBe(false);
    expect((await ask(draft, 0)).approve).toBe(false);
    expect(policy.requests.checks).toBe(2);
    // Back on the chain: approved (the refusal was not kept).
    for (const [k, v] of txs) chain.txs.set(k, v);
    expect(await ask(draft, 0)).toEqual({ approve: true });
    expect(policy.requests.checks).toBe(3);
    const fresh = await borrow();
    expect(await ask(fresh, 0)).toEqual({ approve: true });
    now = NOW + ORACLE_QUOTE_MAX_AGE_SECONDS + 1;
    const late = await ask(fresh, 1);
    expect(late).toEqual({ approve: false, reason: expect.stringMatching(/expired/) });
    expect(policy.requests.checks).toBe(5);
  });
});
