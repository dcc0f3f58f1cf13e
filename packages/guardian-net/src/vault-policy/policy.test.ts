// The vault policy on real vault requests (built through the actions' declarations and signed by
// the wallet) against a stand-in chain view at the edge: every refusal a guardian makes on its own,
// and the approvals of honest requests.
import { beforeEach, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import { p2tr, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { thresholdSecret } from '@unit/bitcoin';
import {
  draftRequest,
  fixedInputs,
  inputContext,
  inputMessage,
  keyOf,
  Wallet,
  type Draft,
  type OracleQuote,
} from '../../test/vault-requests';
import {
  GROUP,
  guardianPrice,
  ORACLE_KEY,
  ORACLE_SECRET,
  QUORUM_SET,
  StandInChain,
  vaultOf,
} from '../../test/policy-chain';
import type { SignedQuote } from '@unit/protocol/wire';
import { quoteDigest } from './context';
import type { PolicyEnv, VaultPolicy } from './policy';
import { policyEnv, policyOn, requestBase, signedQuote } from '../../test/policy-world';

let priceCents = 9_500_000;
const quote = (th: number, ts: number): OracleQuote => signedQuote(th, ts, { price: priceCents });

let chain: StandInChain;
let policy: VaultPolicy;
const env = (cents = priceCents): PolicyEnv => policyEnv(cents);

beforeEach(() => {
  priceCents = 9_500_000;
  chain = new StandInChain();
  policy = policyOn(chain);
});

const base = (wallet: Wallet) => requestBase(wallet, quote);

async function open(wallet: Wallet, btc = 1_000_000n, unit = 500_00n): Promise<Draft> {
  return draftRequest({ ...base(wallet), action: 'open', ...chain.fund(wallet), btc, unit });
}

async function borrow(wallet: Wallet, opened: Draft, unit = 50_00n): Promise<Draft> {
  chain.confirm(opened);
  const vault = vaultOf(wallet, opened);
  return draftRequest({
    ...base(wallet),
    action: 'borrow',
    ...chain.fund(wallet),
    vault,
    btc: 0n,
    unit,
  });
}

/** Asks the policy for one fixed input, with the message the coordinator would send. */
function ask(
  draft: Draft,
  input: number,
  overrides: Partial<{
    message: Uint8Array;
    context: unknown;
    env: PolicyEnv;
    secret: Uint8Array;
  }> = {},
) {
  const role = fixedInputs(draft.action)[input]!.role;
  const message =
    overrides.message ?? inputMessage(draft.request, input, role, GROUP, overrides.secret);
  return policy.decide(
    {
      sessionId: '00'.repeat(32),
      message,
      context: overrides.context ?? inputContext(draft, input, role, overrides.secret),
    },
    overrides.env ?? env(),
  );
}

describe('the vault policy of one guardian', () => {
  it('approves every fixed input of an honest open and borrow', async () => {
    const wallet = new Wallet('alice', TEST_NETWORK);
    const opened = await open(wallet);
    expect(fixedInputs('open')).toEqual([{ input: 0, role: 'treasury' }]);
    expect(await ask(opened, 0)).toEqual({ approve: true });
    const borrowed = await borrow(wallet, opened);
    expect(fixedInputs('borrow').map((i) => i.role)).toEqual(['vault', 'treasury']);
    expect(await ask(borrowed, 0)).toEqual({ approve: true });
    expect(await ask(borrowed, 1)).toEqual({ approve: true });
  });

  it("refuses a treasury input that is not the group key's own output, whatever the app serves", async () => {
    const wallet = new Wallet('erin', TEST_NETWORK);
    const funded = chain.fund(wallet);
    // A server's own treasury key, as before the treasury became the group's.
    const other = p2tr(pubSchnorr(keyOf('server treasury')), undefined, TEST_NETWORK).script;
    chain.txs.get(funded.treasury!.txid)![1] = { script: other, value: 10_000n, address: 'x' };
    const opened = await draftRequest({
      ...base(wallet),
      action: 'open',
      ...funded,
      treasury: { ...funded.treasury!, script: other },
      btc: 1_000_000n,
      unit: 500_00n,
    });
    expect(await ask(opened, 0)).toEqual({
      approve: false,
      reason: 'the treasury input is not the treasury',
    });
  });

  it("refuses a message that is not this request's input: another input's sighash, or tampered", async () => {
    const wallet = new Wallet('bob', TEST_NETWORK);
    const borrowed = await borrow(wallet, await open(wallet));
    const treasuryMessage = inputMessage(borrowed.request, 1, 'treasury', GROUP);
    expect(await ask(borrowed, 0, { message: treasuryMessage })).toEqual({
      approve: false,
      reason: "the message is not this request's input 0",
    });
    const flipped = inputMessage(borrowed.request, 1, 'treasury', GROUP);
    flipped[5]! ^= 1;
    expect(await ask(borrowed, 1, { message: flipped })).toMatchObject({
      reason: "the message is not this request's input 1",
    });
  });

  it('refuses a wrong role, an unknown input, a malformed or oversized context', async () => {
    const wallet = new Wallet('carol', TEST_NETWORK);
    const borrowed = await borrow(wallet, await open(wallet));
    const context = inputContext(borrowed, 0, 'treasury');
    expect(await ask(borrowed, 0, { context })).toEqual({
      approve: false,
      reason: 'input 0 of borrow is the vault input, not treasury',
    });
    expect(await ask(borrowed, 0, { context: { ...context, input: 2 } })).toMatchObject({
      reason: 'input 2 is not a fixed input of borrow',
    });
    expect(await ask(borrowed, 0, { context: { ...context, action: 'steal' } })).toMatchObject({
      reason: expect.stringContaining('the request context is malformed (action'),
    });
    const big = { ...context, pad: 'x'.repeat(60_000) };
    expect(await ask(borrowed, 0, { context: big })).toMatchObject({
      reason: expect.stringContaining('the request context is over'),
    });
  });

  it('refuses a spent prevout, and one the PSBT claims with another value than the chain', async () => {
    const wallet = new Wallet('dave', TEST_NETWORK);
    const opened = await open(wallet);
    const borrowed = await borrow(wallet, opened);
    chain.spentOutputs.set(`${opened.txid}:0`, 'ee'.repeat(32));
    expect(await ask(borrowed, 1)).toEqual({
      approve: false,
      reason: "input 0 is already spent on this guardian's chain",
    });
    chain.spentOutputs.delete(`${opened.txid}:0`);
    const outputs = chain.txs.get(opened.txid)!;
    outputs[0] = { ...outputs[0]!, value: outputs[0]!.value + 1n };
    expect(await ask(borrowed, 0)).toMatchObject({
      reason: "input 0 does not match the output on this guardian's chain",
    });
  });

  it('refuses a vault input the vault key did not sign', async () => {
    const wallet = new Wallet('erin', TEST_NETWORK);
    const borrowed = await borrow(wallet, await open(wallet));
    const signed = Transaction.fromPSBT(base64.decode(borrowed.request.psbt), {
      allowUnknownOutputs: true,
    });
    const [entry] = signed.getInput(0).tapScriptSig!;
    const forged = entry![1].slice();
    forged[3]! ^= 1;
    const tx = Transaction.fromPSBT(borrowed.built.psbt, { allowUnknownOutputs: true });
    tx.updateInput(0, { tapScriptSig: [[entry![0], forged]] }, true);
    const draft = {
      ...borrowed,
      request: { ...borrowed.request, psbt: base64.encode(tx.toPSBT(0)) },
    };
    expect(await ask(draft, 1)).toEqual({
      approve: false,
      reason: 'the vault input is not signed by the vault key',
    });
  });

  it('refuses a quote more than 3% from its own price, and without a fresh price of its own', async () => {
    const wallet = new Wallet('frank', TEST_NETWORK);
    const opened = await open(wallet);
    expect(await ask(opened, 0, { env: env(9_500_000 * 1.03) })).toEqual({ approve: true });
    expect(await ask(opened, 0, { env: env(9_500_000 * 1.04) })).toEqual({
      approve: false,
      reason: "the quote's price $95,000.00 is more than 3% from this guardian's $98,800.00",
    });
    const stale: PolicyEnv = {
      groupKey: hex.encode(GROUP),
      ownPrice: { fresh: false, reason: '1 fresh price source' },
      set: QUORUM_SET,
    };
    expect(await ask(opened, 0, { env: stale })).toMatchObject({
      reason: 'this guardian has no fresh price (1 fresh price source)',
    });
  });

  it("refuses a quote that is not the guardians' quorum, though the oracle signed it (quote-quorum.ts)", async () => {
    const wallet = new Wallet('fay', TEST_NETWORK);
    const opened = await open(wallet);
    const { quote } = opened.request;
    const withQuote = (q: SignedQuote) => ({ ...opened, request: { ...opened.request, quote: q } });
    const { quorum: _evidence, ...bare } = quote;
    expect(await ask(withQuote(bare), 0)).toEqual({
      approve: false,
      reason: "the price quote carries no guardian prices (2 of this set's guardians needed)",
    });
    expect(await ask(withQuote({ ...quote, quorum: quote.quorum!.slice(0, 1) }), 0)).toEqual({
      approve: false,
      reason: 'the price quote is not a quorum of guardian prices: 1 guardian prices, 2 needed',
    });
    // The oracle signs 1% more than the guardians' median: within this guardian's 3%, still refused.
    const fields = { ...quote, price_cents: Math.round(quote.price_cents * 1.01) };
    const signature = hex.encode(schnorr.sign(quoteDigest(fields), ORACLE_KEY));
    expect(await ask(withQuote({ ...fields, signature }), 0)).toEqual({
      approve: false,
      reason:
        'the price quote is not a quorum of guardian prices: the quote is not the median 9500000',
    });
    // Without the set the evidence cannot be checked: refused, never waved through.
    expect(await ask(opened, 0, { env: { ...env(), set: undefined } })).toMatchObject({
      reason: 'this guardian has no published set to check the price quorum with',
    });
  });

  it("refuses a record that does not commit to the request's price quorum (guardianCheck)", async () => {
    const wallet = new Wallet('ivy', TEST_NETWORK);
    // The record is built on one quote; the request carries the same quote with `evidence`, the
    // guardians' signed prices (each signature is fresh: the commitment covers them too).
    const evidence = [guardianPrice(1, priceCents), guardianPrice(2, priceCents)];
    const openWith = async (recorded: (th: number, ts: number) => OracleQuote) => {
      const draft = await draftRequest({
        ...base(wallet),
        quote: recorded,
        action: 'open',
        ...chain.fund(wallet),
        btc: 1_000_000n,
        unit: 500_00n,
      });
      const withEvidence = { ...draft.request.quote, quorum: evidence };
      return { ...draft, request: { ...draft.request, quote: withEvidence } };
    };
    const uncommitted = await openWith((th, ts) => {
      const { quorum: _left, ...bare } = quote(th, ts);
      return bare;
    });
    expect(await ask(uncommitted, 0)).toEqual({
      approve: false,
      reason: "Invalid transaction: the state record does not commit to the quote's price quorum",
    });
    const another = await openWith((th, ts) => ({
      ...quote(th, ts),
      quorum: [guardianPrice(1, priceCents), guardianPrice(3, priceCents)],
    }));
    expect(await ask(another, 0)).toEqual({
      approve: false,
      reason:
        "Invalid transaction: the state record's price quorum commitment is not the hash of the quote's quorum",
    });
    // The same request with the record's own quorum is approved: only the commitment differed.
    const honest = await openWith((th, ts) => ({ ...quote(th, ts), quorum: evidence }));
    expect(await ask(honest, 0)).toEqual({ approve: true });
  });

  it('refuses a transaction that breaks a rule: it issues more UNIT than the request', async () => {
    const wallet = new Wallet('gina', TEST_NETWORK);
    const opened = await open(wallet);
    const lying = {
      ...opened,
      request: {
        ...opened.request,
        payload: { ...(opened.request.payload as object), borrow_amount: 400_00 },
      },
    };
    expect(await ask(lying, 0)).toMatchObject({
      approve: false,
      reason: expect.stringContaining('does not match the request'),
    });
  });

  it("liquidation: only at or under its own price, read from the claimed vault's record, with the right secret", async () => {
    const owner = new Wallet('harry', TEST_NETWORK);
    const claimant = new Wallet('iris', TEST_NETWORK);
    const liquidatedOpen = await open(owner, 1_000_000n, 550_00n);
    chain.confirm(liquidatedOpen);
    const claimantOpen = await open(claimant, 2_000_000n, 100_00n);
    chain.confirm(claimantOpen);
    const th = Number(liquidatedOpen.built.state.thresholdCents);
    priceCents = th - 100;
    const draft = await draftRequest({
      ...base(claimant),
      action: 'repossess',
      payments: chain.fund(claimant).payments,
      vault: vaultOf(claimant, claimantOpen),
      liquidated: vaultOf(owner, liquidatedOpen),
      liquidatedVaultId: liquidatedOpen.txid,
      btc: 0n,
      unit: 0n,
    });
    const secret = thresholdSecret(
      ORACLE_SECRET,
      BigInt(th),
      liquidatedOpen.built.state.quoteStamp,
    );
    expect(fixedInputs('repossess').map((i) => i.role)).toEqual(['liquidation', 'vault']);
    expect(await ask(draft, 0, { secret, env: env(th) })).toEqual({ approve: true });
    expect(await ask(draft, 1, { secret, env: env(th) })).toEqual({ approve: true });
    expect(await ask(draft, 0, { secret, env: env(th + 1_000) })).toEqual({
      approve: false,
      reason: expect.stringMatching(
        /^this guardian's price \$[\d,.]+ is above the claimed vault's threshold/,
      ),
    });
    const wrong = keyOf('not the secret');
    const context = inputContext(draft, 0, 'liquidation', wrong);
    expect(await ask(draft, 0, { secret, context, env: env(th) })).toMatchObject({
      reason: "the message is not this request's input 0",
    });
    expect(await ask(draft, 0, { secret: wrong, env: env(th) })).toMatchObject({
      reason: "the secret does not open the claimed vault's liquidation leaf",
    });
  });
});
