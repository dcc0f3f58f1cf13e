// borrow `b` (docs/protocol.md): vault, treasury UNIT UTXO, P… → vault, UNIT postage, treasury
// change, R, S, C. Issues UNIT against the vault's BTC, which stays.
import { declareAction, moved, decodeUpdate } from './declare';
import {
  need,
  withVault,
  type ActionBase,
  type RuneIssue,
  type TreasuryUtxo,
  type VaultUtxo,
} from './params';
import {
  amountsBuilder,
  issueCoder,
  issueOf,
  payment,
  stateRecord,
  treasuryInput,
  vaultUpdateInput,
} from './slots';
import { check, type BuiltPlan } from './types';

export interface BorrowParams extends ActionBase, RuneIssue {
  vault: VaultUtxo;
  borrowAmount: bigint;
  treasury: TreasuryUtxo;
}

const outputs = issueCoder((outs, ctx) => {
  const { vault, before } = decodeUpdate(outs, 'borrow', ctx);
  check(vault.vaultSats === before.value, 'a borrow keeps the vault BTC');
  return { vault, issued: vault.state.unitDebt - before.unitDebt, btcAmount: 0n };
});

export function borrowPlan(params: BorrowParams): BuiltPlan {
  const debt = params.vault.unitDebt + params.borrowAmount;
  const state = stateRecord('borrow', params.state, debt, params.vault.value);
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

export const buildBorrowPsbt = amountsBuilder(borrowPlan, (params) => ({
  'borrow amount': params.borrowAmount,
}));

export const borrow = declareAction('borrow', {
  outputs,
  plan: borrowPlan,
  build: (request) =>
    buildBorrowPsbt({
      ...withVault(request),
      borrowAmount: request.unit,
      treasury: need(request.treasury, 'the reserved treasury UTXO'),
      unitRuneId: need(request.unitRuneId, 'the UNIT rune id'),
    }),
  payload: (form) => ({
    borrow_amount: Number(form.unit),
    deposit_amount: 0,
    tx_feerate: form.feeRate,
  }),
  payloadAmounts: (payload) => [moved('unit', payload.borrow_amount, 'the borrowed UNIT')],
  // One transaction issues and updates the vault: issue_txid equals vault_txid (api.ts).
  result: (txid) => ({ issue_txid: txid, vault_txid: txid }),
});
