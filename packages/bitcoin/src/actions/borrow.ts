// borrow `b` (docs/protocol.md): vault, treasury UNIT UTXO, P… → vault, UNIT postage, treasury
// change, R, S, C. Issues UNIT against the vault's BTC, which stays.
import { ACTION_SHAPES } from '@unit/protocol';
import { need, type ActionBase, type RuneIssue, type TreasuryUtxo, type VaultUtxo } from './params';
import {
  assemble,
  decodeIssue,
  decodeVault,
  encodeIssue,
  issueOf,
  payment,
  positive,
  stateRecord,
  treasuryInput,
  TREASURY_INPUT,
  vaultUpdateInput,
  VAULT_INPUT,
  type IssuedVaultFields,
} from './slots';
import { check, type ActionDeclaration, type BuiltPlan, type OutputCoder } from './types';

/** The SPEC-level facts of borrow: its state-record letter among them. */
const shape = ACTION_SHAPES.borrow;

export interface BorrowParams extends ActionBase, RuneIssue {
  vault: VaultUtxo;
  borrowAmount: bigint;
  treasury: TreasuryUtxo;
}

const outputs: OutputCoder<IssuedVaultFields> = {
  slots: ['vault', 'postage', 'treasury change', 'runestone', 'state'],
  encode: encodeIssue,
  decode(outs, ctx) {
    const vault = decodeVault(outs, shape.code, ctx);
    const before = ctx.vault;
    check(before !== undefined, 'context has no vault');
    check(vault.vaultSats === before.value, 'a borrow keeps the vault BTC');
    const issue = decodeIssue(outs, vault.state.unitDebt - before.unitDebt, ctx);
    return { fields: { ...vault, issue }, btcAmount: 0n, unitAmount: issue.amount };
  },
};

export function borrowPlan(params: BorrowParams): BuiltPlan {
  const debt = params.vault.unitDebt + params.borrowAmount;
  const state = stateRecord(shape.code, params.state, debt, params.vault.value);
  const fields = {
    vaultScript: params.newVault.script,
    vaultSats: params.vault.value,
    state,
    issue: issueOf(params, params.postageSats, params.borrowAmount),
  };
  return {
    plan: {
      inputs: [vaultUpdateInput(params.vault), treasuryInput(params.treasury)],
      outputs: outputs.encode(fields),
      payment: payment(params),
    },
    record: state,
  };
}

export function buildBorrowPsbt(params: BorrowParams) {
  positive(params.borrowAmount, 'borrow amount');
  return assemble(borrowPlan(params));
}

export const borrow: ActionDeclaration<'borrow', BorrowParams, IssuedVaultFields> = {
  action: 'borrow',
  shape,
  method: 'vault.borrow',
  spends: [VAULT_INPUT, TREASURY_INPUT],
  outputs,
  plan: borrowPlan,
  build: (request) =>
    buildBorrowPsbt({
      ...request,
      vault: need(request.vault, 'the vault'),
      borrowAmount: request.unit,
      treasury: need(request.treasury, 'the reserved treasury UTXO'),
      unitRuneId: need(request.unitRuneId, 'the UNIT rune id'),
    }),
  payload: (form) => ({
    borrow_amount: Number(form.unit),
    deposit_amount: 0,
    tx_feerate: form.feeRate,
  }),
  payloadAmounts: (payload) => [
    { moved: 'unit', amount: payload.borrow_amount, what: 'the borrowed UNIT' },
  ],
  historyAmounts: (tx) => ({ btc: tx.btcAmount, unit: tx.unitAmount }),
  // One transaction issues and updates the vault: issue_txid equals vault_txid (api.ts).
  result: (txid) => ({ issue_txid: txid, vault_txid: txid }),
};
