// The vault policy on a settlement at the term (settle.ts): approved only at or past the vault's
// term on this guardian's own chain, the vault unspent and of layout 2, the quote the set's price
// quorum near this guardian's own price, and the transaction exactly the split that price makes.
import { beforeEach, describe, expect, it } from 'vitest';
import { base64, hex } from '@scure/base';
import { TEST_NETWORK, Transaction } from '@scure/btc-signer';
import {
  planSettlement,
  settlementSighash,
  type SettlementRequest,
  type VaultOutput,
  type VaultUtxo,
} from '@unit/bitcoin';
import {
  DEVNET_TERM_CONFIG,
  SETTLEMENT_MAX_FEE_RATE,
  vaultTermAt,
  type VaultTerm,
} from '@unit/protocol';
import { draftRequest, Wallet, type OracleQuote } from '../../test/vault-requests';
import {
  GROUP,
  guardianPrice,
  NOW,
  QUORUM_SET,
  StandInChain,
  TREASURY_SCRIPT,
  vaultOf,
} from '../../test/policy-chain';
import type { PolicyEnv, VaultPolicy } from './policy';
import { policyOn, requestBase, signedQuote } from '../../test/policy-world';

const PRICE = 9_500_000;
let quotedTerm: VaultTerm | null;
const quote = (th: number, ts: number, price = PRICE): OracleQuote =>
  signedQuote(th, ts, { price, term: quotedTerm });

let chain: StandInChain;
let policy: VaultPolicy;
const env: PolicyEnv = {
  groupKey: hex.encode(GROUP),
  ownPrice: { fresh: true, price: { ...guardianPrice(1, PRICE), sig: '00' } },
  set: QUORUM_SET,
};

beforeEach(() => {
  chain = new StandInChain();
  quotedTerm = vaultTermAt(chain.tip, DEVNET_TERM_CONFIG);
  policy = policyOn(chain);
});

/** A vault opened with 0.01 BTC and 500 UNIT of debt, confirmed on the guardian's chain. */
type OpenedVault = VaultUtxo & { output: VaultOutput };
async function openedVault(wallet: Wallet): Promise<OpenedVault> {
  const opened = await draftRequest({
    ...requestBase(wallet, quote),
    action: 'open',
    ...chain.fund(wallet),
    btc: 1_000_000n,
    unit: 500_00n,
  });
  chain.confirm(opened);
  // vaultOf builds the whole output (vaultOutput), settlement leaves included.
  return vaultOf(wallet, opened) as OpenedVault;
}

const settlementOf = (vault: OpenedVault, priceCents = BigInt(PRICE)): SettlementRequest => ({
  vault: vault.output,
  slot: 0,
  utxo: { txid: vault.txid, vout: vault.vout, amount: vault.value },
  debtCents: vault.unitDebt,
  priceCents,
  treasuryScript: TREASURY_SCRIPT,
  feeRate: 2,
});

function ask(
  wallet: Wallet,
  tx: Transaction,
  message: Uint8Array,
  overrides: Record<string, unknown> = {},
) {
  const context = {
    kind: 'settle',
    psbt: base64.encode(tx.toPSBT()),
    vault_pubkey: wallet.vaultPubkey,
    quote: quote(0, NOW),
    fee_rate: 2,
    ...overrides,
  };
  return policy.decide({ sessionId: '00'.repeat(32), message, context }, env);
}

function asked(wallet: Wallet, request: SettlementRequest, overrides?: Record<string, unknown>) {
  const plan = planSettlement(request);
  return ask(wallet, plan.tx, settlementSighash(plan, request), overrides);
}

describe('the vault policy on a settlement at the term', () => {
  it('approves the split at the quorum price at the term, to the sat', async () => {
    const wallet = new Wallet('ossi', TEST_NETWORK);
    const vault = await openedVault(wallet);
    const request = settlementOf(vault);
    // 500 UNIT at $95,000: ceil(50,000 × 10^8 / 9,500,000) = 526,316 sats, tax 78,947.
    const plan = planSettlement(request);
    expect(plan.split).toMatchObject({ debtSats: 526_316n, taxSats: 78_947n });
    expect(plan.treasurySats).toBe(605_263n);
    expect(plan.ownerSats).toBe(vault.value - 605_263n - plan.feeSats);
    chain.tip = quotedTerm!.settleHeight;
    expect(await asked(wallet, request)).toEqual({ approve: true });
  });

  it('refuses before the term on its own chain, and a spent vault', async () => {
    const wallet = new Wallet('pia', TEST_NETWORK);
    const vault = await openedVault(wallet);
    chain.tip = quotedTerm!.settleHeight - 1;
    expect(await asked(wallet, settlementOf(vault))).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/reaches its term at block \d+ and the chain is at block/),
    });
    chain.tip = quotedTerm!.settleHeight;
    chain.spentOutputs.set(`${vault.txid}:${vault.vout}`, 'ab'.repeat(32));
    expect(await asked(wallet, settlementOf(vault))).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/already spent/),
    });
  });

  it('refuses a split at another price than the quorum quote, or another split', async () => {
    const wallet = new Wallet('quinn', TEST_NETWORK);
    const vault = await openedVault(wallet);
    chain.tip = quotedTerm!.settleHeight;
    // Built at a price 1% below the quote's: more sats to the treasury than the quorum price makes.
    expect(await asked(wallet, settlementOf(vault, BigInt(PRICE) - 95_000n))).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/output 0 is not the one the quorum price makes/),
    });
    const plan = planSettlement(settlementOf(vault));
    const more = new Transaction({ lockTime: plan.tx.lockTime, allowUnknownInputs: true });
    more.addInput(plan.tx.getInput(0));
    more.addOutput({ script: TREASURY_SCRIPT, amount: plan.treasurySats });
    more.addOutput({ script: plan.ownerScript, amount: plan.ownerSats - 1_000n });
    more.addOutput({ script: TREASURY_SCRIPT, amount: 1_000n });
    const message = settlementSighash({ ...plan, tx: more }, settlementOf(vault));
    expect(await ask(wallet, more, message)).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/nothing else/),
    });
  });

  it("refuses a quote that is not the set's quorum, not the oracle's, or far from its own price", async () => {
    const wallet = new Wallet('rhea', TEST_NETWORK);
    const vault = await openedVault(wallet);
    chain.tip = quotedTerm!.settleHeight;
    const single = { ...quote(0, NOW), quorum: [guardianPrice(1, PRICE)] };
    expect(await asked(wallet, settlementOf(vault), { quote: single })).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/not a quorum/),
    });
    const forged = { ...quote(0, NOW), signature: 'ab'.repeat(64) };
    expect(await asked(wallet, settlementOf(vault), { quote: forged })).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/not signed by the oracle/),
    });
    const far = BigInt(PRICE) * 2n;
    expect(
      await asked(wallet, settlementOf(vault, far), { quote: quote(0, NOW, Number(far)) }),
    ).toMatchObject({ approve: false, reason: expect.stringMatching(/more than 3% from/) });
  });

  it('refuses another message, another vault key, a malformed context and a layout 1 vault', async () => {
    const wallet = new Wallet('sami', TEST_NETWORK);
    const vault = await openedVault(wallet);
    chain.tip = quotedTerm!.settleHeight;
    const request = settlementOf(vault);
    const plan = planSettlement(request);
    expect(await ask(wallet, plan.tx, new Uint8Array(32).fill(7))).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/not this settlement's sighash/),
    });
    const stranger = new Wallet('stranger', TEST_NETWORK);
    expect(await asked(stranger, request)).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/another vault key/),
    });
    expect(await asked(wallet, request, { fee_rate: 0 })).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/malformed \(fee_rate/),
    });
    // Over the settlement's own cap: the fee is taken from the owner's rest.
    expect(await asked(wallet, request, { fee_rate: SETTLEMENT_MAX_FEE_RATE + 1 })).toMatchObject({
      approve: false,
      reason: expect.stringMatching(/malformed \(fee_rate/),
    });
    quotedTerm = null;
    const old = await openedVault(new Wallet('tove', TEST_NETWORK));
    const untermed = new Transaction({ lockTime: 5_000, allowUnknownInputs: true });
    untermed.addInput({
      txid: old.txid,
      index: old.vout,
      witnessUtxo: { script: old.output.script, amount: old.value },
    });
    untermed.addOutput({ script: TREASURY_SCRIPT, amount: old.value - 1_000n });
    expect(await ask(new Wallet('tove', TEST_NETWORK), untermed, new Uint8Array(32))).toMatchObject(
      { approve: false, reason: expect.stringMatching(/layout 1/) },
    );
  });
});
