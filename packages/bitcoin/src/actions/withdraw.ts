// withdraw `w` (docs/protocol.md): vault → vault, withdrawal to the sats address, S. The vault pays
// the fee: no payment inputs, no change, and the fee is fixed for a given sats address type.
import { ACTION_SHAPES } from '@unit/protocol';
import type { VaultOutput } from '../core';
import { planWeight, VaultTxError } from '../flows/vault-tx';
import { feeFor, paymentScriptKind, weightToVsize } from '../flows/vsize';
import { need, type VaultStateFields, type VaultUtxo, type VaultWallet } from './params';
import {
  assemble,
  decodeVault,
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

/** The SPEC-level facts of withdraw: its state-record letter among them. */
const shape = ACTION_SHAPES.withdraw;

export interface WithdrawParams {
  wallet: Pick<VaultWallet, 'satsScript'>;
  feeRate: number;
  state: VaultStateFields;
  newVault: Pick<VaultOutput, 'script'>;
  vault: VaultUtxo;
  withdrawAmount: bigint;
}

export interface WithdrawnVaultFields extends VaultFields {
  withdrawal: { script: Uint8Array; amount: bigint };
}

const outputs: OutputCoder<WithdrawnVaultFields> = {
  slots: ['vault', 'withdrawal', 'state'],
  encode: (fields) => [
    vaultSlot(fields),
    { script: fields.withdrawal.script, amount: fields.withdrawal.amount },
    stateSlot(fields),
  ],
  decode(outs, ctx) {
    const vault = decodeVault(outs, shape.code, ctx);
    const before = ctx.vault;
    check(before !== undefined, 'context has no vault');
    check(vault.state.unitDebt === before.unitDebt, 'a withdraw changes no debt');
    const withdrawal = outs[1]!;
    check(paymentScriptKind(withdrawal.script) !== null, 'withdrawal: Unexpected script type');
    check(withdrawal.amount > 0n && vault.vaultSats < before.value, 'a withdraw must take BTC out');
    return {
      fields: { ...vault, withdrawal: { script: withdrawal.script, amount: withdrawal.amount } },
      btcAmount: withdrawal.amount,
      unitAmount: 0n,
    };
  },
};

function withdrawFields(params: WithdrawParams, vaultSats: bigint): WithdrawnVaultFields {
  return {
    vaultScript: params.newVault.script,
    vaultSats,
    state: stateRecord(shape.code, params.state, params.vault.unitDebt, vaultSats),
    withdrawal: { script: params.wallet.satsScript, amount: params.withdrawAmount },
  };
}

/**
 * The fee of a withdraw: fixed for a given sats address type, so the caller can know the vault's
 * balance after it (and its threshold) before building.
 */
export function withdrawFee(params: WithdrawParams): bigint {
  const weight = planWeight({
    inputs: [vaultUpdateInput(params.vault)],
    outputs: outputs.encode(withdrawFields(params, 0n)),
  });
  return feeFor(weightToVsize(weight), params.feeRate);
}

export function withdrawPlan(params: WithdrawParams): BuiltPlan {
  const vaultSats = params.vault.value - params.withdrawAmount - withdrawFee(params);
  if (vaultSats <= 0n)
    throw new VaultTxError(
      'insufficient_funds',
      'the vault cannot pay this withdrawal and its fee',
    );
  const fields = withdrawFields(params, vaultSats);
  return {
    plan: { inputs: [vaultUpdateInput(params.vault)], outputs: outputs.encode(fields) },
    record: fields.state,
  };
}

export function buildWithdrawPsbt(params: WithdrawParams) {
  positive(params.withdrawAmount, 'withdraw amount');
  return assemble(withdrawPlan(params));
}

export const withdraw: ActionDeclaration<'withdraw', WithdrawParams, WithdrawnVaultFields> = {
  action: 'withdraw',
  shape,
  method: 'vault.withdraw',
  spends: [VAULT_INPUT],
  outputs,
  plan: withdrawPlan,
  build: (request) =>
    buildWithdrawPsbt({
      ...request,
      vault: need(request.vault, 'the vault'),
      withdrawAmount: request.btc,
    }),
  payload: (form) => ({ change_amount: Number(form.btc), tx_feerate: form.feeRate }),
  payloadAmounts: (payload) => [
    { moved: 'btc', amount: payload.change_amount, what: 'the withdrawal' },
  ],
  historyAmounts: (tx) => ({ btc: tx.btcAmount, unit: tx.unitAmount }),
  result: (txid) => ({ vault_txid: txid }),
};
