// deposit `d` (docs/protocol.md): vault, P… → vault, S, C. Adds BTC; the debt stays.
import { ACTION_SHAPES } from '@unit/protocol';
import { need, type ActionBase, type VaultUtxo } from './params';
import {
  assemble,
  decodeVault,
  payment,
  positive,
  stateRecord,
  stateSlot,
  vaultSlot,
  vaultUpdateInput,
  VAULT_INPUT,
} from './slots';
import {
  check,
  type ActionDeclaration,
  type BuiltPlan,
  type OutputCoder,
  type VaultFields,
} from './types';

/** The SPEC-level facts of deposit: its state-record letter among them. */
const shape = ACTION_SHAPES.deposit;

export interface DepositParams extends ActionBase {
  vault: VaultUtxo;
  depositAmount: bigint;
}

const outputs: OutputCoder<VaultFields> = {
  slots: ['vault', 'state'],
  encode: (fields) => [vaultSlot(fields), stateSlot(fields)],
  decode(outs, ctx) {
    const fields = decodeVault(outs, shape.code, ctx);
    const before = ctx.vault;
    check(before !== undefined, 'context has no vault');
    check(fields.state.unitDebt === before.unitDebt, 'a deposit changes no debt');
    const btcAmount = fields.vaultSats - before.value;
    check(btcAmount > 0n, 'a deposit must add BTC to the vault');
    return { fields, btcAmount, unitAmount: 0n };
  },
};

export function depositPlan(params: DepositParams): BuiltPlan {
  const vaultSats = params.vault.value + params.depositAmount;
  const state = stateRecord(shape.code, params.state, params.vault.unitDebt, vaultSats);
  return {
    plan: {
      inputs: [vaultUpdateInput(params.vault)],
      outputs: outputs.encode({ vaultScript: params.newVault.script, vaultSats, state }),
      payment: payment(params),
    },
    record: state,
  };
}

export function buildDepositPsbt(params: DepositParams) {
  positive(params.depositAmount, 'deposit amount');
  return assemble(depositPlan(params));
}

export const deposit: ActionDeclaration<'deposit', DepositParams> = {
  action: 'deposit',
  shape,
  method: 'vault.deposit',
  spends: [VAULT_INPUT],
  outputs,
  plan: depositPlan,
  build: (request) =>
    buildDepositPsbt({
      ...request,
      vault: need(request.vault, 'the vault'),
      depositAmount: request.btc,
    }),
  payload: (form) => ({ deposit_amount: Number(form.btc), tx_feerate: form.feeRate }),
  payloadAmounts: (payload) => [
    { moved: 'btc', amount: payload.deposit_amount, what: 'the deposit' },
  ],
  historyAmounts: (tx) => ({ btc: tx.btcAmount, unit: tx.unitAmount }),
  result: (txid) => ({ vault_txid: txid }),
};
