// open `o` (docs/protocol.md): treasury UNIT UTXO, P… → vault, UNIT postage, treasury change, R, S, C.
// The first vault of a key: its deposit and its first borrow in one transaction.
import { declareAction, moved } from './declare';
import { need, type ActionBase, type RuneIssue, type TreasuryUtxo } from './params';
import {
  amountsBuilder,
  decodeVault,
  issueCoder,
  issueOf,
  payment,
  stateRecord,
  treasuryInput,
} from './slots';
import type { BuiltPlan } from './types';

export interface OpenParams extends ActionBase, RuneIssue {
  depositAmount: bigint;
  borrowAmount: bigint;
  treasury: TreasuryUtxo;
}

const outputs = issueCoder((outs, ctx) => {
  const vault = decodeVault(outs, 'open', ctx);
  return { vault, issued: vault.state.unitDebt, btcAmount: vault.vaultSats };
});

export function openPlan(params: OpenParams): BuiltPlan {
  const state = stateRecord('open', params.state, params.borrowAmount, params.depositAmount);
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

export const buildOpenPsbt = amountsBuilder(openPlan, (params) => ({
  'deposit amount': params.depositAmount,
  'borrow amount': params.borrowAmount,
}));

export const open = declareAction('open', {
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
    moved('btc', payload.deposit_amount, 'the deposit'),
    moved('unit', payload.borrow_amount, 'the borrowed UNIT'),
  ],
  // Open and borrow are one transaction: issue_txid equals vault_txid (api.ts); the vault is
  // named by it.
  result: (txid) => ({ issue_txid: txid, vault_txid: txid, vault_id: txid }),
});
