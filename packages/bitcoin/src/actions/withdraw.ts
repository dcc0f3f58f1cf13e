// withdraw `w` (docs/protocol.md): vault → vault, withdrawal to the sats address, S. The vault pays
// the fee: no payment inputs, no change, and the fee is fixed for a given sats address type.
import type { VaultOutput } from '../core';
import { planWeight, VaultTxError } from '../flows/vault-tx';
import { feeFor, paymentScriptKind, weightToVsize } from '../flows/vsize';
import { declareAction, moved, decodeUpdate } from './declare';
import { withVault, type VaultStateFields, type VaultUtxo, type VaultWallet } from './params';
import { amountsBuilder, stateRecord, stateSlot, vaultSlot, vaultUpdateInput } from './slots';
import { check, type BuiltPlan, type OutputCoder, type VaultFields } from './types';

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
    const { vault, before } = decodeUpdate(outs, 'withdraw', ctx);
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
    state: stateRecord('withdraw', params.state, params.vault.unitDebt, vaultSats),
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

export const buildWithdrawPsbt = amountsBuilder(withdrawPlan, (params) => ({
  'withdraw amount': params.withdrawAmount,
}));

export const withdraw = declareAction('withdraw', {
  outputs,
  plan: withdrawPlan,
  build: (request) => buildWithdrawPsbt({ ...withVault(request), withdrawAmount: request.btc }),
  payload: (form) => ({ change_amount: Number(form.btc), tx_feerate: form.feeRate }),
  payloadAmounts: (payload) => [moved('btc', payload.change_amount, 'the withdrawal')],
  result: (txid) => ({ vault_txid: txid }),
});
