// The vault policy on speed-ups: a real borrow, signed by the wallet, the group and the treasury, in
// the stand-in mempool, and the wallet's BIP-125 replacement of it built by the speedUp declaration.
// The honest replacement is approved; each way it can be wrong is refused, with its reason.
import { beforeEach, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import { TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  addLiquidationWitness,
  cosignVaultInput,
  declarationOf,
  finalize,
  signUserInputs,
  speedUp,
  taprootSighash,
  TAPSCRIPT_LEAF_VERSION,
  thresholdSecret,
  updateLeafScript,
} from '@unit/bitcoin';
import type { SignedVaultRequest, VaultAction } from '@unit/protocol';
import {
  GROUP,
  GROUP_KEY,
  ORACLE_SECRET,
  StandInChain,
  TREASURY_SCRIPT,
  signTreasuryAsGroup,
  vaultOf,
} from '../../test/policy-chain';
import {
  draftRequest,
  inputMessage,
  keyOf,
  Wallet,
  type Draft,
  type OracleQuote,
  type Role,
} from '../../test/vault-requests';
import type { PolicyEnv, VaultPolicy } from './policy';
import { policyOn, requestBase, signedQuote } from '../../test/policy-world';

const OPTS = { allowUnknownOutputs: true } as const;
const PRICE_CENTS = 9_500_000;

const quote = (th: number, ts: number): OracleQuote =>
  signedQuote(th, ts, { price: PRICE_CENTS, quorum: false });

// A speed-up reads no price: a guardian without feeds decides it all the same.
const env: PolicyEnv = { groupKey: hex.encode(GROUP), ownPrice: null };
let chain: StandInChain;
let policy: VaultPolicy;

beforeEach(() => {
  chain = new StandInChain();
  policy = policyOn(chain);
});

const base = (wallet: Wallet) => requestBase(wallet, quote);

/** A vault opened (confirmed), then a borrow of it broadcast: signed by all three, in the mempool. */
async function pendingBorrow(wallet: Wallet): Promise<{ draft: Draft; txid: string }> {
  const opened = await draftRequest({
    ...base(wallet),
    action: 'open',
    ...chain.fund(wallet),
    btc: 1_000_000n,
    unit: 500_00n,
  });
  chain.confirm(opened);
  const draft = await draftRequest({
    ...base(wallet),
    action: 'borrow',
    ...chain.fund(wallet),
    vault: vaultOf(wallet, opened),
    btc: 0n,
    unit: 50_00n,
  });
  let psbt = base64.decode(draft.request.psbt);
  psbt = cosignVaultInput(psbt, GROUP_KEY, 0);
  psbt = signTreasuryAsGroup(psbt, 1);
  return { draft, txid: chain.broadcast(finalize(psbt)) };
}

/**
 * The wallet's replacement of its `action` at `feeRate`; `tamper` edits it before the wallet signs
 * (its vault input with the vault key, every other of its inputs, added ones too, with its payment
 * key).
 */
function replacement(
  wallet: Wallet,
  originalTxid: string,
  feeRate: number,
  tamper?: (tx: Transaction) => void,
  action: VaultAction = 'borrow',
): Uint8Array {
  const original = chain.whole.get(originalTxid)!;
  const built = speedUp.build({
    action,
    original: { hex: original.hex, prevouts: original.prevouts },
    wallet: wallet.vaultWallet,
    treasury: { script: TREASURY_SCRIPT },
    utxos: [],
    feeRate,
  });
  let psbt = built.psbt;
  const toSign = [...built.signInputs.user];
  if (tamper) {
    const tx = Transaction.fromPSBT(psbt, OPTS);
    const before = tx.inputsLength;
    tamper(tx);
    for (let i = before; i < tx.inputsLength; i++) toSign.push(i);
    psbt = tx.toPSBT(0);
  }
  const vaultIndex = declarationOf(action).spends.findIndex((s) => s.role === 'vault');
  for (const index of toSign)
    psbt = signUserInputs(psbt, index === vaultIndex ? wallet.vaultKey : wallet.paymentKey, [
      index,
    ]);
  return psbt;
}

/** The coordinator's session for input `input` of the speed-up (network-signer.ts, speedup.ts). */
function ask(
  wallet: Wallet,
  original: { draft: Draft; txid: string },
  psbt: Uint8Array,
  input = 0,
  role: Role = 'vault',
  secret?: Uint8Array,
) {
  const request = {
    original_txid: original.txid,
    vault_pubkey: wallet.vaultPubkey,
    psbt: base64.encode(psbt),
    action: original.draft.action,
    original_nonce: original.draft.request.nonce,
  };
  const message = inputMessage(
    request as unknown as SignedVaultRequest<unknown>,
    input,
    role,
    GROUP,
    secret,
  );
  const context = {
    kind: 'vault-input',
    action: 'speedup',
    request,
    input,
    role,
    ...(secret ? { secret: hex.encode(secret) } : {}),
  };
  return policy.decide({ sessionId: '00'.repeat(32), message, context }, env);
}

describe('the vault policy on a speed-up', () => {
  it('approves the honest replacement: only the fee changes, at a higher rate', async () => {
    const alice = new Wallet('alice', TEST_NETWORK);
    const original = await pendingBorrow(alice);
    const psbt = replacement(alice, original.txid, 10);
    expect(await ask(alice, original, psbt)).toEqual({ approve: true });
    // Its inputs are spent, by the original only: spent by any other transaction, it is refused.
    const vaultInput = Transaction.fromPSBT(psbt, OPTS).getInput(0);
    chain.spentOutputs.set(`${hex.encode(vaultInput.txid!)}:${vaultInput.index}`, 'ee'.repeat(32));
    expect(await ask(alice, original, psbt)).toEqual({
      approve: false,
      reason: "input 0 is already spent on this guardian's chain",
    });
  });

  it('refuses a replacement that changes an output other than the change', async () => {
    const bob = new Wallet('bob', TEST_NETWORK);
    const original = await pendingBorrow(bob);
    const psbt = replacement(bob, original.txid, 10, (tx) =>
      tx.updateOutput(0, { amount: tx.getOutput(0).amount! - 5_000n }),
    );
    expect(await ask(bob, original, psbt)).toEqual({
      approve: false,
      reason: expect.stringMatching(
        /^Invalid replacement: output 0's amount differs from the original/,
      ),
    });
  });

  it('refuses a lower fee, and a higher fee that does not beat the original by BIP-125', async () => {
    const carol = new Wallet('carol', TEST_NETWORK);
    const original = await pendingBorrow(carol);
    expect(await ask(carol, original, replacement(carol, original.txid, 1))).toEqual({
      approve: false,
      reason: 'Invalid replacement: the replacement pays no more fee',
    });
    // 10 sats more than the original: a higher fee, not the relay fee of its own size.
    const change = (tx: Transaction) => tx.outputsLength - 1;
    const tenMore = replacement(carol, original.txid, 2, (tx) => {
      const originalTx = Transaction.fromRaw(hex.decode(chain.whole.get(original.txid)!.hex), OPTS);
      const was = originalTx.getOutput(change(originalTx)).amount!;
      tx.updateOutput(change(tx), { amount: was - 10n });
    });
    expect(await ask(carol, original, tenMore)).toEqual({
      approve: false,
      reason: expect.stringMatching(
        /^the replacement's extra fee does not pay the relay fee for its size \(\d+ sats needed, \d+ paid\)$/,
      ),
    });
  });

  it('refuses when the original is not the named action or request, confirmed, or not in its mempool', async () => {
    const dave = new Wallet('dave', TEST_NETWORK);
    const original = await pendingBorrow(dave);
    const psbt = replacement(dave, original.txid, 10);
    // Not the action or the request the original is: its state record says which.
    const asDeposit = { ...original, draft: { ...original.draft, action: 'deposit' as const } };
    expect(await ask(dave, asDeposit, psbt)).toEqual({
      approve: false,
      reason: 'the transaction it replaces is not a deposit',
    });
    const otherRequest = {
      ...original,
      draft: { ...original.draft, request: { ...original.draft.request, nonce: 'ab'.repeat(16) } },
    };
    expect(await ask(dave, otherRequest, psbt)).toEqual({
      approve: false,
      reason: "the transaction it replaces is not the original request's",
    });
    chain.mine(original.txid);
    expect(await ask(dave, original, psbt)).toEqual({
      approve: false,
      reason: 'the transaction it replaces is already confirmed',
    });
    chain.whole.delete(original.txid);
    expect(await ask(dave, original, psbt)).toEqual({
      approve: false,
      reason: "the transaction it replaces is not in this guardian's mempool",
    });
  });

  it("refuses another vault's input, even signed by the requester's own vault key", async () => {
    const erin = new Wallet('erin', TEST_NETWORK);
    const frank = new Wallet('frank', TEST_NETWORK);
    const franks = await pendingBorrow(frank);
    // Frank's borrow sped up in Erin's name: Erin signs input 0 under her own update leaf.
    const psbt = replacement(frank, franks.txid, 10);
    const tx = Transaction.fromPSBT(psbt, OPTS);
    const prevouts = Array.from({ length: tx.inputsLength }, (_, i) => tx.getInput(i).witnessUtxo!);
    const leaf = updateLeafScript(hex.decode(erin.vaultPubkey), GROUP);
    const signature = schnorr.sign(taprootSighash(tx, prevouts, 0, leaf), erin.vaultKey);
    const leafHash = tapLeafHash(leaf, TAPSCRIPT_LEAF_VERSION);
    tx.updateInput(
      0,
      { tapScriptSig: [[{ pubKey: pubSchnorr(erin.vaultKey), leafHash }, signature]] },
      true,
    );
    expect(await ask(erin, franks, tx.toPSBT(0))).toEqual({
      approve: false,
      reason: 'the vault input was opened with another vault key',
    });
  });

  it('refuses a vault input the vault key did not sign', async () => {
    const gina = new Wallet('gina', TEST_NETWORK);
    const original = await pendingBorrow(gina);
    const tx = Transaction.fromPSBT(replacement(gina, original.txid, 10), OPTS);
    const [entry] = tx.getInput(0).tapScriptSig!;
    const forged = entry![1].slice();
    forged[3]! ^= 1;
    tx.updateInput(0, { tapScriptSig: [[entry![0], undefined]] } as never, true);
    tx.updateInput(0, { tapScriptSig: [[entry![0], forged]] }, true);
    expect(await ask(gina, original, tx.toPSBT(0))).toEqual({
      approve: false,
      reason: 'the vault input is not signed by the vault key',
    });
  });

  it('approves a payment input the wallet adds while it is unspent; refused once spent, or twice', async () => {
    const henry = new Wallet('henry', TEST_NETWORK);
    const original = await pendingBorrow(henry);
    const [pay] = chain.fund(henry).payments;
    const addPayment = (outpoint: { txid: string; vout: number }) => (tx: Transaction) => {
      const change = tx.outputsLength - 1;
      tx.addInput({
        txid: outpoint.txid,
        index: outpoint.vout,
        witnessUtxo: { script: pay!.script, amount: pay!.value },
        sequence: tx.getInput(0).sequence!,
      });
      tx.updateOutput(change, { amount: tx.getOutput(change).amount! + pay!.value });
    };
    const psbt = replacement(henry, original.txid, 10, addPayment(pay!));
    const added = Transaction.fromPSBT(psbt, OPTS).inputsLength - 1;
    expect(await ask(henry, original, psbt)).toEqual({ approve: true });
    chain.spentOutputs.set(`${pay!.txid}:${pay!.vout}`, 'ee'.repeat(32));
    expect(await ask(henry, original, psbt)).toEqual({
      approve: false,
      reason: `input ${added} is already spent on this guardian's chain`,
    });
    // The original's own payment input again, as if added: spent by the original, but twice here.
    const originalTx = Transaction.fromPSBT(base64.decode(original.draft.request.psbt), OPTS);
    const own = originalTx.getInput(2);
    expect(own.witnessUtxo!.script).toEqual(pay!.script);
    const twice = replacement(
      henry,
      original.txid,
      10,
      addPayment({ txid: hex.encode(own.txid!), vout: own.index! }),
    );
    expect(await ask(henry, original, twice)).toEqual({
      approve: false,
      reason: `input ${added} spends an outpoint twice`,
    });
  });

  it('a repossess: approves both sessions with the secret; refuses a secret that does not open the claimed vault', async () => {
    const owner = new Wallet('iris', TEST_NETWORK);
    const claimant = new Wallet('jack', TEST_NETWORK);
    const opens = [] as Draft[];
    for (const [w, btc, unit] of [
      [owner, 1_000_000n, 550_00n],
      [claimant, 2_000_000n, 100_00n],
    ] as const) {
      const draft = await draftRequest({ ...base(w), action: 'open', ...chain.fund(w), btc, unit });
      chain.confirm(draft);
      opens.push(draft);
    }
    const draft = await draftRequest({
      ...base(claimant),
      action: 'repossess',
      payments: chain.fund(claimant).payments,
      vault: vaultOf(claimant, opens[1]!),
      liquidated: vaultOf(owner, opens[0]!),
      liquidatedVaultId: opens[0]!.txid,
      btc: 0n,
      unit: 0n,
    });
    const { thresholdCents, quoteStamp } = opens[0]!.built.state;
    const secret = thresholdSecret(ORACLE_SECRET, thresholdCents, quoteStamp);
    let signed = base64.decode(draft.request.psbt);
    signed = addLiquidationWitness(signed, 0, { secret, guardianKey: GROUP_KEY });
    signed = cosignVaultInput(signed, GROUP_KEY, 1);
    const original = { draft, txid: chain.broadcast(finalize(signed)) };
    const psbt = replacement(claimant, original.txid, 10, undefined, 'repossess');
    expect(await ask(claimant, original, psbt, 0, 'liquidation', secret)).toEqual({
      approve: true,
    });
    expect(await ask(claimant, original, psbt, 1, 'vault', secret)).toEqual({ approve: true });
    const wrong = keyOf('not the secret');
    expect(await ask(claimant, original, psbt, 1, 'vault', wrong)).toEqual({
      approve: false,
      reason: "the secret does not open the claimed vault's liquidation leaf",
    });
  });
});
