// repay `r` (docs/protocol.md): vault, user UNIT outputs…, P… → vault, UNIT to treasury, UNIT change,
// R, S, C. Sends UNIT back to the treasury and lowers the debt; the vault's BTC stays.
import { equalBytes } from '@scure/btc-signer/utils.js';
import type { RuneId } from '../core';
import { VaultTxError, walletInput } from '../flows/vault-tx';
import { declareAction, moved, decodeUpdate } from './declare';
import {
  need,
  withVault,
  type ActionBase,
  type RuneIssue,
  type UnitUtxo,
  type VaultUtxo,
} from './params';
import {
  assemble,
  defaultPostage,
  payment,
  positive,
  stateRecord,
  stateSlot,
  unitRunestoneScript,
  vaultSlot,
  vaultUpdateInput,
} from './slots';
import { check, type BuiltPlan, type OutputCoder, type VaultFields } from './types';

export interface RepayParams extends ActionBase, RuneIssue {
  vault: VaultUtxo;
  repayAmount: bigint;
  unitUtxos: readonly UnitUtxo[];
  treasuryScript: Uint8Array;
  /** Postage of the UNIT sent back to the treasury; default SPEC §9's. */
  treasuryPostageSats?: bigint;
}

export interface RepaidVaultFields extends VaultFields {
  repay: {
    treasuryScript: Uint8Array;
    treasuryPostageSats: bigint;
    runesScript: Uint8Array;
    postageSats: bigint;
    unitRuneId: RuneId;
    amount: bigint;
  };
}

const outputs: OutputCoder<RepaidVaultFields> = {
  slots: ['vault', 'treasury postage', 'unit change', 'runestone', 'state'],
  encode: (fields) => [
    vaultSlot(fields),
    { script: fields.repay.treasuryScript, amount: fields.repay.treasuryPostageSats },
    { script: fields.repay.runesScript, amount: fields.repay.postageSats },
    { script: unitRunestoneScript(fields.repay.unitRuneId, fields.repay.amount), amount: 0n },
    stateSlot(fields),
  ],
  decode(outs, ctx) {
    const { vault, before } = decodeUpdate(outs, 'repay', ctx);
    check(vault.vaultSats === before.value, 'a repay keeps the vault BTC');
    const amount = before.unitDebt - vault.state.unitDebt;
    check(amount > 0n, 'a repay must lower the debt');
    const toTreasury = outs[1]!;
    const change = outs[2]!;
    const runestone = outs[3]!;
    check(
      equalBytes(toTreasury.script, ctx.treasuryScript) &&
        toTreasury.amount === defaultPostage(ctx.treasuryPostageSats),
      'UNIT must go to the treasury with postage',
    );
    check(change.amount === defaultPostage(ctx.postageSats), 'UNIT change postage amount');
    check(
      equalBytes(runestone.script, unitRunestoneScript(ctx.unitRuneId, amount)),
      'runestone does not repay the recorded amount',
    );
    const repay = {
      treasuryScript: toTreasury.script,
      treasuryPostageSats: toTreasury.amount,
      runesScript: change.script,
      postageSats: change.amount,
      unitRuneId: ctx.unitRuneId,
      amount,
    };
    return { fields: { ...vault, repay }, btcAmount: 0n, unitAmount: amount };
  },
};

export function repayPlan(params: RepayParams): BuiltPlan {
  const state = stateRecord(
    'repay',
    params.state,
    params.vault.unitDebt - params.repayAmount,
    params.vault.value,
  );
  const fields: RepaidVaultFields = {
    vaultScript: params.newVault.script,
    vaultSats: params.vault.value,
    state,
    repay: {
      treasuryScript: params.treasuryScript,
      treasuryPostageSats: defaultPostage(params.treasuryPostageSats),
      runesScript: params.wallet.runesScript,
      postageSats: defaultPostage(params.postageSats),
      unitRuneId: params.unitRuneId,
      amount: params.repayAmount,
    },
  };
  return {
    plan: {
      inputs: [
        vaultUpdateInput(params.vault),
        ...params.unitUtxos.map((utxo) => walletInput(utxo, params.wallet.runesPublicKey)),
      ],
      outputs: outputs.encode(fields),
      payment: payment(params),
    },
    record: state,
  };
}

export function buildRepayPsbt(params: RepayParams) {
  positive(params.repayAmount, 'repay amount');
  if (params.repayAmount > params.vault.unitDebt)
    throw new VaultTxError('bad_amount', 'repay amount exceeds the UNIT debt');
  const held = params.unitUtxos.reduce((sum, utxo) => sum + utxo.unitAmount, 0n);
  if (held < params.repayAmount)
    throw new VaultTxError('insufficient_funds', 'the UNIT outputs hold too little UNIT');
  return assemble(repayPlan(params));
}

export const repay = declareAction('repay', {
  outputs,
  plan: repayPlan,
  build: (request) =>
    buildRepayPsbt({
      ...withVault(request),
      repayAmount: request.unit,
      unitUtxos: need(request.unitUtxos, 'the UNIT outputs to repay from'),
      treasuryScript: need(request.treasuryScript, 'the treasury script'),
      unitRuneId: need(request.unitRuneId, 'the UNIT rune id'),
    }),
  payload: (form) => ({
    repay_amount: Number(form.unit),
    deposit_amount: 0,
    tx_feerate: form.feeRate,
  }),
  payloadAmounts: (payload) => [moved('unit', payload.repay_amount, 'the repaid UNIT')],
  result: (txid) => ({ repay_txid: txid, vault_txid: txid }),
});
