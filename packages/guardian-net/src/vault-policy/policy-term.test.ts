// The vault policy on requests that write layout 2 (docs/protocol.md, "Leaving without the
// guardians"): the quote's term must be the protocol's at this guardian's own tip, within
// TERM_TIP_TOLERANCE_BLOCKS, and the record must carry it; a layout 1 vault moves to layout 2 on its
// next action, and a layout 2 vault is spent through its update leaf.
import { beforeEach, describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import {
  DEVNET_TERM_CONFIG,
  TERM_TIP_TOLERANCE_BLOCKS,
  vaultTermAt,
  type VaultTerm,
} from '@unit/protocol';
import {
  draftRequest,
  fixedInputs,
  inputContext,
  inputMessage,
  Wallet,
  type Draft,
  type OracleQuote,
} from '../../test/vault-requests';
import { GROUP, guardianPrice, QUORUM_SET, StandInChain, vaultOf } from '../../test/policy-chain';
import type { PolicyEnv, VaultPolicy } from './policy';
import { policyOn, requestBase, signedQuote } from '../../test/policy-world';

const PRICE = 9_500_000;
/** The term the app quotes: the protocol's at the tip the app read (none: layout 1). */
let quotedTerm: VaultTerm | null;
const quote = (th: number, ts: number): OracleQuote => signedQuote(th, ts, { term: quotedTerm });

let chain: StandInChain;
let policy: VaultPolicy;
const env: PolicyEnv = {
  groupKey: hex.encode(GROUP),
  ownPrice: { fresh: true, price: { ...guardianPrice(1, PRICE), sig: '00' } },
  set: QUORUM_SET,
};

beforeEach(() => {
  quotedTerm = null;
  chain = new StandInChain();
  policy = policyOn(chain);
});

const base = (wallet: Wallet) => requestBase(wallet, quote);

const open = (wallet: Wallet) =>
  draftRequest({
    ...base(wallet),
    action: 'open',
    ...chain.fund(wallet),
    btc: 1_000_000n,
    unit: 500_00n,
  });

function deposit(wallet: Wallet, opened: Draft): Promise<Draft> {
  chain.confirm(opened);
  const vault = vaultOf(wallet, opened);
  return draftRequest({
    ...base(wallet),
    action: 'deposit',
    ...chain.fund(wallet),
    vault,
    btc: 50_000n,
    unit: 0n,
  });
}

function ask(draft: Draft, input: number) {
  const role = fixedInputs(draft.action)[input]!.role;
  return policy.decide(
    {
      sessionId: '00'.repeat(32),
      message: inputMessage(draft.request, input, role, GROUP),
      context: inputContext(draft, input, role),
    },
    env,
  );
}

describe('the vault policy on a term (layout 2)', () => {
  it('approves an open and a deposit writing layout 2, the layout 1 vault moving on its action', async () => {
    const wallet = new Wallet('lena', TEST_NETWORK);
    const opened = await open(wallet);
    expect(opened.built.state.term).toBeUndefined();
    expect(await ask(opened, 0)).toEqual({ approve: true });
    quotedTerm = vaultTermAt(chain.tip, DEVNET_TERM_CONFIG);
    const moved = await deposit(wallet, opened);
    expect(moved.built.state.term).toMatchObject(quotedTerm);
    expect(await ask(moved, 0)).toEqual({ approve: true });
    // The layout 2 vault is spent through its update leaf on its next action.
    const again = await deposit(wallet, moved);
    expect(await ask(again, 0)).toEqual({ approve: true });
  });

  it('accepts a term from a tip a few blocks away, and refuses one further or with another grace', async () => {
    const wallet = new Wallet('milo', TEST_NETWORK);
    for (const [offset, approve] of [
      [TERM_TIP_TOLERANCE_BLOCKS, true],
      [-TERM_TIP_TOLERANCE_BLOCKS, true],
      [TERM_TIP_TOLERANCE_BLOCKS + 1, false],
      [-TERM_TIP_TOLERANCE_BLOCKS - 1, false],
    ] as const) {
      quotedTerm = vaultTermAt(chain.tip + offset, DEVNET_TERM_CONFIG);
      const answer = await ask(await open(wallet), 0);
      if (approve) expect(answer).toEqual({ approve: true });
      else
        expect(answer).toMatchObject({
          approve: false,
          reason: expect.stringMatching(/not the chain's term/),
        });
    }
    const term = vaultTermAt(chain.tip, DEVNET_TERM_CONFIG);
    quotedTerm = { ...term, exitHeight: term.exitHeight + 1 };
    expect(await ask(await open(wallet), 0)).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/20 blocks after/),
    });
  });

  it("refuses a record that does not carry the quote's term", async () => {
    const wallet = new Wallet('nora', TEST_NETWORK);
    const untermed = await open(wallet);
    const term = vaultTermAt(chain.tip, DEVNET_TERM_CONFIG);
    const claimed = {
      ...untermed,
      request: {
        ...untermed.request,
        quote: {
          ...untermed.request.quote,
          term: { settle_height: term.settleHeight, exit_height: term.exitHeight },
        },
      },
    };
    // The guardian rebuilds the output with the term: the untermed vault is not it.
    expect(await ask(claimed, 0)).toMatchObject({
      approve: false,
      reason: expect.stringContaining('output 0 is not the expected vault'),
    });
  });
});
