// open `o` (docs/protocol.md): treasury UNIT UTXO, P… → vault, UNIT postage, treasury change, R, S, C.
// The first vault of a key: its deposit and its first borrow in one transaction.
import { ACTION_SHAPES } from '@unit/protocol';
import { need, type ActionBase, type RuneIssue, type TreasuryUtxo } from './params';
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
  type IssuedVaultFields,
} from './slots';
import type { ActionDeclaration, BuiltPlan, OutputCoder } from './types';

/** The SPEC-level facts of open: its state-record letter among them. */
const shape = ACTION_SHAPES.open;

export interface OpenParams extends ActionBase, RuneIssue {
  depositAmount: bigint;
  borrowAmount: bigint;
  treasury: TreasuryUtxo;
}

const outputs: OutputCoder<IssuedVaultFields> = {
  slots: ['vault', 'postage', 'treasury change', 'runestone', 'state'],
  encode: encodeIssue,
  decode(outs, ctx) {
    const vault = decodeVault(outs, shape.code, ctx);
    const issue = decodeIssue(outs, vault.state.unitDebt, ctx);
    return { fields: { ...vault, issue }, btcAmount: vault.vaultSats, unitAmount: issue.amount };
  },
};

export function openPlan(params: OpenParams): BuiltPlan {
  const state = stateRecord(shape.code, params.state, params.borrowAmount, params.depositAmount);
  const fields = {
    vaultScript: params.newVault.script,
    vaultSats: params.depositAmount,
    state,
    issue: issueOf(params, params.postageSats, params.borrowAmount),
  };
  return {
    plan: {
      inputs: [treasuryInput(params.treasury)],
      outputs: outputs.encode(fields),
      payment: payment(params),
    },
    record: state,
  };
}

export function buildOpenPsbt(params: OpenParams) {
  positive(params.depositAmount, 'deposit amount');
  positive(params.borrowAmount, 'borrow amount');
  return assemble(openPlan(params));
}

export const open: ActionDeclaration<'open', OpenParams, IssuedVaultFields> = {
  action: 'open',
  shape,
  method: 'vault.open',
  spends: [TREASURY_INPUT],
  outputs,
  plan: openPlan,
  build: (request) =>
    buildOpenPsbt({
      ...request,
      depositAmount: request.btc,
      borrowAmount: request.unit,
      treasury: need(request.treasury, 'the reserved treasury UTXO'),
      unitRuneId: need(request.unitRuneId, 'the UNIT rune id'),
    }),
  payload: (form) => ({
    borrow_amount: Number(form.unit),
    deposit_amount: Number(form.btc),
    vault_label: form.label ?? '',
    tx_feerate: form.feeRate,
  }),
  payloadAmounts: (payload) => [
    { moved: 'btc', amount: payload.deposit_amount, what: 'the deposit' },
    { moved: 'unit', amount: payload.borrow_amount, what: 'the borrowed UNIT' },
  ],
  historyAmounts: (tx) => ({ btc: tx.btcAmount, unit: tx.unitAmount }),
  // Open and borrow are one transaction: issue_txid equals vault_txid (api.ts); the vault is
  // named by it.
  result: (txid) => ({ issue_txid: txid, vault_txid: txid, vault_id: txid }),
};
