// deposit `d` (docs/protocol.md): vault, P… → vault, S, C. Adds BTC; the debt stays.
import { declareAction, moved, decodeUpdate } from './declare';
import { withVault, type ActionBase, type VaultUtxo } from './params';
import {
  amountsBuilder,
  payment,
  stateRecord,
  stateSlot,
  vaultSlot,
  vaultUpdateInput,
} from './slots';
import { check, type BuiltPlan, type OutputCoder, type VaultFields } from './types';

export interface DepositParams extends ActionBase {
  vault: VaultUtxo;
  depositAmount: bigint;
}

const outputs: OutputCoder<VaultFields> = {
  slots: ['vault', 'state'],
  encode: (fields) => [vaultSlot(fields), stateSlot(fields)],
  decode(outs, ctx) {
    const { vault: fields, before } = decodeUpdate(outs, 'deposit', ctx);
    check(fields.state.unitDebt === before.unitDebt, 'a deposit changes no debt');
    const btcAmount = fields.vaultSats - before.value;
    check(btcAmount > 0n, 'a deposit must add BTC to the vault');
    return { fields, btcAmount, unitAmount: 0n };
  },
};

export function depositPlan(params: DepositParams): BuiltPlan {
  const vaultSats = params.vault.value + params.depositAmount;
  const state = stateRecord('deposit', params.state, params.vault.unitDebt, vaultSats);
  return {
    plan: {
      inputs: [vaultUpdateInput(params.vault)],
      outputs: outputs.encode({ vaultScript: params.newVault.script, vaultSats, state }),
      payment: payment(params),
    },
    record: state,
  };
}

export const buildDepositPsbt = amountsBuilder(depositPlan, (params) => ({
  'deposit amount': params.depositAmount,
}));

export const deposit = declareAction('deposit', {
  outputs,
  plan: depositPlan,
  build: (request) => buildDepositPsbt({ ...withVault(request), depositAmount: request.btc }),
  payload: (form) => ({ deposit_amount: Number(form.btc), tx_feerate: form.feeRate }),
  payloadAmounts: (payload) => [moved('btc', payload.deposit_amount, 'the deposit')],
  result: (txid) => ({ vault_txid: txid }),
});
